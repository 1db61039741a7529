/** A conversation of another agent written as a pi session (`fork --to pi`). */
import { join } from 'node:path';
import { uuidv7 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import type { JsonObject } from '../../json.js';
import type { HandoffConversation, HandoffUserBlock } from '../../handoff/conversation.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import { jsonLines, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';
import { HANDOFF_CUSTOM_TYPE } from './entries.js';
import { piEntryId, piFileName } from './fork.js';

/** The folder pi keeps a cwd's sessions in under `<agent dir>/sessions/` (`getDefaultSessionDir`, 0.74.2). */
export function piSessionFolder(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

function userContent(blocks: readonly HandoffUserBlock[]): JsonObject[] {
  return blocks.map((block) =>
    block.type === 'text' ? { type: 'text', text: block.text } : block.data !== null ? { type: 'image', data: block.data, mimeType: block.mediaType ?? 'image/png' } : { type: 'text', text: `[image: ${block.url ?? ''}]` },
  );
}

const NO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/**
 * A pi session holding the conversation, `<agent dir>/sessions/--<cwd>--/<time>_<uuid v7>.jsonl`, as pi rebuilds a
 * model's history from it on `--session ID` (`buildSessionContext`): a header, the note as a `custom_message` (pi
 * sends it to the model as a user message and shows it as a notice, never a turn; its `details.source` names the
 * source), then one chain of `message` entries: `user` prompts (text and images), `assistant` answers (text and
 * `toolCall` parts, recorded under the source's model with a provider of their own, so pi treats them as another
 * model's) and one `toolResult` per call. A name is pi's `session_info` record.
 */
export async function writePiHandoff(conversation: HandoffConversation, write: HandoffWrite, agentDir: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv7(write.now.getTime());
  const path = join(agentDir, 'sessions', piSessionFolder(write.cwd), piFileName(write.now, id));
  const timestamp = write.now.toISOString();
  const ms = write.now.getTime();
  const ids = new SafeIds('handoff_call_');
  const names = new Map<string, string>();
  const records: JsonObject[] = [{ type: 'session', version: 3, id, timestamp, cwd: write.cwd }];
  let parentId: string | null = null;
  const push = (fields: JsonObject): void => {
    const entryId = piEntryId();
    records.push({ ...fields, id: entryId, parentId, timestamp });
    parentId = entryId;
  };
  push({ type: 'custom_message', customType: HANDOFF_CUSTOM_TYPE, content: write.note, display: true, details: { source: { agent: write.source.agent, id: write.source.id, atTurn: write.source.atTurn } } });
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      push({ type: 'message', message: { role: 'user', content: userContent(item.blocks), timestamp: ms } });
    } else if (item.kind === 'assistant') {
      const content = item.blocks.map((block) => {
        if (block.type === 'text') return { type: 'text', text: block.text };
        const name = safeToolName(block.name);
        names.set(block.id, name);
        return { type: 'toolCall', id: ids.of(block.id), name, arguments: argumentsObject(block.input) };
      });
      const calls = content.some((part) => part.type === 'toolCall');
      push({
        type: 'message',
        message: { role: 'assistant', content, api: 'sessions-handoff', provider: `sessions-handoff-${write.source.agent}`, model: write.model ?? 'unknown', usage: NO_USAGE, stopReason: calls ? 'toolUse' : 'stop', timestamp: ms },
      });
    } else {
      for (const result of item.results) {
        push({
          type: 'message',
          message: { role: 'toolResult', toolCallId: ids.of(result.toolUseId), toolName: names.get(result.toolUseId) ?? 'tool', content: [{ type: 'text', text: result.output }], isError: result.isError, timestamp: ms },
        });
      }
    }
  }
  const name = write.branchName?.trim();
  if (name) push({ type: 'session_info', name });
  await createFileAtomic(path, jsonLines(records));
  return { id, path };
}
