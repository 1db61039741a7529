import { ADAPTER_LIST, ADAPTERS } from '../formats/index.js';
import type { ForkResult } from '../formats/types.js';
import { AGENTS, type Agent, type Session } from '../model.js';
import { handoffConversation } from './conversation.js';
import { handoffNote } from './note.js';
import { HandoffError, type HandoffWrite } from './types.js';

export { NO_RESULT_RECORDED } from './conversation.js';
export { handoffNote } from './note.js';
export { HandoffError, type HandoffSource } from './types.js';

export interface HandoffRequest {
  /** 1-based user turn to cut before: the new session holds turns 1..atTurn-1 and what answered them. */
  readonly atTurn: number;
  readonly to: Agent;
  readonly branchName?: string;
  readonly now?: Date;
  /** The new session's id, made beforehand with the target's `handoff.newId`. */
  readonly id?: string;
}

/** The homes a hand-off writes into, per agent: each agent's first root (claw keeps sessions in the workspace: none). */
export type HandoffHomes = Readonly<Partial<Record<Agent, string>>>;

/** The agents a conversation can be handed off to. */
export const HANDOFF_TARGETS: readonly Agent[] = ADAPTER_LIST.filter((adapter) => adapter.handoff !== undefined).map((adapter) => adapter.agent);

/** Where a hand-off to `agent` is written, for help texts; null when it cannot take one. */
export function handoffWhere(agent: Agent): string | null {
  return ADAPTERS[agent].handoff?.where ?? null;
}

/** The agents a session of `agent` can continue in: its own (a fork) and every hand-off target, in AGENTS order. */
export function continueChoices(agent: Agent): Agent[] {
  return AGENTS.filter((one) => one === agent || HANDOFF_TARGETS.includes(one));
}

/**
 * Continue `session` (read whole, never clipped) in another agent: a new native session of `request.to` holding
 * user turns 1..atTurn-1 and their answers, written where that agent looks for the session's cwd, so that its own
 * resume takes it up. The source's files are never touched.
 */
export async function handOff(session: Session, request: HandoffRequest, homes: HandoffHomes): Promise<ForkResult> {
  if (request.to === session.agent) throw new HandoffError(`the session is already a ${session.agent} session: fork it without --to`);
  const writer = ADAPTERS[request.to].handoff;
  if (writer === undefined) throw new HandoffError(`a conversation cannot be handed off to ${request.to}`);
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
    ...(request.id === undefined ? {} : { id: request.id }),
  };
  const written = await writer.write(conversation, write, homes[request.to]);
  return { agent: request.to, id: written.id, path: written.path, parentId: session.id, keptUserTurns: conversation.keptUserTurns };
}
