/**
 * Auggie (Augment Code's CLI) sessions: `<augment dir>/sessions/<uuid>.json`, one JSON object per session that Auggie
 * rewrites whole on every save (records.ts: what it holds). The augment dir is `~/.augment` (Auggie's
 * `--augment-cache-dir` names another; no variable does).
 */
import { basename, dirname, join, relative, sep } from 'node:path';
import { requireHome } from '../../handoff/types.js';
import { uuidv4 } from '../../ids.js';
import { isKind } from '../../io/regular.js';
import type { Session, SessionSummary } from '../../model.js';
import { listDir } from '../roots.js';
import type { AdapterContext, FormatAdapter, ReportProblem, SessionFileGroup } from '../types.js';
import { forkAuggie } from './fork.js';
import { writeAuggieHandoff } from './handoff.js';
import { auggieGroup, indexAuggie, readAuggieSession, SESSION_FILE } from './session.js';

/** The first exchange's request id in a file's first bytes: the lineage a fork shares (Auggie pretty prints its files). */
const FIRST_REQUEST_ID = /"request_id":\s*"([^"\\]+)"/;

export const auggieAdapter: FormatAdapter = {
  agent: 'auggie',
  label: 'Auggie',
  locations: {
    flag: '--auggie-dir <dir>',
    flagHelp: 'an Auggie folder, the one holding sessions/ (repeatable; default ~/.augment)',
    homeFolder: '.augment',
    defaultRoots: ({ home, homeDir }) => [join(home ?? homeDir, '.augment')],
    readme: {
      where: '`~/.augment/sessions/*.json`',
      options: '`--auggie-dir DIR` (repeatable: the `.augment` folder), `--home DIR` (= `DIR/.augment`)',
    },
    describeRoot: (dir) => `${dir}/sessions (Auggie)`,
  },
  // <dir>/sessions/<id>.json; nothing else of the augment dir (its login, settings, task storage) is watched.
  watch: {
    roots: 'configured',
    depth: 1,
    wanted: (parts) => parts[0] === 'sessions' && parts.length <= 2,
    fileSuffixes: ['.json'],
  },
  // The session files only: never session.json (the login) nor settings.
  mirror: { variables: [], filter: ['+ sessions/', '+ sessions/*.json'] },
  resume: {
    interactive: ['auggie', '{args}', '--resume', '{id}'],
    exec: ['auggie', '{args}', '--resume', '{id}', '--print', '{prompt}'],
    // Auggie has no variable for its folder: another `.augment` is found through the home it belongs to.
    homeEnvironment: (root): Record<string, string> => (basename(root) === '.augment' ? { HOME: dirname(root) } : {}),
  },
  idShape: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, description: 'a UUID' },
  forkTarget: "in the same sessions folder as the original, <new id>.json (Auggie records no parent: the fork keeps the\noriginal's first request id, which links the two)",
  readsAlone: true,
  lineageInHead: (head) => FIRST_REQUEST_ID.exec(head.toString('utf8'))?.[1] ?? null,
  lineageLineKey: '"request_id"',

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    const out: SessionFileGroup[] = [];
    for (const path of [...paths].sort()) {
      const rel = relative(root, path).split(sep);
      if (rel.length === 2 && rel[0] === 'sessions' && SESSION_FILE.test(rel[1]!)) out.push(auggieGroup(root, path));
    }
    return out;
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const sessions = join(root, 'sessions');
    const out: SessionFileGroup[] = [];
    for (const entry of await listDir(sessions, report)) {
      const path = join(sessions, entry.name);
      if (SESSION_FILE.test(entry.name) && (await isKind(path, entry, 'file'))) out.push(auggieGroup(root, path));
    }
    return out.sort((a, b) => (a.paths[0]! < b.paths[0]! ? -1 : 1));
  },

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexAuggie(group, context)).summary;
  },

  indexSession: indexAuggie,

  async readSession(group: SessionFileGroup): Promise<Session> {
    const { summary, messages, malformedLines } = await readAuggieSession(group);
    return { ...summary, messages, malformedLines };
  },

  fork: (group, request) => forkAuggie(group, request),
  // No rename: Auggie keeps a session's name (`customTitle`, its /rename) only inside the session file, which it
  // rewrites whole on every save; sessions never rewrites a conversation's file (a turn Auggie saves meanwhile would be lost).
  handoff: {
    write: (conversation, write, home) => writeAuggieHandoff(conversation, write, requireHome(home, 'auggie')),
    where: '<augment dir>/sessions/<new id>.json (a text node before the first prompt, the note, names the source)',
    newId: () => uuidv4(),
  },
};
