import { ForkRangeError, checkForkTurn } from '../errors.js';
import type { Block, Message, Session, TextBlock, ToolResultBlock, ToolUseBlock } from '../model.js';
import { countUserTurns } from '../model.js';
import { truncateBeforeUserTurn } from '../truncate.js';

/** What a hand-off carries, in order: prompts, answers with their tool calls, and each call's result right after. */
export type HandoffItem =
  | { readonly kind: 'user'; readonly blocks: readonly HandoffUserBlock[] }
  /** Text and tool calls of one answer step; every call in it is answered by the `results` item that follows. */
  | { readonly kind: 'assistant'; readonly blocks: readonly (TextBlock | ToolUseBlock)[] }
  /** One result per call of the step before, in the calls' order. */
  | { readonly kind: 'results'; readonly results: readonly ToolResultBlock[] };

export type HandoffUserBlock = TextBlock | Extract<Block, { type: 'image' }>;

/** A source conversation cut before a user turn, in the neutral shape every target writer reads. */
export interface HandoffConversation {
  readonly items: readonly HandoffItem[];
  readonly keptUserTurns: number;
}

/** The output a call gets when the source recorded none (interrupted, or the answer was cut off). */
export const NO_RESULT_RECORDED = '[no result recorded: the source session has no output for this call]';

/**
 * User turns 1..atTurn-1 of `session` and what answered them, ready for another agent: reasoning and thinking are
 * dropped (their signatures are bound to the agent and model that made them), injected context and system lines
 * are the source agent's own and stay behind, compaction markers go (the messages they summarised are kept),
 * every tool call is followed by its result (a call without one gets NO_RESULT_RECORDED; a result without its
 * call is dropped).
 */
export function handoffConversation(session: Pick<Session, 'messages'>, atTurn: number): HandoffConversation {
  checkForkTurn(atTurn, countUserTurns(session.messages));
  const history = truncateBeforeUserTurn(session.messages, atTurn - 1);
  if (history.kind !== 'forked') throw new ForkRangeError(atTurn, 2, countUserTurns(session.messages));
  return { items: pairToolCalls(history.history), keptUserTurns: atTurn - 1 };
}

function pairToolCalls(messages: readonly Message[]): HandoffItem[] {
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) {
    for (const block of message.blocks) if (block.type === 'tool_result' && !results.has(block.toolUseId)) results.set(block.toolUseId, block);
  }
  const items: HandoffItem[] = [];
  const answered = new Set<string>();
  let step: (TextBlock | ToolUseBlock)[] = [];
  const endStep = (): void => {
    if (step.length === 0) return;
    items.push({ kind: 'assistant', blocks: step });
    const calls = step.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    if (calls.length > 0) {
      items.push({
        kind: 'results',
        results: calls.map((call) => {
          answered.add(call.id);
          const result = results.get(call.id);
          return result ? { type: 'tool_result', toolUseId: call.id, output: result.output, isError: result.isError } : { type: 'tool_result', toolUseId: call.id, output: NO_RESULT_RECORDED, isError: true };
        }),
      });
    }
    step = [];
  };
  for (const message of messages) {
    if (message.role === 'user' && message.userTurn) {
      endStep();
      const blocks = message.blocks.filter((block): block is HandoffUserBlock => block.type === 'text' || block.type === 'image');
      items.push({ kind: 'user', blocks: blocks.length > 0 ? blocks : [{ type: 'text', text: '' }] });
    } else if (message.role === 'assistant') {
      for (const block of message.blocks) {
        if (block.type === 'text' && block.text.trim() !== '') step.push(block);
        // A call seen twice (a replayed line) is carried once.
        else if (block.type === 'tool_use' && !answered.has(block.id) && !step.some((b) => b.type === 'tool_use' && b.id === block.id)) step.push(block);
      }
    } else if (message.role === 'tool' || (message.role === 'user' && message.blocks.some((block) => block.type === 'tool_result'))) {
      // Results close the step that made their calls; where they stood is where the step ends.
      if (step.some((block) => block.type === 'tool_use')) endStep();
    }
    // system messages, injected context, notes and compaction markers are the source agent's own.
  }
  endStep();
  return items;
}
