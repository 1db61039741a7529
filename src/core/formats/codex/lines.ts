import { isReviewResult, subagentSourceOf, type SubagentSource } from './rules.js';
import { nonNegativeInteger, stringField } from './fields.js';
import { isInjectedContext } from './prompt.js';
import { isRecord } from '../../json.js';

// Lines

const MODERN_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
  'token_usage_record',
]);

type LineKind = 'header' | 'item' | 'event' | 'turn_context' | 'compacted' | 'world_state' | 'state' | 'other';

const MODERN_KINDS: Readonly<Record<string, LineKind>> = {
  session_meta: 'header',
  response_item: 'item',
  event_msg: 'event',
  turn_context: 'turn_context',
  compacted: 'compacted',
  world_state: 'world_state',
};

/** One parsed line of a rollout, with where it came from (forks copy `bytes` verbatim). */
export interface CodexLine {
  readonly path: string;
  readonly offset: number;
  readonly bytes: Buffer;
  readonly kind: LineKind;
  /** `payload.type` for items and events. */
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly timestamp: string | undefined;
  readonly ordinal: number | undefined;
  /** From another thread's file (a paginated fork's parent). */
  fromBase: boolean;
  /** A real user prompt that is still active (a rollback clears it). */
  userTurn: boolean;
}

export function classify(path: string, offset: number, bytes: Buffer, value: Record<string, unknown>, firstInFile: boolean): CodexLine {
  let kind: LineKind = 'other';
  let payload: Record<string, unknown> = value;
  const type = value.type;
  if (typeof type === 'string' && isRecord(value.payload) && MODERN_TYPES.has(type)) {
    payload = value.payload;
    kind = MODERN_KINDS[type] ?? 'other';
  } else if ('record_type' in value) {
    kind = 'state';
  } else if (firstInFile && typeof value.id === 'string' && 'timestamp' in value && type === undefined) {
    kind = 'header'; // legacy first line {id, timestamp, instructions, git?}
  } else if (typeof type === 'string') {
    kind = 'item'; // legacy bare response item
  }
  const timestamp = typeof value.timestamp === 'string' ? value.timestamp : undefined;
  const ordinal = typeof value.ordinal === 'number' && Number.isInteger(value.ordinal) ? value.ordinal : undefined;
  const line: CodexLine = {
    path,
    offset,
    bytes,
    kind,
    type: typeof payload.type === 'string' ? payload.type : '',
    payload,
    timestamp,
    ordinal,
    fromBase: false,
    userTurn: false,
  };
  line.userTurn = isUserPromptItem(line);
  return line;
}

export function isUserPromptItem(line: CodexLine): boolean {
  if (line.kind !== 'item' || line.type !== 'message' || line.payload.role !== 'user') return false;
  const parts = contentParts(line.payload.content);
  // Codex treats a message as context when any of its text parts is a context fragment; a review's result
  // (`<user_action>`) is Codex's own message too.
  return !parts.some((part) => part.kind === 'text' && (isInjectedContext(part.text) || isReviewResult(part.text)));
}

export interface ContentPart {
  readonly kind: 'text' | 'image';
  readonly text: string;
  /** An image's `image_url` (a `data:` URL for pasted and attached images). */
  readonly url?: string;
}

export function contentParts(content: unknown): ContentPart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: ContentPart[] = [];
  for (const item of content) {
    if (typeof item === 'string') parts.push({ kind: 'text', text: item });
    else if (isRecord(item)) {
      if (typeof item.text === 'string') parts.push({ kind: 'text', text: item.text });
      else if (typeof item.refusal === 'string') parts.push({ kind: 'text', text: item.refusal });
      else if (item.type === 'input_image' || item.type === 'image') parts.push({ kind: 'image', text: '[image]', ...(typeof item.image_url === 'string' ? { url: item.image_url } : {}) });
    }
  }
  return parts;
}

export function messageTextOf(payload: Record<string, unknown>): string {
  const parts = contentParts(payload.content);
  const texts = parts.filter((p) => p.kind === 'text').map((p) => p.text);
  // An image-only prompt is still a prompt; give it something to show.
  return texts.length > 0 ? texts.join('\n') : parts.map((p) => p.text).join(' ');
}

export interface HistoryBase {
  readonly threadId: string;
  readonly endOrdinalExclusive: number | undefined;
  readonly endByteOffset: number | undefined;
}

export interface Header {
  readonly line: CodexLine;
  readonly id: string | null;
  readonly timestamp: string | undefined;
  readonly cwd: string | null;
  readonly forkedFromId: string | null;
  readonly historyBase: HistoryBase | null;
  readonly gitBranch: string | null;
  readonly subagent: SubagentSource | null;
}

export function headerOf(line: CodexLine): Header {
  const p = line.payload;
  const base = isRecord(p.history_base) ? p.history_base : null;
  const baseThread = base ? stringField(base, 'thread_id') : null;
  const git = isRecord(p.git) ? p.git : null;
  return {
    line,
    id: stringField(p, 'id'),
    timestamp: stringField(p, 'timestamp') ?? line.timestamp,
    cwd: stringField(p, 'cwd'),
    forkedFromId: stringField(p, 'forked_from_id') ?? (isRecord(p.handed_off_from) ? stringField(p.handed_off_from, 'id') : null),
    historyBase:
      base && baseThread
        ? {
            threadId: baseThread,
            endOrdinalExclusive: nonNegativeInteger(base.end_ordinal_exclusive),
            endByteOffset: nonNegativeInteger(base.end_byte_offset),
          }
        : null,
    gitBranch: git ? stringField(git, 'branch') : null,
    subagent: subagentSourceOf(p),
  };
}
