import { imageFromUrl, promptOpening, type Block, type Message, type Role, type Usage } from '../../model.js';
import { REVIEW_MODE_EVENTS, codexUserPromptText, isImageTag, promptTextOf, reviewModeChange } from './rules.js';
import { isoOrUndefined, nonNegativeInteger, numberField, stringField, timeOf } from './fields.js';
import { type CodexLine, type ContentPart, contentParts, messageTextOf } from './lines.js';
import { isRecord } from '../../json.js';

// Digest: messages, turns and metadata from collected lines

interface Turn {
  /** The line, when messages are kept (a rollback unmarks it); a row-only fold keeps no lines. */
  readonly line?: CodexLine;
  readonly messageIndex: number;
  /** What the prompt shows (promptTextOf): null when it holds neither text nor an image; in a row-only fold, already its opening (`opened`). */
  readonly text: string | null;
  readonly opened?: boolean;
}

/** The opening a row shows of a turn (null: the prompt holds neither text nor an image). */
export function turnOpening(turn: Turn): string | null {
  return turn.text === null || turn.opened === true ? turn.text : promptOpening(turn.text);
}

/**
 * Messages, turns and metadata from a conversation's lines, one line at a time (`add`). A row-only digest
 * (the index's fold) keeps no messages and only the openings of prompts.
 */
export class CodexDigest {
  readonly messages: Message[] = [];
  readonly turns: Turn[] = [];
  assistantSeen = false;
  usage: Usage | null = null;
  model: string | null = null;
  turnContextCwd: string | null = null;
  environmentCwd: string | null = null;
  threadName: string | null = null;
  /** Newest timestamp among the group's own lines (not a parent's). */
  newestOwn: number | null = null;
  /** Messages a row-only digest did not keep (turns' message indexes still count them, for rollbacks). */
  dropped = 0;

  /** Inside a review (between `entered_review_mode` and its end): what Codex writes there is not the user's. */
  inReview = false;

  constructor(
    public id: string | null,
    readonly rowOnly = false,
  ) {}

  private push(line: CodexLine, role: Role, blocks: Block[], userTurn = false): void {
    if (this.rowOnly) {
      this.dropped++;
      return;
    }
    const timestamp = isoOrUndefined(line.timestamp);
    this.messages.push({
      role,
      blocks,
      userTurn,
      ...(timestamp === undefined ? {} : { timestamp }),
      source: { path: line.path, offset: line.offset },
    });
  }

  private get messageCount(): number {
    return this.messages.length + this.dropped;
  }

  add(line: CodexLine): void {
    if (!line.fromBase && line.kind !== 'header') {
      const time = timeOf(line.timestamp);
      if (time !== undefined && (this.newestOwn === null || time > this.newestOwn)) this.newestOwn = time;
    }
    const p = line.payload;
    switch (line.kind) {
      case 'turn_context': {
        this.model = stringField(p, 'model') ?? this.model;
        this.turnContextCwd ??= stringField(p, 'cwd');
        break;
      }
      case 'compacted': {
        this.push(line, 'system', [{ type: 'compaction', summary: typeof p.message === 'string' ? p.message : '' }]);
        break;
      }
      case 'event': {
        const review = reviewModeChange(line.type);
        if (review !== null) this.inReview = review === 'enter';
        if (line.type === 'token_count') {
          const info = isRecord(p.info) ? p.info : null;
          const total = info && isRecord(info.total_token_usage) ? info.total_token_usage : null;
          if (total) {
            this.usage = {
              input: numberField(total, 'input_tokens'),
              output: numberField(total, 'output_tokens'),
              cacheRead: numberField(total, 'cached_input_tokens'),
              cacheWrite: numberField(total, 'cache_write_input_tokens'),
            };
          }
        } else if (line.type === 'thread_rolled_back') {
          const n = nonNegativeInteger(p.num_turns) ?? 0;
          const turns = this.turns;
          if (n > 0 && turns.length > 0) {
            const keep = Math.max(0, turns.length - n);
            const firstDropped = turns[keep]!;
            for (const turn of turns.slice(keep)) if (turn.line) turn.line.userTurn = false;
            turns.length = keep;
            if (this.rowOnly) this.dropped = firstDropped.messageIndex;
            else this.messages.length = firstDropped.messageIndex;
          }
        } else if (line.type === 'thread_name_updated' && !line.fromBase) {
          // Lines copied from a parent (older forks) carry the parent's name: not this thread's.
          const thread = stringField(p, 'thread_id');
          if (thread === null || thread === this.id) this.threadName = stringField(p, 'thread_name') ?? stringField(p, 'name') ?? this.threadName;
        }
        break;
      }
      case 'item': {
        // What Codex writes in review mode (the review's prompt, its findings) is not the user's.
        if (this.inReview && line.userTurn) line.userTurn = false;
        const item = itemMessage(line);
        if (!item) break;
        if (item.role === 'assistant') this.assistantSeen = true;
        if (line.userTurn) {
          const text = promptTextOf(contentParts(p.content));
          this.turns.push(
            this.rowOnly
              ? { messageIndex: this.messageCount, text: text === null ? null : promptOpening(text), opened: true }
              : { line, messageIndex: this.messageCount, text },
          );
        } else if (line.type === 'message' && p.role === 'user' && this.environmentCwd === null) {
          const match = /<cwd>([\s\S]*?)<\/cwd>/.exec(messageTextOf(p));
          if (match) this.environmentCwd = match[1]!.trim();
        }
        this.push(line, item.role, item.blocks, line.userTurn);
        break;
      }
      default:
        break;
    }
  }
}

