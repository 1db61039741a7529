/** A chain's lines as normalized messages: user and assistant blocks, images, tool results, usage counted once. */
import { clipJsonStrings, SUMMARY_CLIP_LIMITS, takeClipMarks } from '../../io/clip.js';
import { type RawLine } from '../../io/lines.js';
import { IMAGE_PLACEHOLDER, type Block, type Message, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { isOnlyIdeContext, stripIdeContext } from './rules.js';
import { isRecord, type JsonObject } from '../../json.js';
import { type ClaudeNode, claudeUserText, contentBlocks, messageOf, rawUserText, slashCommandOf, stringOrNull } from './lines.js';

/**
 * A summary shows 200 characters of a prompt and nothing of tool results, thinking or attachments, which are
 * most of a Claude file's bytes: long strings of big lines are clipped before parsing (a third of the parse
 * time of a cold scan). Clipped strings end with a mark (clip.ts), taken out of what a summary shows.
 */
export const SUMMARY_CLIP_FROM_BYTES = 4096;

const USER_LINE = Buffer.from('"type":"user"', 'latin1');
const TOOL_RESULT = Buffer.from('"tool_result"', 'latin1');

/** A `user` line that is not a tool result: it may hold a prompt, which a display read keeps whole (clip.ts). */
export function mayHoldPrompt(bytes: Buffer): boolean {
  return bytes.includes(USER_LINE) && !bytes.includes(TOOL_RESULT);
}

export function clipForSummary(line: RawLine): RawLine {
  return line.bytes.length < SUMMARY_CLIP_FROM_BYTES ? line : { ...line, bytes: clipJsonStrings(line.bytes, SUMMARY_CLIP_LIMITS) };
}

export function userTurnText(value: JsonObject): string {
  const content = messageOf(value)?.content;
  const text = takeClipMarks(claudeUserText(content)).text;
  return text.trim().length > 0 ? text : contentBlocks(content).some((block) => block.type === 'image') ? '[image]' : text;
}

/** A user line that holds IDE context and nothing else (its child line holds the prompt). */
export function isIdeContextLine(node: ClaudeNode): boolean {
  if (node.type !== 'user' || node.value === null || node.userTurn) return false;
  const content = messageOf(node.value)?.content;
  return isOnlyIdeContext(rawUserText(content)) && !contentBlocks(content).some((block) => block.type !== 'text');
}

function toolResultOutput(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return contentBlocks(content)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : block.type === 'image' ? '[image]' : JSON.stringify(block)))
    .join('\n');
}

/** A user line's blocks as shown: IDE context left out, a slash command as typed. */
function userBlocks(content: unknown): Block[] {
  const command = slashCommandOf(rawUserText(content));
  if (command !== null) return [{ type: 'text', text: command }];
  if (typeof content === 'string') {
    const text = stripIdeContext(content);
    return text.length > 0 || content.length === 0 ? [{ type: 'text', text }] : [];
  }
  const blocks: Block[] = [];
  for (const block of contentBlocks(content)) {
    if (block.type === 'text' && typeof block.text === 'string') {
      const text = stripIdeContext(block.text);
      if (text.length > 0 || block.text.length === 0) blocks.push({ type: 'text', text });
    }
    else if (block.type === 'image') blocks.push(claudeImage(block));
    else if (block.type === 'tool_result') {
      blocks.push({
        type: 'tool_result',
        toolUseId: typeof block.tool_use_id === 'string' ? block.tool_use_id : '',
        output: toolResultOutput(block.content),
        isError: block.is_error === true,
      });
    }
  }
  return blocks;
}

/** An image block `{source: {type: base64, media_type, data} | {type: url, url}}`; `[image]` text when it holds neither. */
function claudeImage(block: JsonObject): Block {
  const source = isRecord(block.source) ? block.source : {};
  if (source.type === 'base64' && typeof source.data === 'string') {
    return { type: 'image', mediaType: typeof source.media_type === 'string' ? source.media_type : null, data: source.data, url: null };
  }
  if (source.type === 'url' && typeof source.url === 'string') return { type: 'image', mediaType: null, data: null, url: source.url };
  return { type: 'text', text: IMAGE_PLACEHOLDER };
}

function assistantBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const blocks: Block[] = [];
  for (const block of contentBlocks(content)) {
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') blocks.push({ type: 'text', text: block.text });
        break;
      case 'thinking':
        blocks.push({ type: 'reasoning', summary: typeof block.thinking === 'string' ? block.thinking : '', encrypted: Boolean(block.signature) });
        break;
      case 'redacted_thinking':
        blocks.push({ type: 'reasoning', summary: '', encrypted: true });
        break;
      case 'tool_use':
      case 'server_tool_use':
        blocks.push({
          type: 'tool_use',
          id: typeof block.id === 'string' ? block.id : '',
          name: typeof block.name === 'string' ? block.name : '',
          input: JSON.stringify(block.input ?? {}),
        });
        break;
      default:
        // Server tool results (web search and the like) answer a server_tool_use in the same message.
        if (typeof block.tool_use_id === 'string') {
          blocks.push({ type: 'tool_result', toolUseId: block.tool_use_id, output: toolResultOutput(block.content), isError: false });
        }
    }
  }
  return blocks;
}

