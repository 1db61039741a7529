/**
 * claw sessions (the claw reference implementation and its Python port), read from a workspace:
 * `<ws>/.claw/sessions/*.jsonl` and per-workspace `<ws>/.claw/sessions/<fnv-hash>/*.jsonl` (JSONL records
 * `session_meta` / `message` / `compaction` / `prompt_history`, rotated to `<stem>.rot-<ms>.jsonl`), the
 * older single-object JSON `{version, messages, …}` in `.claw/sessions/*.json` and `<ws>/.claude/sessions/*.json`,
 * and the Python port's `<ws>/.port_sessions/*.json` `{session_id, messages: [strings], …}`.
 */
import { basename } from 'node:path';
import type { FormatAdapter } from '../types.js';
import { discoverClaw, groupClawFiles } from './discovery.js';
import { forkClaw, nextSessionId } from './fork.js';
import { indexClaw, readClawSession, readClawSummary } from './read.js';
import { livePath } from './values.js';
import { CLAW_WORKSPACE_FILTER, clawCandidateRoots, clawMirrorFilter, clawSearchReaches, clawWatched, isClawWorkspace } from './workspaces.js';
import { writeClawHandoff } from './handoff.js';

export const clawAdapter: FormatAdapter = {
  agent: 'claw',
  label: 'claw',
  locations: {
    flag: '--claw-dir <dir>',
    flagHelp: 'a folder to search for claw workspaces (repeatable)',
    homeFolder: null,
    defaultRoots: () => [],
    readme: {
      where:
        "`<workspace>/.claw/sessions/` (and its per-workspace hash folders, the legacy `.claude/sessions/*.json`, `.port_sessions/`) in the current directory and its ancestors, in every directory other agents' sessions ran in, and under each `--claw-dir DIR` (4 levels deep); without `--claw-dir`, in the current directory's subfolders too (4 levels deep)",
      options:
        '`--claw-dir DIR` (repeatable): a directory holding workspaces, a workspace, or one of its session folders (`.claw`, `.claw/sessions`, `.claw/sessions/<hash>`, `.claude/sessions`, `.port_sessions`: the whole workspace is read)',
    },
    describeRoot: (dir) => `claw workspaces under ${dir}`,
    describeAlso: (cwd) => `claw workspaces at ${cwd} and its parents, and at the directories other sessions ran in`,
  },
  discovery: { candidateRoots: clawCandidateRoots, isRoot: isClawWorkspace, rootsFromCwds: true },
  watch: { roots: 'found', depth: 3, wanted: clawWatched, fileSuffixes: ['.jsonl', '.json'] },
  // On a host: the workspaces in its login directory and below, as `sessions` run there finds them.
  // …and the workspaces other sessions on the host ran in, that search does not reach (as `sessions` there finds them).
  mirror: { variables: [], hostRoots: ({ homeDir }) => [homeDir], filter: clawMirrorFilter(), workspaces: { filter: CLAW_WORKSPACE_FILTER, reached: clawSearchReaches } },
  resume: {
    interactive: ['claw', '{args}', '--resume', '{path}', '{prompt}'],
    exec: ['claw', '{args}', '--resume', '{path}', '{prompt}'],
  },
  // claw's generate_session_id: `session-<ms>[-<counter>]`; the Python port's sessions: uuid4().hex.
  idShape: { pattern: /^(?:session-\d{1,20}(?:-\d{1,10})?|[0-9a-f]{32})$/, description: 'session-<digits>[-<n>] (or 32 hex digits)' },
  forkTarget: 'in the same sessions folder as the original, <new id>.jsonl',
  discover: discoverClaw,
  groupFiles: groupClawFiles,
  nameIdHint: (group) => basename(livePath(group)).replace(/(\.rot-\d+)?\.jsonl?$/, ''),
  readSummary: readClawSummary,
  indexSession: indexClaw,
  readSession: readClawSession,
  fork: forkClaw,
  handoff: {
    write: (conversation, write) => writeClawHandoff(conversation, write),
    where: '<cwd>/.claw/sessions/<workspace hash>/session-<ms>-<n>.jsonl (fork.parent_session_id names the source)',
    newId: (now) => nextSessionId(now.getTime()),
  },
};

export { clawWorkspaceFingerprint, clawWorkspaceOfSessionFolder, discoverClaw, findClawWorkspaces, groupClawFiles } from './discovery.js';
export { readClawSession, readClawSummary } from './read.js';
export { forkClaw, nextSessionId } from './fork.js';
export { appendClawMessages, clawMessageJson, resumeClawInPlace, type ClawAppendMessage } from './append.js';
export { CLAW_SEARCH_DEPTH, isClawWorkspace } from './workspaces.js';