export type Digest = CodexDigest;

export function digest(lines: readonly CodexLine[], id: string | null): Digest {
  const d = new CodexDigest(id);
  for (const line of lines) d.add(line);
  return d;
}

/** Event types whose payload `digest` reads. */
export const DIGESTED_EVENTS: readonly string[] = ['token_count', 'thread_rolled_back', 'thread_name_updated', ...REVIEW_MODE_EVENTS];
const DIGESTED = new Set(DIGESTED_EVENTS);

/** False for lines whose payload `digest` never looks at (a display read drops it: per-item events repeat tool outputs). */
export function digestReads(line: CodexLine): boolean {
  switch (line.kind) {
    case 'header':
    case 'item':
    case 'turn_context':
    case 'compacted':
      return true;
    case 'event':
      return DIGESTED.has(line.type);
    default:
      return false;
  }
}

/** A response item as a normalized message; null for items with nothing to show. */
function itemMessage(line: CodexLine): { role: Role; blocks: Block[] } | null {
  const p = line.payload;
  const type = line.type;
  if (type === 'message') {
    const role = p.role;
    const parts = contentParts(p.content);
    const blocks: Block[] = parts.map((part) => ({ type: 'text', text: part.text }));
    if (role === 'assistant') return { role: 'assistant', blocks };
    if (role === 'user') return line.userTurn ? { role: 'user', blocks: promptBlocks(parts) } : { role: 'system', blocks };
    return { role: 'system', blocks }; // developer / system instructions
  }
  if (type === 'reasoning') {
    const summary = textsOf(p.summary);
    const readable = summary.length > 0 ? summary : textsOf(p.content);
    const encrypted = typeof p.encrypted_content === 'string' && p.encrypted_content.length > 0;
    return { role: 'assistant', blocks: [{ type: 'reasoning', summary: readable.join('\n\n'), encrypted }] };
  }
  if (type === 'compaction' || type === 'compaction_summary') {
    return { role: 'system', blocks: [{ type: 'compaction', summary: typeof p.summary === 'string' ? p.summary : '' }] };
  }
  if (type.endsWith('_output')) {
    const { output, isError } = toolOutput(p.output);
    return { role: 'tool', blocks: [{ type: 'tool_result', toolUseId: callId(p), output, isError }] };
  }
  if (type.endsWith('_call')) {
    return { role: 'assistant', blocks: [{ type: 'tool_use', id: callId(p), name: toolName(type, p), input: toolInput(p) }] };
  }
  return null;
}

/** A prompt as the user typed it: the request of an IDE-context prompt, images without the tags around them. */
function promptBlocks(parts: readonly ContentPart[]): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.kind === 'image') blocks.push(part.url !== undefined ? imageFromUrl(part.url) : { type: 'text', text: part.text });
    else if (!isImageTag(part.text)) blocks.push({ type: 'text', text: codexUserPromptText(part.text) });
  }
  return blocks;
}

function callId(p: Record<string, unknown>): string {
  return stringField(p, 'call_id') ?? stringField(p, 'id') ?? '';
}

/** `function_call` / `custom_tool_call` carry a name; `local_shell_call`, `web_search_call`, … are named by type. */
function toolName(type: string, p: Record<string, unknown>): string {
  const name = stringField(p, 'name');
  if (!name) return type.slice(0, -'_call'.length);
  const namespace = stringField(p, 'namespace');
  return namespace ? `${namespace}.${name}` : name;
}

function toolInput(p: Record<string, unknown>): string {
  if (typeof p.arguments === 'string') return p.arguments;
  if (typeof p.input === 'string') return p.input;
  if (p.arguments !== undefined) return JSON.stringify(p.arguments);
  if (p.action !== undefined) return JSON.stringify(p.action);
  // Other call kinds: show what the item carries, minus bookkeeping.
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(p)) if (!['type', 'id', 'call_id', 'status'].includes(key)) rest[key] = value;
  return JSON.stringify(rest);
}

function toolOutput(output: unknown): { output: string; isError: boolean } {
  if (typeof output === 'string') {
    // Older shell outputs are JSON strings `{"output": …, "metadata": {"exit_code": n}}`.
    if (output.startsWith('{"output"')) {
      try {
        const parsed: unknown = JSON.parse(output);
        if (isRecord(parsed) && isRecord(parsed.metadata) && typeof parsed.metadata.exit_code === 'number') {
          return { output, isError: parsed.metadata.exit_code !== 0 };
        }
      } catch {
        // not JSON after all: plain text
      }
    }
    return { output, isError: false };
  }
  if (Array.isArray(output)) return { output: textsOf(output).join('\n'), isError: false };
  if (isRecord(output)) {
    const isError = output.success === false;
    if (typeof output.content === 'string') return { output: output.content, isError };
    if (Array.isArray(output.content)) return { output: textsOf(output.content).join('\n'), isError };
    return { output: JSON.stringify(output), isError };
  }
  return { output: output === undefined || output === null ? '' : JSON.stringify(output), isError: false };
}

function textsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const texts: string[] = [];
  for (const item of value) {
    if (typeof item === 'string') texts.push(item);
    else if (isRecord(item) && typeof item.text === 'string') texts.push(item.text);
  }
  return texts;
}
