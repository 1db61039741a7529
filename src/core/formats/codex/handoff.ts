import { codexIndexPath, codexRolloutPath, nameCodexThread } from './fork.js';
import { checkAppendable, createFileAtomic } from '../../io/atomic.js';
import { UUID_EXACT, uuidv7 } from '../../ids.js';
import type { ImageBlock } from '../../model.js';
import type { HandoffConversation, HandoffUserBlock } from '../../handoff/conversation.js';
import { safeToolName } from '../../handoff/ids.js';
import { jsonLines, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';
import { isRecord } from '../../json.js';

/**
 * A Codex rollout holding the conversation, under today's date in `codexHome`: a `session_meta` naming the source
 * (`forked_from_id` when its id is a UUID, else `handed_off_from`, see below), the note as a developer message, then the response items Codex replays to the
 * model on resume (user and assistant messages, `function_call` / `function_call_output` with their `call_id`s)
 * and the `user_message` / `agent_message` events its own screen shows a resumed session from.
 */
export async function writeCodexHandoff(conversation: HandoffConversation, write: HandoffWrite, codexHome: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv7(write.now.getTime());
  const path = codexRolloutPath(codexHome, id, write.now);
  const name = write.branchName?.trim();
  if (name) await checkAppendable(codexIndexPath(codexHome), { mayCreate: true });
  const timestamp = write.now.toISOString();
  const lines: unknown[] = [];
  const push = (type: string, payload: Record<string, unknown>): void => {
    lines.push({ timestamp, type, payload });
  };
  push('session_meta', {
    id,
    timestamp,
    cwd: write.cwd,
    originator: 'sessions',
    cli_version: '0.0.0',
    source: 'cli',
    ...sourceFields(write.source.agent, write.source.id),
    ...(write.gitBranch ? { git: { branch: write.gitBranch } } : {}),
  });
  push('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: write.note }] });
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      push('response_item', { type: 'message', role: 'user', content: item.blocks.map(userContent) });
      const text = item.blocks.filter((block) => block.type === 'text').map((block) => block.text).join('\n');
      const images = item.blocks.filter((block): block is ImageBlock => block.type === 'image').map(imageUrl);
      push('event_msg', { type: 'user_message', message: text, ...(images.length > 0 ? { images } : {}) });
    } else if (item.kind === 'assistant') {
      for (const block of item.blocks) {
        if (block.type === 'text') {
          push('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: block.text }] });
          push('event_msg', { type: 'agent_message', message: block.text });
        } else {
          push('response_item', { type: 'function_call', name: safeToolName(block.name), arguments: codexArguments(block.input), call_id: block.id });
        }
      }
    } else {
      for (const result of item.results) push('response_item', { type: 'function_call_output', call_id: result.toolUseId, output: result.output });
    }
  }
  await createFileAtomic(path, jsonLines(lines));
  if (name) await nameCodexThread(codexHome, id, name, write.now);
  return { id, path };
}

/**
 * Codex parses `forked_from_id` as a thread id (a UUID) and refuses the whole rollout when it is not one (opencode's
 * `ses_…`, claw's `session-…`): such a source goes in `handed_off_from`, a field Codex ignores and this reader reads.
 */
function sourceFields(agent: string, id: string): Record<string, unknown> {
  return UUID_EXACT.test(id) ? { forked_from_id: id } : { handed_off_from: { agent, id } };
}

function userContent(block: HandoffUserBlock): Record<string, unknown> {
  return block.type === 'text' ? { type: 'input_text', text: block.text } : { type: 'input_image', image_url: imageUrl(block) };
}

/** An image as Codex records it: a `data:` URL for inline bytes, else the URL. */
function imageUrl(block: ImageBlock): string {
  if (block.data !== null) return `data:${block.mediaType ?? 'image/png'};base64,${block.data}`;
  return block.url ?? '';
}

/** Function-call arguments are a JSON string; a freeform tool's input is wrapped as `{"input": …}`. */
function codexArguments(input: string): string {
  try {
    const value: unknown = JSON.parse(input);
    if (isRecord(value)) return input;
  } catch {
    // not JSON
  }
  return JSON.stringify(input === '' ? {} : { input });
}