/** Normalized messages for a chain: streamed lines of one API message become one message, usage counted once. */
export function claudeMessages(chain: readonly ClaudeNode[], path: string, usageById: ReadonlyMap<string, Usage>): Message[] {
  const messages: Message[] = [];
  const fold = new ClaudeMessageFold(path, usageById, (message) => messages.push(message));
  for (const node of chain) fold.add(node);
  fold.finish();
  return messages;
}

/**
 * Chain nodes to messages, one node at a time (`show` streams them): a message is handed to `emit` once the next
 * one has started (a later line of the same API message, or a compact summary, still changes the last one), the
 * last one at `finish`.
 */
export class ClaudeMessageFold {
  private last: Message | null = null;
  private lastAssistantId: string | null = null;
  private readonly usageGiven = new Set<string>();
  /** The API message id each message handed on was started by (null: not an assistant's), in order. */
  readonly startedBy: (string | null)[] = [];

  constructor(
    private readonly path: string,
    private readonly usageById: ReadonlyMap<string, Usage>,
    private readonly emit: (message: Message) => void,
  ) {}

  /** Fold the next node of the chain; `value` is its parsed line (a streaming read parses it only now). */
  add(node: ClaudeNode, value: JsonObject | null = node.value): void {
    if (value === null || node.sidechain) return;
    const timestamp = isoTimestamp(value.timestamp) ?? undefined;
    const source = { path: this.path, offset: node.offset };
    const message = messageOf(value);
    const previous = this.last;
    let assistantId: string | null = null;
    if (node.type === 'system') {
      if (value.subtype === 'compact_boundary') {
        this.push({ role: 'system', blocks: [{ type: 'compaction', summary: '' }], userTurn: false, timestamp, source });
      }
    } else if (node.type === 'user' && value.isCompactSummary === true) {
      // The summary the model saw after /compact: it belongs to the marker, not to the user.
      const summary = claudeUserText(message?.content);
      const block = previous?.blocks[0];
      if (previous !== null && block?.type === 'compaction' && block.summary === '') {
        this.last = { ...previous, blocks: [{ type: 'compaction', summary }] };
      } else {
        this.push({ role: 'system', blocks: [{ type: 'compaction', summary }], userTurn: false, timestamp, source });
      }
    } else if (node.type === 'user') {
      const blocks = userBlocks(message?.content);
      const role = blocks.some((block) => block.type === 'tool_result') ? 'tool' : 'user';
      // A line that held only IDE context shows nothing: its child line holds the prompt.
      if (blocks.length > 0 || node.userTurn) this.push({ role, blocks, userTurn: node.userTurn, timestamp, source });
    } else if (node.type === 'assistant' && message !== null) {
      assistantId = stringOrNull(message.id);
      const blocks = assistantBlocks(message.content);
      if (assistantId !== null && assistantId === this.lastAssistantId && previous !== null) {
        this.last = { ...previous, blocks: [...previous.blocks, ...blocks] };
      } else {
        const usage = assistantId !== null && !this.usageGiven.has(assistantId) ? this.usageById.get(assistantId) : undefined;
        if (assistantId !== null && this.usageById.size > 0) this.usageGiven.add(assistantId);
        this.push({ role: 'assistant', blocks, userTurn: false, timestamp, ...(usage ? { usage } : {}), source }, assistantId);
      }
    }
    this.lastAssistantId = assistantId;
  }

  finish(): void {
    if (this.last !== null) this.emit(this.last);
    this.last = null;
  }

  private push(message: Message, assistantId: string | null = null): void {
    if (this.last !== null) this.emit(this.last);
    this.last = message;
    this.startedBy.push(assistantId);
  }
}

/**
 * Messages folded while the usage counts were still coming in (a read in file order), with the usage a fold over the
 * whole file gives: each API message's final count, on the first message it started.
 */
export function withFinalUsage(messages: readonly Message[], startedBy: readonly (string | null)[], usageById: ReadonlyMap<string, Usage>): Message[] {
  const given = new Set<string>();
  return messages.map((message, i) => {
    const id = startedBy[i] ?? null;
    const usage = id !== null && !given.has(id) ? usageById.get(id) : undefined;
    if (id !== null && usageById.size > 0) given.add(id);
    if (usage === message.usage) return message;
    const { usage: _old, ...rest } = message;
    return usage === undefined ? rest : { ...rest, usage };
  });
}
