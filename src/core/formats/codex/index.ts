import { UUID_EXACT } from '../../ids.js';
import { homeFolderRoots } from '../roots.js';
import type { FormatAdapter } from '../types.js';
import { codexRowFolders, discoverCodex, groupCodexFiles } from './discovery.js';
import { forkCodex } from './fork.js';
import { readCodexNames } from './names.js';
import { CODEX_NON_CONVERSATION_NEEDLES, isCodexNonConversationLine } from './prompt.js';
import { indexCodex, readCodexSession, readCodexSummary, streamCodexMessages } from './session.js';
import { writeCodexHandoff } from './handoff.js';
import { requireHome } from '../../handoff/types.js';
import { codexRename } from './rename.js';
import { codexInheritedHistory } from './inherited.js';
import { codexCodeAt, codexTurns } from './ghost.js';
import { uuidv7 } from '../../ids.js';

/*
 * OpenAI Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local ts>-<uuid>[_<segment>].jsonl`
 * and `$CODEX_HOME/archived_sessions/`. Modern lines are `{timestamp, type, payload}` (0.16x adds `ordinal`);
 * legacy files (before Sept 2025) start with `{id, timestamp, instructions}` followed by bare response items
 * and `{"record_type":"state"}` lines. Paginated forks (0.16x) hold only their own lines and point into the
 * parent's file with `session_meta.history_base`.
 */

/** ~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl; archived_sessions/…; session_index.jsonl holds names. */
const CODEX_WATCHED = new Set(['sessions', 'archived_sessions', 'session_index.jsonl']);

export const codexAdapter: FormatAdapter = {
  agent: 'codex',
  label: 'Codex CLI',
  locations: {
    flag: '--codex-home <dir>',
    flagHelp: 'a Codex home (repeatable; default $CODEX_HOME or ~/.codex)',
    homeFolder: '.codex',
    defaultRoots: (environment) => homeFolderRoots('.codex', 'CODEX_HOME', environment),
    readme: {
      where:
        "`$CODEX_HOME/sessions/**/rollout-*.jsonl` and `archived_sessions/` (default `~/.codex`); the TypeScript CLI's `rollout-YYYY-MM-DD-<id>.json` too (listed and shown; not forkable)",
      options: '`--codex-home DIR` (repeatable), `--home DIR` (= `DIR/.codex`)',
    },
    describeRoot: (dir) => `${dir}/sessions and archived_sessions (Codex)`,
  },
  watch: { roots: 'configured', depth: 4, wanted: (parts) => CODEX_WATCHED.has(parts[0]!), fileSuffixes: ['.jsonl', '.json'] },
  names: { file: 'session_index.jsonl', read: readCodexNames },
  inheritedHistory: codexInheritedHistory,
  mirror: { variables: ['CODEX_HOME'], filter: ['+ sessions/***', '+ archived_sessions/***', '+ session_index.jsonl'] },
  resume: {
    interactive: ['codex', 'resume', '{args}', '{id}', '{prompt}'],
    exec: ['codex', 'exec', '{args}', 'resume', '{id}', '{prompt}'],
    homeEnvironment: (root) => ({ CODEX_HOME: root }),
  },
  idShape: { pattern: UUID_EXACT, description: 'a UUID' },
  forkTarget:
    "under today's date, <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<new id>.jsonl\n(of the home the original is in; a name given with --name goes to its session_index.jsonl)",
  // base_instructions {text}, developer_instructions and the like, developer-role messages.
  notConversation: /instructions"\s*:\s*(\{\s*"text"\s*:\s*)?$|"role"\s*:\s*"developer"/,
  isNonConversationLine: isCodexNonConversationLine,
  nonConversationNeedles: CODEX_NON_CONVERSATION_NEEDLES,
  discover: discoverCodex,
  groupFiles: groupCodexFiles,
  rowFolders: codexRowFolders,
  readSummary: readCodexSummary,
  indexSession: indexCodex,
  readSession: readCodexSession,
  streamMessages: streamCodexMessages,
  fork: forkCodex,
  checkpoints: { rewind: "Codex's /undo (ghost commits)", codeAt: codexCodeAt, newId: (now) => uuidv7(now.getTime()), turns: codexTurns },
  rename: codexRename,
  handoff: {
    write: (conversation, write, home) => writeCodexHandoff(conversation, write, requireHome(home, 'codex')),
    where: '<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<new id>.jsonl (forked_from_id names the source)',
    newId: (now) => uuidv7(now.getTime()),
  },
};

export { codexUserPromptText, isCodexNonConversationLine, isInjectedContext } from './prompt.js';
export { readCodexNames } from './names.js';
export { parseRolloutName, type RolloutName } from './discovery.js';
export { codexIndexPath, codexRolloutPath, nameCodexThread } from './fork.js';
