import { join } from 'node:path';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import type { JsonObject } from '../../json.js';
import { promptOpening } from '../../model.js';
import type { HandoffConversation, HandoffUserBlock } from '../../handoff/conversation.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import { jsonLines, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';

/** The folder Droid keeps a cwd's sessions in, under `<factory dir>/sessions/`: the cwd with every `/` as `-` (0.225.2). */
export function droidSessionFolder(cwd: string): string {
  return cwd.replace(/[/\\:]/g, '-');
}

function userContent(blocks: readonly HandoffUserBlock[]): JsonObject[] {
  return blocks.map((block) => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.data !== null) return { type: 'image', source: { type: 'base64', media_type: block.mediaType ?? 'image/png', data: block.data } };
    return { type: 'image', source: { type: 'url', url: block.url ?? '' } };
  });
}

/**
 * A Droid session holding the conversation, `<factory dir>/sessions/<cwd folder>/<new id>.jsonl`: a session_start
 * (titled by the name given, else the first prompt, as `droid exec` titles one), the note as Droid's hidden context
 * message (`context-…`, `llm_only`: sent to the model, shown as no turn), then `message` records chained by
 * `parentId`: prompts (text and images), answers (text and `tool_use`) and a user message of `tool_result`s after
 * each step with calls. Droid has no field for a parent of another agent's: the note names the source.
 */
export async function writeDroidHandoff(conversation: HandoffConversation, write: HandoffWrite, factoryDir: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv4();
  const path = join(factoryDir, 'sessions', droidSessionFolder(write.cwd), `${id}.jsonl`);
  const timestamp = write.now.toISOString();
  const ids = new SafeIds('handoff_call_');
  const name = write.branchName?.trim();
  const firstPrompt = conversation.items.find((item) => item.kind === 'user');
  const firstText = firstPrompt?.kind === 'user' ? firstPrompt.blocks.find((block) => block.type === 'text') : undefined;
  const title = name || (firstText?.type === 'text' ? promptOpening(firstText.text) : 'hand-off');
  const records: JsonObject[] = [{ type: 'session_start', id, title, owner: 'unknown', version: 2, cwd: write.cwd, isSessionTitleManuallySet: Boolean(name) }];
  const context = `context-${uuidv4()}`;
  records.push({ type: 'message', id: context, timestamp, message: { role: 'user', content: [{ type: 'text', text: write.note }], visibility: 'llm_only' } });
  let parentId = context;
  const push = (message: JsonObject): void => {
    const messageId = uuidv4();
    records.push({ type: 'message', id: messageId, parentId, timestamp, message });
    parentId = messageId;
  };
  for (const item of conversation.items) {
    if (item.kind === 'user') push({ role: 'user', content: userContent(item.blocks) });
    else if (item.kind === 'assistant') {
      push({
        role: 'assistant',
        content: item.blocks.map((block) =>
          block.type === 'text' ? { type: 'text', text: block.text } : { type: 'tool_use', id: ids.of(block.id), name: safeToolName(block.name), input: argumentsObject(block.input) },
        ),
      });
    } else {
      push({ role: 'user', content: item.results.map((result) => ({ type: 'tool_result', tool_use_id: ids.of(result.toolUseId), is_error: result.isError, content: result.output })) });
    }
  }
  await createFileAtomic(path, jsonLines(records));
  return { id, path };
}
