/** events.jsonl folded: prompts, answers, tool calls and results, compaction, forks, usage. */
import { clipRawLine, type ClipLimits } from '../../io/clip.js';
import { foldLines, jsonObjects, newLineStats, parseJsonLine, type LineStats, type RawLine } from '../../io/lines.js';
import { addUsage, promptOpening, type Block, type Message, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { isRecord, type JsonObject } from '../../json.js';

// ---------------------------------------------------------------------------------------------------------
// Events

/** The event types that make the transcript or the row; every other line is skipped by its opening bytes. */
const READ_TYPES = new Set([
  'session.start',
  'session.resume',
  'session.context_changed',
  'session.model_change',
  'session.info',
  'session.compaction_complete',
  'session.usage_record',
  'user.message',
  'assistant.message',
  'tool.execution_complete',
]);

/** Events that hold conversation text (a full-text search matches only in these). */
const CONVERSATION_TYPES = new Set(['user.message', 'assistant.message', 'tool.execution_start', 'tool.execution_complete', 'session.compaction_complete']);

const TYPE_OPENING = /^\{"type":"([a-z_.]+)"/;

export function typeOf(bytes: Buffer): string | null {
  return TYPE_OPENING.exec(bytes.toString('latin1', 0, Math.min(bytes.length, 64)))?.[1] ?? null;
}

/** True for a line that is never conversation text: a search does not count a match in it (see FormatAdapter). */
export function isCopilotNonConversationLine(opening: string): boolean {
  const type = TYPE_OPENING.exec(opening)?.[1];
  if (type !== undefined) return !CONVERSATION_TYPES.has(type);
  // workspace.yaml: only the session's name is the user's words.
  return !opening.startsWith('{') && !opening.startsWith('name:');
}

/**
 * An event of a sub-agent the main agent ran with its `task` tool (Copilot CLI 1.0.102): it carries the sub-agent's
 * `agentId`, and its turn's events the `parentToolCallId` of that call.
 */
function isSubagentEvent(event: JsonObject, data: JsonObject): boolean {
  return typeof event.agentId === 'string' || typeof data.parentToolCallId === 'string';
}

/** What a sub-agent's event must not give the main conversation: its messages, tool results, model, compaction. */
const SUBAGENT_OWN = new Set(['user.message', 'assistant.message', 'tool.execution_complete', 'session.compaction_complete', 'session.model_change']);

/** A `user.message` the user typed: not one a skill, another agent or autopilot's continuation put there. */
export function isTypedPrompt(data: JsonObject): boolean {
  if (data.isAutopilotContinuation === true) return false;
  const source = data.source;
  return source === undefined || source === null || source === 'user';
}

const FORKED_FROM = /^Forked from .* \(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\) as .* \(([0-9a-f-]{36})\)\.$/is;

/** What the fold keeps: everything the row needs (plain data). */
export interface Fold {
  sessionId: string | null;
  startTime: string | null;
  lastTime: string | null;
  cwd: string | null;
  branch: string | null;
  model: string | null;
  /** [parent, child] of every "Forked from" note, in file order. */
  forkNotes: [string, string][];
  prompts: string[];
  usage: Usage | null;
}

export function newFold(): Fold {
  return { sessionId: null, startTime: null, lastTime: null, cwd: null, branch: null, model: null, forkNotes: [], prompts: [], usage: null };
}

function foldEvent(fold: Fold, type: string, event: JsonObject, messages: Message[] | null, source?: Message['source']): void {
  const data = isRecord(event.data) ? event.data : {};
  const time = isoTimestamp(event.timestamp);
  if (time !== null && (fold.lastTime === null || time > fold.lastTime)) fold.lastTime = time;
  // A sub-agent's events (its `task` run) are its own: Copilot sends the main model only the task's result.
  if (isSubagentEvent(event, data) && SUBAGENT_OWN.has(type)) return;
  switch (type) {
    case 'session.start': {
      if (fold.sessionId === null && typeof data.sessionId === 'string') fold.sessionId = data.sessionId;
      fold.startTime ??= isoTimestamp(data.startTime) ?? time;
      takeContext(fold, data.context, true);
      if (typeof data.selectedModel === 'string') fold.model = data.selectedModel;
      return;
    }
    case 'session.resume':
    case 'session.context_changed':
      // A resume records where it ran; the session's own folder is workspace.yaml's cwd (read after the fold).
      takeContext(fold, type === 'session.resume' ? data.context : data, false);
      if (typeof data.selectedModel === 'string') fold.model = data.selectedModel;
      return;
    case 'session.model_change':
      if (typeof data.newModel === 'string') fold.model = data.newModel;
      return;
    case 'session.info': {
      if (data.infoType !== 'fork' || typeof data.message !== 'string') return;
      const match = FORKED_FROM.exec(data.message);
      // "Forked from … (parent) as … (child)"; a fork of a fork holds its parent's note too: the one naming this
      // session wins (see summarize). The parent's own note ("Forked this session into …") names a child: skipped.
      if (match) fold.forkNotes.push([match[1]!.toLowerCase(), match[2]!.toLowerCase()]);
      return;
    }
    case 'session.usage_record': {
      const usage = isRecord(data.usage) ? data.usage : null;
      if (usage === null) return;
      fold.usage = addUsage(fold.usage, {
        input: numberOf(usage.inputTokens),
        output: numberOf(usage.outputTokens),
        cacheRead: numberOf(usage.cacheReadTokens),
        cacheWrite: numberOf(usage.cacheWriteTokens),
      });
      return;
    }
    case 'user.message': {
      const text = typeof data.content === 'string' ? data.content : '';
      const userTurn = isTypedPrompt(data);
      if (userTurn) fold.prompts.push(promptOpening(text));
      messages?.push({ role: 'user', blocks: [{ type: 'text', text }], userTurn, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    case 'assistant.message': {
      if (typeof data.model === 'string') fold.model = data.model;
      if (messages === null) return;
      const blocks: Block[] = [];
      const reasoning = typeof data.reasoningText === 'string' ? data.reasoningText : '';
      const encrypted = typeof data.encryptedContent === 'string' && data.encryptedContent !== '';
      if (reasoning !== '' || encrypted) blocks.push({ type: 'reasoning', summary: reasoning, encrypted });
      if (typeof data.content === 'string' && data.content !== '') blocks.push({ type: 'text', text: data.content });
      for (const request of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
        if (!isRecord(request)) continue;
        const input = typeof request.arguments === 'string' ? request.arguments : JSON.stringify(request.arguments ?? {});
        blocks.push({ type: 'tool_use', id: String(request.toolCallId ?? ''), name: String(request.name ?? ''), input });
      }
      if (blocks.length > 0) messages.push({ role: 'assistant', blocks, userTurn: false, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    case 'tool.execution_complete': {
      if (messages === null) return;
      const result = isRecord(data.result) ? data.result : {};
      const error = isRecord(data.error) ? data.error : {};
      const output =
        typeof result.content === 'string' ? result.content : typeof error.message === 'string' ? error.message : typeof data.error === 'string' ? data.error : '';
      const block: Block = { type: 'tool_result', toolUseId: String(data.toolCallId ?? ''), output, isError: data.success === false };
      messages.push({ role: 'tool', blocks: [block], userTurn: false, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    case 'session.compaction_complete': {
      if (messages === null || data.success === false) return;
      const summary = typeof data.summaryContent === 'string' ? data.summaryContent : '';
      messages.push({ role: 'system', blocks: [{ type: 'compaction', summary }], userTurn: false, ...stamp(time), ...(source ? { source } : {}) });
      return;
    }
    default:
      return;
  }
}

function takeContext(fold: Fold, context: unknown, first: boolean): void {
  if (!isRecord(context)) return;
  if (typeof context.cwd === 'string' && (first || fold.cwd === null)) fold.cwd = context.cwd;
  if (typeof context.branch === 'string') fold.branch = context.branch;
}

function stamp(time: string | null): { timestamp?: string } {
  return time === null ? {} : { timestamp: time };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

interface EventsRead {
  readonly fold: Fold;
  readonly messages: Message[];
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  /** Fingerprint of the file's first bytes (lines.ts headFingerprint). */
  readonly fingerprint: string;
  /** Offset just past the last complete line (where a later read of appended events starts). */
  readonly end: number;
  /** The fold as it was before the unterminated last line (if any) was read: what may be saved and gone on from. */
  readonly saved: Fold;
}

/**
 * One pass over events.jsonl from `start` (0, or where a saved `fold` stopped): the fold, and the messages when
 * asked for (with `clip`, long strings cut first).
 */
export async function readEvents(path: string, withMessages: boolean, clip?: ClipLimits, start = 0, initial: Fold = newFold()): Promise<EventsRead> {
  const fold = initial;
  const messages: Message[] = [];
  const stats = newLineStats();
  const add = (line: RawLine): void => {
    // Every event ends with its timestamp and parentId: the last one is when the session was last written to.
    let time = tailTimestamp(line.bytes);
    let type = typeOf(line.bytes);
    if (type === null) {
      // Another JSON layout (`{"type": "…"` with a space, `type` not first: valid, not what Copilot writes) is told by a
      // parse; a line that is not JSON at all is counted.
      const value = parseJsonLine(line.bytes);
      if (isRecord(value) && typeof value.type === 'string') {
        type = value.type;
        if (typeof value.timestamp === 'string') time = isoTimestamp(value.timestamp) ?? time;
      }
    }
    if (time !== null && (fold.lastTime === null || time > fold.lastTime)) fold.lastTime = time;
    if (type === null) {
      countMalformed(line, stats);
      return;
    }
    if (!READ_TYPES.has(type)) return;
    const read = clip === undefined ? line : clipRawLine(line, clip);
    for (const object of jsonObjects([read], stats)) foldEvent(fold, type, object.value, withMessages ? messages : null, { path, offset: line.offset });
  };
  const folded = await foldLines(path, start, add);
  const saved = structuredClone(fold);
  // An unterminated last line may be being written: it counts only when it is complete JSON already.
  if (folded.partial !== null && typeOf(folded.partial.bytes) !== null) {
    const parsed = [...jsonObjects([folded.partial], newLineStats())];
    if (parsed.length > 0) add(folded.partial);
  }
  return { fold, messages, stats, size: folded.size, mtimeMs: folded.mtimeMs, fingerprint: folded.fingerprint, end: folded.end, saved };
}

/** A saved fold read back from the cache (plain JSON): checked field by field, else null (the file is read whole). */
export function importFold(state: unknown): Fold | null {
  if (!isRecord(state)) return null;
  const text = (value: unknown): value is string | null => value === null || typeof value === 'string';
  const { sessionId, startTime, lastTime, cwd, branch, model, forkNotes, prompts, usage } = state;
  if (![sessionId, startTime, lastTime, cwd, branch, model].every(text)) return null;
  if (!Array.isArray(prompts) || !prompts.every((p) => typeof p === 'string')) return null;
  if (!Array.isArray(forkNotes) || !forkNotes.every((n) => Array.isArray(n) && n.length === 2 && n.every((v) => typeof v === 'string'))) return null;
  const usageOk = usage === null || (isRecord(usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((k) => typeof usage[k] === 'number'));
  if (!usageOk) return null;
  return structuredClone(state) as unknown as Fold;
}

const TIMESTAMP_KEY = Buffer.from('"timestamp":"', 'latin1');

/** The `timestamp` near the end of an event's line (its own; a nested one comes before it), read without parsing. */
function tailTimestamp(bytes: Buffer): string | null {
  const from = Math.max(0, bytes.length - 160);
  const at = bytes.subarray(from).lastIndexOf(TIMESTAMP_KEY);
  if (at === -1) return null;
  const start = from + at + TIMESTAMP_KEY.length;
  const end = bytes.indexOf(0x22, start);
  return end === -1 || end - start > 40 ? null : isoTimestamp(bytes.toString('latin1', start, end));
}

function countMalformed(line: RawLine, stats: LineStats): void {
  for (const object of jsonObjects([line], stats)) void object;
}

const USER_MESSAGE = Buffer.from('{"type":"user.message"', 'latin1');

export function isPromptLine(bytes: Buffer): boolean {
  return bytes.subarray(0, USER_MESSAGE.length).equals(USER_MESSAGE);
}
