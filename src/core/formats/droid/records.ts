/**
 * Factory Droid's session records (verified against 0.225.2): a `.jsonl` file whose first line is
 * `session_start {id, title, owner, version, cwd, isSessionTitleManuallySet, parent?, forkedAtMessageId?,
 * callingSessionId?, lastCwd?}`, then `message {id, parentId, timestamp, message: {role, content}}` records with
 * Anthropic-style content blocks (`text`, `image`, `thinking`, `redacted_thinking`, `tool_use`, and `tool_result`
 * in user messages), `agent_turn_outcome {turnId}` after each turn and `compaction_state {summaryText, …}` where the
 * conversation was summarised (the earlier messages stay in the file).
 *
 * Before a turn Droid writes a hidden user message, id `context-<the turn's id>`, `visibility: "llm_only"`: the
 * tools, skills and environment it tells the model about. It is sent to the model, never shown, and no turn.
 */
import { isHandoffNote } from '../../handoff/note-opening.js';
import { isRecord, type JsonObject } from '../../json.js';
import { imageFromUrl, type Block, type ImageBlock, type Message } from '../../model.js';
import { isoTimestamp } from '../../time.js';

/** A parsed line with where it starts in the file. */
export interface DroidRecord {
  readonly value: JsonObject;
  readonly offset: number;
}

/** The session_start line's fields a row reads. */
export interface DroidStart {
  readonly id: string | null;
  readonly title: string | null;
  readonly manualTitle: boolean;
  readonly cwd: string | null;
  /** The session it was forked from (`parent`), or the one that started it (`callingSessionId`: a side question, a sub-agent). */
  readonly parent: string | null;
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export function startOf(value: JsonObject): DroidStart | null {
  if (value.type !== 'session_start') return null;
  return {
    id: stringOrNull(value.id),
    title: stringOrNull(value.title),
    manualTitle: value.isSessionTitleManuallySet === true,
    cwd: stringOrNull(value.cwd),
    parent: stringOrNull(value.parent) ?? stringOrNull(value.callingSessionId),
  };
}

/** The `message` of a message record, or null. */
function messageOf(value: JsonObject): JsonObject | null {
  return value.type === 'message' && isRecord(value.message) ? value.message : null;
}

function contentOf(message: JsonObject): JsonObject[] {
  const content = message.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The hidden context Droid sends the model before a turn (tools, skills, environment): never shown, never a turn. */
export function isHiddenContext(value: JsonObject): boolean {
  const message = messageOf(value);
  if (message === null) return false;
  return (typeof value.id === 'string' && value.id.startsWith('context-')) || message.visibility === 'llm_only';
}

/** What an opening holds when `isDroidNonConversationLine` says true of it. */
export const DROID_NON_CONVERSATION_NEEDLES: readonly string[] = ['"id":"context-'];

/**
 * True for a line that is never conversation text, by its opening: the hidden context messages (tool and skill
 * listings, environment), which Droid writes with an id `context-…` right after the record's type.
 */
export function isDroidNonConversationLine(opening: string): boolean {
  return /^\{"type":"message","id":"context-/.test(opening);
}

function imageBlock(block: JsonObject): ImageBlock | null {
  const source = block.source;
  if (!isRecord(source)) return null;
  if (source.type === 'base64' && typeof source.data === 'string') return { type: 'image', mediaType: stringOrNull(source.media_type), data: source.data, url: null };
  if (source.type === 'url' && typeof source.url === 'string') return imageFromUrl(source.url);
  return null;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .filter(isRecord)
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : part.type === 'image' ? '[image]' : ''))
    .join('\n');
}

/** A user message's prompt as typed: its text blocks, joined. */
export function promptText(value: JsonObject): string {
  const message = messageOf(value);
  if (message === null) return '';
  return contentOf(message)
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

function hasBlock(value: JsonObject, type: string): boolean {
  const message = messageOf(value);
  return message !== null && contentOf(message).some((block) => block.type === type);
}

/** A prompt the user typed: a visible user message with text or an image, and no tool results. */
export function isDroidUserTurn(value: JsonObject): boolean {
  const message = messageOf(value);
  if (message === null || message.role !== 'user' || isHiddenContext(value)) return false;
  if (hasBlock(value, 'tool_result')) return false;
  return promptText(value).trim().length > 0 || hasBlock(value, 'image');
}

/** The model of an assistant message (`modelId`), or null. */
export function modelOf(value: JsonObject): string | null {
  const message = messageOf(value);
  return message !== null && message.role === 'assistant' ? stringOrNull(message.modelId) : null;
}

/** One record as transcript messages: prompts, answers with reasoning and tool calls, tool results, compaction markers. */
export function droidMessages(value: JsonObject): Message[] {
  const timestamp = isoTimestamp(value.timestamp) ?? undefined;
  const stamp = timestamp === undefined ? {} : { timestamp };
  if (value.type === 'compaction_state') {
    return [{ role: 'system', blocks: [{ type: 'compaction', summary: typeof value.summaryText === 'string' ? value.summaryText : '' }], userTurn: false, ...stamp }];
  }
  const message = messageOf(value);
  if (message === null) return [];
  if (isHiddenContext(value)) {
    // The hand-off note sessions writes as hidden context is shown (no turn); Droid's own context is not.
    const text = promptText(value);
    return isHandoffNote(text) ? [{ role: 'system', blocks: [{ type: 'text', text }], userTurn: false, ...stamp }] : [];
  }
  const content = contentOf(message);
  if (message.role === 'user') {
    const out: Message[] = [];
    const results: Block[] = content
      .filter((block) => block.type === 'tool_result')
      .map((block) => ({ type: 'tool_result', toolUseId: typeof block.tool_use_id === 'string' ? block.tool_use_id : '', output: resultText(block.content), isError: block.is_error === true }));
    if (results.length > 0) out.push({ role: 'tool', blocks: results, userTurn: false, ...stamp });
    const said: Block[] = [];
    for (const block of content) {
      if (block.type === 'text' && typeof block.text === 'string') said.push({ type: 'text', text: block.text });
      else if (block.type === 'image') {
        const image = imageBlock(block);
        if (image !== null) said.push(image);
      }
    }
    if (said.length > 0) out.push({ role: 'user', blocks: said, userTurn: isDroidUserTurn(value), ...stamp });
    return out;
  }
  if (message.role !== 'assistant') return [];
  const blocks: Block[] = [];
  // Chat Completions models' reasoning is kept with a placeholder signature naming the field it came in.
  const placeholder = stringOrNull(message.chatCompletionReasoningField);
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') blocks.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking') {
      const signature = stringOrNull(block.signature);
      blocks.push({ type: 'reasoning', summary: typeof block.thinking === 'string' ? block.thinking : '', encrypted: signature !== null && signature !== placeholder });
    } else if (block.type === 'redacted_thinking') blocks.push({ type: 'reasoning', summary: '', encrypted: true });
    else if (block.type === 'tool_use') {
      const input = block.input;
      blocks.push({ type: 'tool_use', id: typeof block.id === 'string' ? block.id : '', name: typeof block.name === 'string' ? block.name : 'tool', input: typeof input === 'string' ? input : JSON.stringify(input ?? {}) });
    }
  }
  return blocks.length > 0 ? [{ role: 'assistant', blocks, userTurn: false, ...stamp }] : [];
}
