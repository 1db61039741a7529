/**
 * Factory Droid sessions: `<factory dir>/sessions/<cwd with / as ->/<uuid>.jsonl`, with `<uuid>.settings.json` (the
 * session's model, autonomy and token counts) beside it; side questions in `sessions/btw/`. The factory dir is
 * `$FACTORY_HOME_OVERRIDE/.factory`, else `~/.factory` (Droid's own rule, 0.225.2). Droid finds a session by id in
 * `sessions/`, `sessions/btw/` and every `sessions/-…/` folder (records.ts: what a file holds).
 */
import { uuidv4 } from '../../ids.js';
import { statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { isKind } from '../../io/regular.js';
import type { Session, SessionSummary } from '../../model.js';
import { requireHome } from '../../handoff/types.js';
import { livePath } from '../group-files.js';
import { listDir } from '../roots.js';
import type { AdapterContext, FormatAdapter, ReportProblem, SessionFileGroup } from '../types.js';
import { forkDroid, settingsPath } from './fork.js';
import { writeDroidHandoff } from './handoff.js';
import { DROID_NON_CONVERSATION_NEEDLES, isDroidNonConversationLine } from './records.js';
import { droidGroup, indexDroid, readDroidSession, SESSION_FILE } from './session.js';

/** A folder of `sessions/` that holds sessions: a cwd's (`-home-dev-src-app`) or the side questions' (`btw`). */
const isSessionFolder = (name: string): boolean => name === 'btw' || name.startsWith('-');

export const droidAdapter: FormatAdapter = {
  agent: 'droid',
  label: 'Factory Droid',
  locations: {
    flag: '--droid-dir <dir>',
    flagHelp: 'a Factory Droid folder, the one holding sessions/ (repeatable; default $FACTORY_HOME_OVERRIDE/.factory or ~/.factory)',
    homeFolder: '.factory',
    // FACTORY_HOME_OVERRIDE stands for the user's home: Droid keeps its files in its `.factory`.
    defaultRoots: ({ home, env, homeDir, abs }) => [join(home ?? (env.FACTORY_HOME_OVERRIDE ? abs(env.FACTORY_HOME_OVERRIDE) : homeDir), '.factory')],
    readme: {
      where: '`$FACTORY_HOME_OVERRIDE/.factory/sessions/*/*.jsonl` and `sessions/btw/` (default `~/.factory`)',
      options: '`--droid-dir DIR` (repeatable: the `.factory` folder), `--home DIR` (= `DIR/.factory`)',
    },
    describeRoot: (dir) => `${dir}/sessions (Factory Droid)`,
  },
  // <dir>/sessions/<id>.jsonl, sessions/btw/<id>.jsonl and sessions/-<cwd>/<id>.jsonl.
  watch: {
    roots: 'configured',
    depth: 2,
    // A folder or a file: sessions/, a file or a folder in it, a file in a session folder.
    wanted: (parts) => parts[0] === 'sessions' && (parts.length <= 2 || (parts.length === 3 && isSessionFolder(parts[1]!))),
    fileSuffixes: ['.jsonl'],
  },
  // The session files only: not their settings, nor Droid's settings, logs or credentials.
  mirror: { variables: ['FACTORY_HOME_OVERRIDE'], filter: ['+ sessions/', '+ sessions/*.jsonl', '+ sessions/btw/', '+ sessions/btw/*.jsonl', '+ sessions/-*/', '+ sessions/-*/*.jsonl'] },
  resume: {
    interactive: ['droid', '{args}', '--resume', '{id}'],
    exec: ['droid', 'exec', '{args}', '-s', '{id}', '{prompt}'],
    // A `.factory` folder elsewhere: Droid looks there when FACTORY_HOME_OVERRIDE names its parent (its settings too).
    homeEnvironment: (root): Record<string, string> => (basename(root) === '.factory' ? { FACTORY_HOME_OVERRIDE: dirname(root) } : {}),
  },
  idShape: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, description: 'a UUID' },
  isNonConversationLine: isDroidNonConversationLine,
  nonConversationNeedles: DROID_NON_CONVERSATION_NEEDLES,
  forkTarget: 'in the same folder as the original, <new id>.jsonl with its settings\n(parent in its session_start names the original, as droid exec --fork writes)',
  readsAlone: true,

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    const out: SessionFileGroup[] = [];
    for (const path of [...paths].sort()) {
      const rel = relative(root, path).split(sep);
      if (rel[0] !== 'sessions' || !SESSION_FILE.test(rel.at(-1) ?? '')) continue;
      if (rel.length === 2 || (rel.length === 3 && isSessionFolder(rel[1]!))) out.push(droidGroup(root, path));
    }
    return out;
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const sessions = join(root, 'sessions');
    const out: SessionFileGroup[] = [];
    for (const entry of await listDir(sessions, report)) {
      const path = join(sessions, entry.name);
      if (SESSION_FILE.test(entry.name) && (await isKind(path, entry, 'file'))) out.push(droidGroup(root, path));
      else if (isSessionFolder(entry.name) && (await isKind(path, entry, 'directory'))) {
        for (const child of await listDir(path, report)) {
          const childPath = join(path, child.name);
          if (SESSION_FILE.test(child.name) && (await isKind(childPath, child, 'file'))) out.push(droidGroup(root, childPath));
        }
      }
    }
    return out;
  },

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexDroid(group, context)).summary;
  },

  indexSession: indexDroid,

  async readSession(group: SessionFileGroup): Promise<Session> {
    const { summary, messages, malformedLines } = await readDroidSession(group);
    return { ...summary, messages, malformedLines };
  },

  fork: (group, request) => forkDroid(group, request),

  // The session's settings (and the backup Droid keeps of them) go to the trash with it.
  sessionPaths(group: SessionFileGroup): Promise<string[]> {
    const path = livePath(group);
    const beside = [settingsPath(path), `${settingsPath(path)}.bak`].filter((one) => statSync(one, { throwIfNoEntry: false })?.isFile() === true);
    return Promise.resolve([...group.paths, ...beside]);
  },

  // No rename: Droid keeps a session's title in its first line (session_start), which its /rename rewrites with the
  // whole file; sessions never rewrites a conversation's lines.
  handoff: {
    write: (conversation, write, home) => writeDroidHandoff(conversation, write, requireHome(home, 'droid')),
    where: '<factory dir>/sessions/<cwd with / as ->/<new id>.jsonl (its hidden context message, the note, names the source)',
    newId: () => uuidv4(),
  },
};

export { droidSessionFolder } from './handoff.js';
export { isDroidUserTurn } from './records.js';
