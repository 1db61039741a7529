/**
 * GitHub Copilot CLI (verified with 1.0.102): one folder per session, `$COPILOT_HOME/session-state/<uuid>/`
 * (COPILOT_HOME defaults to ~/.copilot), holding
 * - `events.jsonl`: one event per line, `{"type", "data", "id", "timestamp", "parentId"}`, each event's parentId
 *   the id of the one before. `session.start` opens the file (data.sessionId, startTime, selectedModel,
 *   context.cwd/branch); every later run that resumes it appends `session.resume` (context.cwd) and its events, and
 *   `session.shutdown` when it exits. A prompt is `user.message` (data.content as typed; transformedContent is what
 *   the model got: `<current_datetime>…</current_datetime>` first); an answer `assistant.message` (content,
 *   toolRequests[], reasoningText, encryptedContent); a tool's end `tool.execution_complete` (toolCallId, success,
 *   result.content). `/compact` writes `session.compaction_complete` with the summary the model sees afterwards.
 * - `workspace.yaml`: id, cwd, name (Copilot names a session after its first prompt; user_named: true once the user
 *   renamed it), summary_count, fork_count, created_at, updated_at.
 * Copilot's own `/fork` writes a new folder: a new session.start (new sessionId), the parent's events, and a
 * `session.info` event (infoType "fork") saying `Forked from "<name>" (<parent id>) as "<name>" (<id>).`; it also
 * appends a note to the parent and counts the fork in the parent's workspace.yaml. Our fork does the same to the
 * new folder only: the original is never touched. `copilot --resume=<id>` appends to the same events.jsonl.
 */
import { UUID_PATTERN, uuidv4 } from '../../ids.js';
import { homeFolderRoots } from '../roots.js';
import type { FormatAdapter } from '../types.js';
import { isCopilotNonConversationLine } from './events.js';
import { discoverCopilot, EVENTS, eventsPath, groupCopilotFiles, SESSION_FOLDER, SESSION_STATE, WORKSPACE } from './files.js';
import { forkCopilot } from './fork.js';
import { indexCopilot, readCopilotSession, readCopilotSummary } from './read.js';
import { writeCopilotHandoff } from './handoff.js';
import { requireHome } from '../../handoff/types.js';
import { copilotRename } from './rename.js';
import { dirname } from 'node:path';

export const copilotAdapter: FormatAdapter = {
  agent: 'copilot',
  label: 'GitHub Copilot CLI',
  locations: {
    flag: '--copilot-home <dir>',
    flagHelp: 'a GitHub Copilot CLI home (repeatable; default $COPILOT_HOME or ~/.copilot)',
    homeFolder: '.copilot',
    defaultRoots: (environment) => homeFolderRoots('.copilot', 'COPILOT_HOME', environment),
    readme: {
      where: '`$COPILOT_HOME/session-state/<id>/events.jsonl` and `workspace.yaml` (default `~/.copilot`)',
      options: '`--copilot-home DIR` (repeatable), `--home DIR` (= `DIR/.copilot`)',
    },
    describeRoot: (dir) => `${dir}/session-state (GitHub Copilot CLI)`,
  },
  // ~/.copilot/session-state/<uuid>/{events.jsonl,workspace.yaml}: a session's name changes in workspace.yaml.
  watch: {
    roots: 'configured',
    depth: 2,
    wanted: (parts) => parts[0] === SESSION_STATE && (parts.length < 2 || SESSION_FOLDER.test(parts[1]!)),
    fileSuffixes: [EVENTS, WORKSPACE],
  },
  mirror: {
    variables: ['COPILOT_HOME'],
    filter: [`+ ${SESSION_STATE}/`, `+ ${SESSION_STATE}/*/`, `+ ${SESSION_STATE}/*/${EVENTS}`, `+ ${SESSION_STATE}/*/${WORKSPACE}`],
  },
  resume: {
    // `--resume=<id>`: the `=` keeps an id from ever being read as an option. Interactive Copilot takes no prompt
    // beside --resume (its `-i PROMPT` starts a new session).
    interactive: ['copilot', '{args}', '--resume={id}'],
    exec: ['copilot', '{args}', '--resume={id}', '-p', '{prompt}'],
    homeEnvironment: (root) => ({ COPILOT_HOME: root }),
  },
  idShape: { pattern: new RegExp(`^${UUID_PATTERN.source}$`, 'i'), description: 'a UUID' },
  forkTarget: 'a new session folder beside the original: session-state/<new id>/events.jsonl and workspace.yaml',
  discover: discoverCopilot,
  groupFiles: groupCopilotFiles,
  readSummary: readCopilotSummary,
  indexSession: indexCopilot,
  readSession: readCopilotSession,
  fork: forkCopilot,
  isNonConversationLine: isCopilotNonConversationLine,
  sessionPaths: (group) => Promise.resolve([dirname(eventsPath(group))]),
  rename: copilotRename,
  handoff: {
    write: (conversation, write, home) => writeCopilotHandoff(conversation, write, requireHome(home, 'copilot')),
    where: '<COPILOT_HOME>/session-state/<new id>/events.jsonl and workspace.yaml (a fork note names the source)',
    newId: () => uuidv4(),
  },
};

export { discoverCopilot, groupCopilotFiles, parseWorkspaceYaml, type Workspace } from './files.js';
export { isCopilotNonConversationLine } from './events.js';
export { readCopilotSession, readCopilotSummary } from './read.js';
export { copilotSessionFolder, forkCopilot, writeCopilotSession, type CopilotWorkspace } from './fork.js';
