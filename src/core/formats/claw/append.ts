/** Resume in place: messages appended to a JSONL session as claw writes them. */
import type { InitialHistory } from '../../history.js';
import { appendLines } from '../../io/atomic.js';
import { jsonObjects, newLineStats, readLines } from '../../io/lines.js';
import { type Block, type ReasoningBlock, type Role, type ToolResultBlock, type Usage } from '../../model.js';
import type { AdapterContext, SessionFileGroup } from '../types.js';
import { type JsonObject } from '../../json.js';
import { readClawSession } from './read.js';
import { recordKind } from './records.js';

// ---------------------------------------------------------------------------------------------------------
// Resume in place

/** A message to append: normalized, optionally with the claw fields the normalized model does not carry. */
export interface ClawAppendMessage {
  readonly role: Role;
  readonly blocks: readonly (Block | (ToolResultBlock & { readonly toolName?: string }) | (ReasoningBlock & { readonly signature?: string }))[];
  readonly usage?: Usage;
}

/**
 * Append one `{"message":{…},"type":"message"}` line per message to an existing JSONL session (claw's own
 * append-in-place). Never creates or rewrites a file; refuses a legacy single-object file (a line appended to it
 * would make it unreadable).
 */
export async function appendClawMessages(path: string, messages: readonly ClawAppendMessage[]): Promise<void> {
  await assertJsonlSession(path);
  if (messages.length === 0) return;
  const toolNames = new Map<string, string>();
  for (const message of messages) for (const block of message.blocks) if (block.type === 'tool_use') toolNames.set(block.id, block.name);
  await appendLines(
    path,
    messages.map((message) => JSON.stringify({ message: clawMessageJson(message, toolNames), type: 'message' })),
  );
}

async function assertJsonlSession(path: string): Promise<void> {
  let first: JsonObject | null = null;
  for await (const line of readLines(path)) {
    if (line.bytes.toString('utf8').trim() === '') continue;
    first = [...jsonObjects([line], newLineStats())][0]?.value ?? null;
    break;
  }
  const kind = first ? recordKind(first) : 'unknown';
  if (first === null || kind === 'legacy' || kind === 'unknown') {
    throw new Error(`${path} is not a claw JSONL session (legacy or unknown content): fork it to get a JSONL copy to resume`);
  }
}

/** A message as claw serialises it: keys in alphabetical order (claw renders BTreeMaps). */
export function clawMessageJson(message: ClawAppendMessage, toolNames: ReadonlyMap<string, string> = new Map()): JsonObject {
  const usage = message.usage;
  return {
    blocks: message.blocks.map((block) => clawBlockJson(block, toolNames)),
    role: message.role,
    ...(usage
      ? {
          usage: {
            cache_creation_input_tokens: usage.cacheWrite,
            cache_read_input_tokens: usage.cacheRead,
            input_tokens: usage.input,
            output_tokens: usage.output,
          },
        }
      : {}),
  };
}

function clawBlockJson(block: ClawAppendMessage['blocks'][number], toolNames: ReadonlyMap<string, string>): JsonObject {
  switch (block.type) {
    case 'text':
      return { text: block.text, type: 'text' };
    case 'reasoning': {
      const signature = 'signature' in block ? block.signature : undefined;
      return signature === undefined ? { thinking: block.summary, type: 'thinking' } : { signature, thinking: block.summary, type: 'thinking' };
    }
    case 'tool_use':
      return { id: block.id, input: block.input, name: block.name, type: 'tool_use' };
    case 'tool_result': {
      // claw requires tool_name: take it from the block, else from the tool_use it answers.
      const toolName = ('toolName' in block ? block.toolName : undefined) ?? toolNames.get(block.toolUseId) ?? '';
      return { is_error: block.isError, output: block.output, tool_name: toolName, tool_use_id: block.toolUseId, type: 'tool_result' };
    }
    case 'compaction':
      throw new TypeError('a compaction marker is not a message block claw can store');
    case 'image':
      throw new TypeError('claw sessions have no image block');
  }
}

/** The Resumed history for a claw session: claw appends to the live file in place, so it names that file. */
export async function resumeClawInPlace(group: SessionFileGroup, context?: AdapterContext): Promise<InitialHistory> {
  const session = await readClawSession(group, context);
  return { kind: 'resumed', id: session.id, history: session.messages, path: session.path };
}
