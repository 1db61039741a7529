import type { ForkResult } from '../formats/types.js';
import { AGENTS, type Agent, type Session } from '../model.js';
import { writeClaudeHandoff } from './claude.js';
import { writeClawHandoff } from './claw.js';
import { writeCodexHandoff } from './codex.js';
import { writeCopilotHandoff } from './copilot.js';
import { writeGeminiHandoff } from './gemini.js';
import { writeOpencodeHandoff } from './opencode.js';
import { writeQwenHandoff } from './qwen.js';
import { handoffConversation, type HandoffConversation } from './conversation.js';
import { handoffNote } from './note.js';
import { HandoffError, type HandoffWrite, type HandoffWritten } from './types.js';

export { NO_RESULT_RECORDED } from './conversation.js';
export { handoffNote } from './note.js';
export { HandoffError } from './types.js';

export interface HandoffRequest {
  /** 1-based user turn to cut before: the new session holds turns 1..atTurn-1 and what answered them. */
  readonly atTurn: number;
  readonly to: Agent;
  readonly branchName?: string;
  readonly now?: Date;
}

/** The homes a hand-off writes into, per agent: each agent's first root (claw keeps sessions in the workspace: none). */
export type HandoffHomes = Readonly<Partial<Record<Agent, string>>>;

interface HandoffWriter {
  readonly write: (conversation: HandoffConversation, write: HandoffWrite, homes: HandoffHomes) => Promise<HandoffWritten>;
  /** Where the new session goes and what names its source (`fork --help`). */
  readonly where: string;
}

/** One writer per agent a conversation can be handed to; null for an agent whose format cannot take one (yet). */
const WRITERS: Readonly<Record<Agent, HandoffWriter | null>> = {
  codex: {
    write: (conversation, write, homes) => writeCodexHandoff(conversation, write, homeOf(homes, 'codex')),
    where: '<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<new id>.jsonl (forked_from_id names the source)',
  },
  claude: {
    write: (conversation, write, homes) => writeClaudeHandoff(conversation, write, homeOf(homes, 'claude')),
    where: '<Claude config dir>/projects/<cwd with non-alphanumerics as ->/<new id>.jsonl (the note names the source)',
  },
  claw: {
    write: (conversation, write) => writeClawHandoff(conversation, write),
    where: '<cwd>/.claw/sessions/<workspace hash>/session-<ms>-<n>.jsonl (fork.parent_session_id names the source)',
  },
  copilot: {
    write: (conversation, write, homes) => writeCopilotHandoff(conversation, write, homeOf(homes, 'copilot')),
    where: '<COPILOT_HOME>/session-state/<new id>/events.jsonl and workspace.yaml (a fork note names the source)',
  },
  gemini: {
    write: (conversation, write, homes) => writeGeminiHandoff(conversation, write, homeOf(homes, 'gemini')),
    where: '<gemini dir>/tmp/<project>/chats/session-<minute>-<id8>.jsonl (forkedFrom names the source)',
  },
  qwen: {
    write: (conversation, write, homes) => writeQwenHandoff(conversation, write, homeOf(homes, 'qwen')),
    where: '<qwen dir>/projects/<cwd with non-alphanumerics as ->/chats/<new id>.jsonl (forkedFrom names the source)',
  },
  opencode: {
    write: (conversation, write, homes) => writeOpencodeHandoff(conversation, write, homeOf(homes, 'opencode')),
    where: '<opencode data dir>/opencode.db, which opencode must have made: a new session for the cwd, on the model\n            opencode last used there (metadata.sessionsFork names the source)',
  },
};

/** The agents a conversation can be handed off to. */
export const HANDOFF_TARGETS: readonly Agent[] = AGENTS.filter((agent) => WRITERS[agent] !== null);

/** Where a hand-off to `agent` is written, for help texts; null when it cannot take one. */
export function handoffWhere(agent: Agent): string | null {
  return WRITERS[agent]?.where ?? null;
}

/** The agents a session of `agent` can continue in: its own (a fork) and every hand-off target, in AGENTS order. */
export function continueChoices(agent: Agent): Agent[] {
  return AGENTS.filter((one) => one === agent || HANDOFF_TARGETS.includes(one));
}

function homeOf(homes: HandoffHomes, agent: Agent): string {
  const dir = homes[agent];
  if (dir === undefined) throw new HandoffError(`no ${agent} home to write the new session in`);
  return dir;
}

/**
 * Continue `session` (read whole, never clipped) in another agent: a new native session of `request.to` holding
 * user turns 1..atTurn-1 and their answers, written where that agent looks for the session's cwd, so that its own
 * resume takes it up. The source's files are never touched.
 */
export async function handOff(session: Session, request: HandoffRequest, homes: HandoffHomes): Promise<ForkResult> {
  if (request.to === session.agent) throw new HandoffError(`the session is already a ${session.agent} session: fork it without --to`);
  const writer = WRITERS[request.to];
  if (writer === null) throw new HandoffError(`a conversation cannot be handed off to ${request.to}`);
  if (session.cwd === null) {
    throw new HandoffError(`${session.path}: the session records no working directory, and ${request.to} keeps and resumes sessions by it`);
  }
  const conversation = handoffConversation(session, request.atTurn);
  const source = { agent: session.agent, id: session.id, atTurn: request.atTurn };
  const write: HandoffWrite = {
    source,
    cwd: session.cwd,
    gitBranch: session.gitBranch,
    model: session.model,
    note: handoffNote(source, request.to),
    now: request.now ?? new Date(),
    branchName: request.branchName,
  };
  const written = await writer.write(conversation, write, homes);
  return { agent: request.to, id: written.id, path: written.path, parentId: session.id, keptUserTurns: conversation.keptUserTurns };
}
