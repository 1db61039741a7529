/**
 * pi (`@earendil-works/pi-coding-agent`, formerly `@mariozechner/pi-coding-agent`) sessions:
 * `<agent dir>/sessions/--<cwd, / as ->--/<ISO time>_<uuid v7>.jsonl`, the agent dir being `$PI_CODING_AGENT_DIR`,
 * else `~/.pi/agent`. Each file is a tree of entries (entries.ts); the conversation is the path from its last entry.
 */
import { uuidv7 } from '../../ids.js';
import { join, relative, sep } from 'node:path';
import { isKind } from '../../io/regular.js';
import type { Session, SessionSummary } from '../../model.js';
import { requireHome } from '../../handoff/types.js';
import { listDir } from '../roots.js';
import type { AdapterContext, FormatAdapter, ReportProblem, SessionFileGroup } from '../types.js';
import { activePath, livePath, piGroup, readPiFile } from './entries.js';
import { indexPi, PiScan, summarize } from './fold.js';
import { forkPi } from './fork.js';
import { writePiHandoff } from './handoff.js';
import { piMessages } from './messages.js';
import { piRename } from './rename.js';

const SESSION_FILE = /\.jsonl$/;

/** `~` and `~/…` as pi expands them in PI_CODING_AGENT_DIR. */
function expandTilde(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  return path.startsWith('~/') ? join(homeDir, path.slice(2)) : path;
}

export const piAdapter: FormatAdapter = {
  agent: 'pi',
  label: 'pi',
  locations: {
    flag: '--pi-dir <dir>',
    flagHelp: "a pi agent folder, the one holding sessions/ (repeatable; default $PI_CODING_AGENT_DIR or ~/.pi/agent)",
    homeFolder: '.pi/agent',
    defaultRoots: ({ home, env, homeDir, abs }) => {
      if (home !== undefined) return [join(home, '.pi', 'agent')];
      const dir = env.PI_CODING_AGENT_DIR;
      return [dir ? abs(expandTilde(dir, homeDir)) : join(homeDir, '.pi', 'agent')];
    },
    readme: {
      where: '`$PI_CODING_AGENT_DIR/sessions/*/*.jsonl` (default `~/.pi/agent`)',
      options: '`--pi-dir DIR` (repeatable), `--home DIR` (= `DIR/.pi/agent`)',
    },
    describeRoot: (dir) => `${dir}/sessions/* (pi)`,
  },
  // <dir>/sessions/--<cwd>--/<time>_<id>.jsonl
  watch: {
    roots: 'configured',
    depth: 2,
    wanted: (parts) => parts[0] === 'sessions' && parts.length <= 3,
    fileSuffixes: ['.jsonl'],
  },
  mirror: { variables: ['PI_CODING_AGENT_DIR'], filter: ['+ sessions/', '+ sessions/*/', '+ sessions/*/*.jsonl'] },
  resume: {
    // pi looks an id up among the cwd's sessions first: the resume runs in the session's cwd.
    interactive: ['pi', '{args}', '--session', '{id}'],
    exec: ['pi', '{args}', '--session', '{id}', '-p', '{prompt}'],
    homeEnvironment: (root) => ({ PI_CODING_AGENT_DIR: root }),
  },
  idShape: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, description: 'a UUID' },
  forkTarget: "in the same sessions folder as the original, <time>_<new id>.jsonl (its header's parentSession names the\noriginal's file)",
  readsAlone: true,

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    const out: SessionFileGroup[] = [];
    for (const path of [...paths].sort()) {
      const rel = relative(root, path).split(sep);
      if (rel.length === 3 && rel[0] === 'sessions' && SESSION_FILE.test(rel[2]!)) out.push(piGroup(root, path));
    }
    return out;
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const sessions = join(root, 'sessions');
    const out: SessionFileGroup[] = [];
    for (const folder of await listDir(sessions, report)) {
      const dir = join(sessions, folder.name);
      if (!(await isKind(dir, folder, 'directory'))) continue;
      for (const entry of await listDir(dir, report)) {
        const path = join(dir, entry.name);
        if (SESSION_FILE.test(entry.name) && (await isKind(path, entry, 'file'))) out.push(piGroup(root, path));
      }
    }
    return out;
  },

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexPi(group, context)).summary;
  },

  indexSession: indexPi,

  async readSession(group: SessionFileGroup): Promise<Session> {
    const file = await readPiFile(livePath(group));
    const scan = new PiScan();
    // The header first, then every entry: the same fold as the row.
    if (file.headerValue !== null) scan.add(file.headerValue);
    for (const entry of file.entries) scan.add(entry.value);
    return { ...summarize(group, scan, file.size, file.mtimeMs), messages: piMessages(activePath(file.entries), file.entries), malformedLines: file.stats.malformed };
  },

  fork: (group, request) => forkPi(group, request),
  forksAnyBranch: true,
  rename: piRename,
  handoff: {
    write: (conversation, write, home) => writePiHandoff(conversation, write, requireHome(home, 'pi')),
    where: '<pi agent dir>/sessions/--<cwd, / as ->--/<time>_<new id>.jsonl (its hand-off note names the source)',
    newId: (now) => uuidv7(now.getTime()),
  },
};
