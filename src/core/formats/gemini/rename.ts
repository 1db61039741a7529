/**
 * Naming a session in Gemini CLI's own field: the chat's `summary` (the title `gemini --list-sessions` and its
 * `/resume` browser show), set by a `{"$set":{"summary":NAME}}` record appended to the chat log, the way Gemini CLI
 * records its own changes. An older single-object `.json` chat would have to be rewritten: refused.
 */
import { appendLines } from '../../io/atomic.js';
import type { AgentRename } from '../types.js';

export const geminiRename: AgentRename = {
  where: 'the chat\'s `summary` (the title Gemini CLI lists), set by a `{"$set":{"summary":NAME}}` record appended to the `.jsonl` chat',
  async write(group, _id, name) {
    const path = group.paths.at(-1);
    if (path === undefined || !path.endsWith('.jsonl')) throw new Error(`${path ?? 'session'}: a Gemini CLI chat of the older single-object format cannot be renamed without rewriting it`);
    await appendLines(path, [JSON.stringify({ $set: { summary: name } })]);
  },
};
