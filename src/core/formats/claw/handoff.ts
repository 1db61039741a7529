import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from '../../errors.js';
import { clawMessageJson } from './append.js';
import { clawWorkspaceFingerprint } from './discovery.js';
import { nextSessionId } from './fork.js';
import { createFileAtomic } from '../../io/atomic.js';
import type { TextBlock } from '../../model.js';
import type { HandoffConversation } from '../../handoff/conversation.js';
import { HandoffError, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';

/** claw's blocks have no image: an image becomes this text, so the model knows one was there. */
export const CLAW_IMAGE_TEXT = '[image: not carried over, claw sessions have no image block]';

/**
 * A claw JSONL session in the workspace's own folder, `<cwd>/.claw/sessions/<workspace fingerprint>/`: a
 * `session_meta` whose `fork.parent_session_id` names the source, the note as a `system` message, then
 * `prompt_history` + `user` records, `assistant` messages (text, `tool_use`) and `tool` messages holding the
 * results with the tool's name, keys in claw's alphabetical order. No `model`: the source's model is another
 * vendor's, and claw would ask for it on resume.
 */
export async function writeClawHandoff(conversation: HandoffConversation, write: HandoffWrite): Promise<HandoffWritten> {
  // The workspace holds claw's sessions: writing into one that is gone would make its folders again.
  if (!(await isDirectory(write.cwd))) throw new HandoffError(`${write.cwd} does not exist: claw keeps a session in its workspace, and resumes it there`);
  const nowMs = write.now.getTime();
  const dir = join(write.cwd, '.claw', 'sessions', clawWorkspaceFingerprint(write.cwd));
  const records: string[] = [];
  const message = (value: Parameters<typeof clawMessageJson>[0]): string => JSON.stringify({ message: clawMessageJson(value, toolNames), type: 'message' });
  const toolNames = new Map<string, string>();
  for (const item of conversation.items) {
    if (item.kind === 'assistant') for (const block of item.blocks) if (block.type === 'tool_use') toolNames.set(block.id, block.name);
  }
  records.push(message({ role: 'system', blocks: [{ type: 'text', text: write.note }] }));
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      const blocks: TextBlock[] = item.blocks.map((block) => (block.type === 'text' ? block : { type: 'text', text: CLAW_IMAGE_TEXT }));
      records.push(JSON.stringify({ text: blocks.map((block) => block.text).join('\n'), timestamp_ms: nowMs, type: 'prompt_history' }));
      records.push(message({ role: 'user', blocks }));
    } else if (item.kind === 'assistant') {
      records.push(message({ role: 'assistant', blocks: item.blocks }));
    } else {
      records.push(message({ role: 'tool', blocks: item.results }));
    }
  }
  const branchName = write.branchName?.trim() || null;
  for (;;) {
    const id = write.id ?? nextSessionId(nowMs);
    const meta = JSON.stringify({
      created_at_ms: nowMs,
      fork: branchName === null ? { parent_session_id: write.source.id } : { branch_name: branchName, parent_session_id: write.source.id },
      session_id: id,
      type: 'session_meta',
      updated_at_ms: nowMs,
      version: 1,
      workspace_root: write.cwd,
    });
    const path = join(dir, `${id}.jsonl`);
    try {
      await createFileAtomic(path, [meta, ...records].map((line) => Buffer.from(`${line}\n`, 'utf8')));
    } catch (error) {
      // Another session took this name: take the next counter (an id given beforehand has none to take).
      if (errorCode(error) === 'EEXIST' && write.id === undefined) continue;
      throw error;
    }
    return { id, path };
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
