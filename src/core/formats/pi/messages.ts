/** A pi session's transcript: the active branch's entries as messages. */
import { isRecord, type JsonObject } from '../../json.js';
import { promptOpening, type Block, type Message, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { contentParts, isPiUserTurn, messageOf, userText, type PiEntry } from './entries.js';

function textOf(content: unknown): string {
  return contentParts(content)
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

function imageBlock(part: JsonObject): Block {
  return { type: 'image', mediaType: typeof part.mimeType === 'string' ? part.mimeType : null, data: typeof part.data === 'string' ? part.data : null, url: null };
}

function userBlocks(content: unknown): Block[] {
  const blocks: Block[] = [];
  for (const part of contentParts(content)) {
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'image') blocks.push(imageBlock(part));
  }
  return blocks;
}

function usageOf(message: JsonObject): Usage | undefined {
  const usage = message.usage;
  if (!isRecord(usage)) return undefined;
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return { input: number(usage.input), output: number(usage.output), cacheRead: number(usage.cacheRead), cacheWrite: number(usage.cacheWrite) };
}

/** An answer's parts: thinking (redacted thinking is opaque), text, tool calls with their arguments as JSON. */
function assistantBlocks(content: unknown): Block[] {
  const blocks: Block[] = [];
  for (const part of contentParts(content)) {
    if (part.type === 'thinking' && typeof part.thinking === 'string') blocks.push({ type: 'reasoning', summary: part.thinking, encrypted: part.redacted === true });
    else if (part.type === 'text' && typeof part.text === 'string' && part.text !== '') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'toolCall') {
      blocks.push({ type: 'tool_use', id: String(part.id ?? ''), name: String(part.name ?? 'tool'), input: JSON.stringify(part.arguments ?? {}) });
    }
  }
  return blocks;
}

/** One entry of the active branch as a message, or null for bookkeeping (model and thinking changes, labels, names). */
function entryMessage(entry: PiEntry): Message | null {
  const value = entry.value;
  const timestamp = isoTimestamp(value.timestamp) ?? undefined;
  const stamp = timestamp === undefined ? {} : { timestamp };
  const message = messageOf(value);
  if (message !== null) {
    switch (message.role) {
      case 'user': {
        const blocks = userBlocks(message.content);
        return blocks.length === 0 ? null : { role: 'user', blocks, userTurn: isPiUserTurn(value), ...stamp };
      }
      case 'assistant': {
        const blocks = assistantBlocks(message.content);
        const usage = usageOf(message);
        const error = message.stopReason === 'error' && typeof message.errorMessage === 'string' ? [{ type: 'text' as const, text: `[error] ${message.errorMessage}` }] : [];
        const all = [...blocks, ...error];
        return all.length === 0 ? null : { role: 'assistant', blocks: all, userTurn: false, ...stamp, ...(usage ? { usage } : {}) };
      }
      case 'toolResult':
        return {
          role: 'tool',
          blocks: [{ type: 'tool_result', toolUseId: String(message.toolCallId ?? ''), output: textOf(message.content), isError: message.isError === true }],
          userTurn: false,
          ...stamp,
        };
      case 'bashExecution': {
        // The user's own `!command` in pi's editor: what ran and what it printed, not a prompt.
        const output = typeof message.output === 'string' ? message.output : '';
        return { role: 'tool', blocks: [{ type: 'text', text: `$ ${String(message.command ?? '')}\n${output}` }], userTurn: false, ...stamp };
      }
      default: {
        // Extension messages (`custom`, older `hookMessage`) go to the model as context: shown, never turns.
        const text = textOf(message.content);
        return text === '' ? null : { role: 'system', blocks: [{ type: 'text', text }], userTurn: false, ...stamp };
      }
    }
  }
  if (value.type === 'compaction') return { role: 'system', blocks: [{ type: 'compaction', summary: typeof value.summary === 'string' ? value.summary : '' }], userTurn: false, ...stamp };
  if (value.type === 'branch_summary' && typeof value.summary === 'string') {
    return { role: 'system', blocks: [{ type: 'text', text: `[summary of another branch] ${value.summary}` }], userTurn: false, ...stamp };
  }
  if (value.type === 'custom_message') {
    const text = textOf(value.content);
    return text === '' ? null : { role: 'system', blocks: [{ type: 'text', text }], userTurn: false, ...stamp };
  }
  return null;
}

/** A branch `/tree` left beside the active one: its prompts, and its newest entry (`fork --leaf` forks up to it). */
interface SideBranch {
  readonly prompts: string[];
  readonly leaf: string;
}

/**
 * The branches `/tree` left beside the active one, by the entry they leave it at: each side branch's prompts (every
 * prompt below the side child, in file order). pi keeps them in the same file; `sessions` shows where they are.
 */
function sideBranches(path: readonly PiEntry[], entries: readonly PiEntry[]): Map<string, SideBranch[]> {
  const onPath = new Set(path.map((entry) => entry.id));
  const children = new Map<string, PiEntry[]>();
  for (const entry of entries) {
    if (entry.parentId === null) continue;
    const list = children.get(entry.parentId);
    if (list) list.push(entry);
    else children.set(entry.parentId, [entry]);
  }
  const below = (root: PiEntry): SideBranch => {
    const prompts: string[] = [];
    const seen = new Set<string>();
    let leaf = root;
    for (const stack = [root]; stack.length > 0; ) {
      const entry = stack.pop()!;
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      if (entry.offset > leaf.offset) leaf = entry;
      if (isPiUserTurn(entry.value)) prompts.push(promptOpening(userText(messageOf(entry.value)!)));
      stack.push(...(children.get(entry.id) ?? []).slice().reverse());
    }
    return { prompts, leaf: leaf.id };
  };
  const out = new Map<string, SideBranch[]>();
  for (const entry of path) {
    const sides = (children.get(entry.id) ?? []).filter((child) => !onPath.has(child.id)).map(below).filter((side) => side.prompts.length > 0);
    if (sides.length > 0) out.set(entry.id, sides);
  }
  return out;
}

/**
 * The transcript of the active branch (root first): prompts, answers with their thinking and tool calls, results,
 * the user's shell runs, extension messages, compaction markers (pi keeps the compacted entries in the file: they are
 * shown, before the marker), branch summaries, and where another branch of the file (`/tree`) leaves this one.
 */
export function piMessages(path: readonly PiEntry[], entries: readonly PiEntry[] = path): Message[] {
  const out: Message[] = [];
  const sides = sideBranches(path, entries);
  for (const entry of path) {
    const message = entryMessage(entry);
    if (message !== null) out.push(message);
    for (const { prompts, leaf } of sides.get(entry.id) ?? []) {
      const count = prompts.length === 1 ? '1 prompt' : `${prompts.length} prompts`;
      out.push({ role: 'system', blocks: [{ type: 'text', text: `[another branch leaves here (pi's /tree): ${count}, from "${prompts[0]}"; its last entry ${leaf} (sessions fork --leaf ${leaf})]` }], userTurn: false });
    }
  }
  return out;
}
