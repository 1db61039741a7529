import { join } from 'node:path';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import type { JsonObject } from '../../json.js';
import type { HandoffConversation } from '../../handoff/conversation.js';
import { promptParts } from '../gemini/handoff.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import { jsonLines, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';

/** The folder Qwen Code keeps a cwd's sessions in, under `<runtime dir>/projects/`: every non-alphanumeric as `-` (`sanitizeCwd`, 0.24.4). */
export function qwenProjectFolder(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * A Qwen Code session holding the conversation, `<runtime dir>/projects/<cwd folder>/chats/<new id>.jsonl`: one
 * `parentUuid` chain of the records Qwen Code rebuilds the model's history from on `--resume`
 * (`buildSessionHistoryFromConversation`): the note first, as a `notification` user record (Qwen Code sends it to
 * the model and shows it as a notice, not a turn; its `forkedFrom.sessionId` names the source), then `user`
 * prompts (text and `inlineData` images), `assistant` records (text and `functionCall` parts) and one
 * `tool_result` record per call (its `functionResponse`, with the call's id).
 */
export async function writeQwenHandoff(conversation: HandoffConversation, write: HandoffWrite, qwenDir: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv4();
  const path = join(qwenDir, 'projects', qwenProjectFolder(write.cwd), 'chats', `${id}.jsonl`);
  const timestamp = write.now.toISOString();
  const ids = new SafeIds('handoff_call_');
  const names = new Map<string, string>();
  const records: JsonObject[] = [];
  let parentUuid: string | null = null;
  const push = (type: string, provenance: string, fields: JsonObject): string => {
    const uuid = uuidv4();
    records.push({ uuid, parentUuid, sessionId: id, timestamp, type, provenance, cwd: write.cwd, ...(write.gitBranch ? { gitBranch: write.gitBranch } : {}), ...fields });
    parentUuid = uuid;
    return uuid;
  };
  push('user', 'system', {
    subtype: 'notification',
    // Qwen Code joins it with the first prompt into one user message: a line of its own.
    message: { role: 'user', parts: [{ text: `${write.note}\n` }] },
    systemPayload: { displayText: write.note },
    forkedFrom: { sessionId: write.source.id },
  });
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      push('user', 'real_user', { message: { role: 'user', parts: promptParts(item.blocks) } });
    } else if (item.kind === 'assistant') {
      const parts = item.blocks.map((block) => {
        if (block.type === 'text') return { text: block.text };
        const name = safeToolName(block.name);
        names.set(block.id, name);
        return { functionCall: { id: ids.of(block.id), name, args: argumentsObject(block.input) } };
      });
      push('assistant', 'assistant_output', { message: { role: 'model', parts } });
    } else {
      for (const result of item.results) {
        const callId = ids.of(result.toolUseId);
        const response = result.isError ? { error: result.output } : { output: result.output };
        push('tool_result', 'tool_result', {
          message: { role: 'user', parts: [{ functionResponse: { id: callId, name: names.get(result.toolUseId) ?? 'tool', response } }] },
          toolCallResult: { callId, status: result.isError ? 'error' : 'success' },
        });
      }
    }
  }
  const name = write.branchName?.trim();
  // Qwen Code's own /rename record: the session shows under this name in Qwen Code and here.
  if (name) push('system', 'system', { subtype: 'custom_title', systemPayload: { customTitle: name, titleSource: 'manual' } });
  await createFileAtomic(path, jsonLines(records));
  return { id, path };
}
