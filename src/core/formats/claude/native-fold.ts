/**
 * The index's fold fed by the native engine (native/fields.c): each line of a chunk judged as JSON.parse judges it,
 * and for most lines (answers, tool results, prompts written as one string, progress, attachments, the last prompt)
 * the members the fold reads handed back as spans; those become a small object instead of a parsed line. A line the
 * engine leaves to JS (content blocks with text, a title, a big line, an escaped key) goes the way every line goes
 * without it.
 */
import { chunkLines, jsonObjects, type LineBatch, type LineChunk, type LineStats, type RawLine } from '../../io/lines.js';
import { type JsonObject } from '../../json.js';
import { nativeEngine } from '../../native.js';
import { addIndexLine } from './indexed.js';
import { KeyedClaudeScan } from './keyed-scan.js';
import { SYNTHETIC_MODEL, stringOrNull } from './lines.js';
import { type ClaudeScan } from './scan.js';

interface FieldsEngine {
  lineFields(chunk: Buffer, from: number, to: number, records: Int32Array, usage: Float64Array, whole?: boolean, table?: object, keys?: Int32Array): number;
}

// native/fields.c's record: [start, end, verdict, flags, 14 spans (start, end), escaped spans, next line's start, spans as the line before's]
const V_BLANK = 0;
const V_MALFORMED = 1;
const V_FIELDS = 3;
const F_SIDECHAIN = 1;
const F_META = 2;
const F_COMPACT = 4;
const F_MESSAGE = 8;
const F_USAGE = 16;
const F_TOOL_RESULTS = 32;
const F_ORIGIN = 64;
const F_ISO_TIME = 128;
const [K_TYPE, K_UUID, K_PARENT, K_LOGICAL_PARENT, K_TIMESTAMP, K_SESSION, K_CWD, K_BRANCH, K_REQUEST_SESSION, K_MODEL, K_ID, K_LAST_PROMPT, K_CONTENT, K_ORIGIN_KIND] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
];
const SPANS = 14;
const SLOT_ESCAPED = 4 + 2 * SPANS;
const SLOT_NEXT = SLOT_ESCAPED + 1;
const SLOT_SAME = SLOT_NEXT + 1;
const SLOTS = SLOT_SAME + 1;
const USAGE_NUMBERS = 4;
/** A keyed scan's keys per record (native/fields.c's line_keys): its uuid's, parent's and logical parent's. */
const KEYED_SPANS = 3;
/** Lines judged per call. */
const BATCH_LINES = 2048;

/**
 * Buffer's own UTF-8 decoder of a range (what `toString('utf8', start, end)` calls after checking its arguments and
 * looking the encoding up: a third of the time of the ~2 strings a line decodes), where Node has it.
 */
const utf8Slice: (data: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as unknown as { utf8Slice?: unknown }).utf8Slice === 'function'
    ? (data, start, end) => (data as unknown as { utf8Slice(start: number, end: number): string }).utf8Slice(start, end)
    : (data, start, end) => data.toString('utf8', start, end);

/** A tool result's content as the fold reads it: a tool_result block, no text. */
const TOOL_RESULT_CONTENT = Object.freeze([Object.freeze({ type: 'tool_result' })]);

let buffers: { records: Int32Array; usage: Float64Array; keys: Int32Array } | null = null;

/**
 * The batch reader that folds a chunk's lines into `scan` through the native engine, or undefined when the engine
 * was not built (each line then goes through `addIndexLine`, with the same result).
 */
export function nativeIndexBatch(scan: ClaudeScan, stats: LineStats): LineBatch | undefined {
  const engine = nativeEngine() as Partial<FieldsEngine> | null;
  if (engine?.lineFields === undefined) return undefined;
  const lineFields = engine.lineFields.bind(engine);
  buffers ??= { records: new Int32Array(BATCH_LINES * SLOTS), usage: new Float64Array(BATCH_LINES * USAGE_NUMBERS), keys: new Int32Array(BATCH_LINES * KEYED_SPANS) };
  const { records, usage, keys } = buffers;
  const reader = new FieldsReader(records, usage);
  if (scan instanceof KeyedClaudeScan) {
    // Described lines come with their keys; their uuids are never decoded.
    const table = scan.uuids;
    const time = new LastTime();
    return (data, from, to, base) => {
      time.data = data;
      while (from < to) {
        const count = lineFields(data, from, to, records, usage, false, table, keys);
        for (let i = 0; i < count; i++) {
          const r = i * SLOTS;
          const start = records[r]!;
          const end = records[r + 1]!;
          switch (records[r + 2]) {
            case V_BLANK:
              break;
            case V_FIELDS: {
              const k = i * KEYED_SPANS;
              reader.begin();
              if (described(scan, reader, data, i, base + start, end - start, keys[k]!, keys[k + 1]!, keys[k + 2]!, time)) break;
              time.flush(scan);
              scan.addKeyed(reader.value(data, i, true), base + start, end - start, keys[k]!, keys[k + 1]!, keys[k + 2]!);
              break;
            }
            default:
              time.flush(scan);
              addIndexLine(scan, { offset: base + start, bytes: data.subarray(start, end), terminated: true }, stats);
          }
        }
        // The chunk's bytes are reused after this call.
        time.flush(scan);
        from = records[(count - 1) * SLOTS + SLOT_NEXT]!;
      }
    };
  }
  return (data, from, to, base) => {
    while (from < to) {
      const count = lineFields(data, from, to, records, usage);
      for (let i = 0; i < count; i++) {
        const r = i * SLOTS;
        const start = records[r]!;
        const end = records[r + 1]!;
        switch (records[r + 2]) {
          case V_BLANK:
            break;
          case V_FIELDS:
            scan.addValue(reader.value(data, i), base + start, end - start);
            break;
          default:
            // To parse, big, or malformed (rare): the way every line goes without the engine, which counts it.
            addIndexLine(scan, { offset: base + start, bytes: data.subarray(start, end), terminated: true }, stats);
        }
      }
      from = records[(count - 1) * SLOTS + SLOT_NEXT]!;
    }
  };
}

/**
 * The members of described lines as JSON.parse would give them: a span's bytes decoded, or the string made for the
 * line before when the engine says its bytes are the same (SLOT_SAME).
 */
class FieldsReader {
  /** The values of the last line read, by span. */
  private readonly last: unknown[] = new Array<unknown>(SPANS).fill(undefined);

  constructor(
    readonly records: Int32Array,
    readonly usage: Float64Array,
  ) {}

  /** Keyed reading: the spans whose value `last` holds for the line before (a line read by `described` skips some). */
  private known = 0;
  private fresh = 0;

  /** Keyed reading: a described line begins (its spans decoded are known to the next). */
  begin(): void {
    this.known = this.fresh;
    this.fresh = 0;
  }

  /** Keyed reading: span k of record r, reused from the line before only when that line decoded it. */
  keyedSpan(data: Buffer, r: number, k: number): unknown {
    const value = this.span(data, r, k, this.records[r + SLOT_SAME]! & this.known);
    this.last[k] = value;
    this.fresh |= 1 << k;
    return value;
  }

  /** Span k of record r (undefined: the member is absent). */
  private span(data: Buffer, r: number, k: number, same: number): unknown {
    const records = this.records;
    let value: unknown;
    if ((same & (1 << k)) !== 0) {
      value = k === K_PARENT ? this.last[K_UUID] : this.last[k];
    } else {
      const start = records[r + 4 + 2 * k]!;
      if (start < 0) value = undefined;
      else if (data[start] === 0x22 && (records[r + SLOT_ESCAPED]! & (1 << k)) === 0) value = utf8Slice(data, start + 1, records[r + 5 + 2 * k]! - 1);
      else value = JSON.parse(utf8Slice(data, start, records[r + 5 + 2 * k]!)) as unknown;
    }
    return value;
  }

  /**
   * The members of the line at record i the fold reads (ClaudeScan.add); `keyed`: not its uuid, parent and logical
   * parent (a keyed scan has their keys).
   */
  value(data: Buffer, i: number, keyed = false): JsonObject {
    const r = i * SLOTS;
    const records = this.records;
    const flags = records[r + 3]!;
    const same = records[r + SLOT_SAME]!;
    const last = this.last;
    if (keyed) {
      for (const k of READ_KEYED) this.keyedSpan(data, r, k);
    } else {
      // The parent first: it may be the line before's uuid, which this line's uuid replaces below.
      const parentUuid = this.span(data, r, K_PARENT, same);
      for (const k of READ_FIRST) last[k] = this.span(data, r, k, same);
      last[K_PARENT] = parentUuid;
    }
    const value: JsonObject = {
      type: last[K_TYPE],
      ...(keyed ? {} : { uuid: last[K_UUID], parentUuid: last[K_PARENT], logicalParentUuid: last[K_LOGICAL_PARENT] }),
      timestamp: last[K_TIMESTAMP],
      sessionId: last[K_SESSION],
      cwd: last[K_CWD],
      gitBranch: last[K_BRANCH],
      requestSessionId: last[K_REQUEST_SESSION],
      lastPrompt: this.span(data, r, K_LAST_PROMPT, 0),
      isSidechain: (flags & F_SIDECHAIN) !== 0,
      isMeta: (flags & F_META) !== 0,
      isCompactSummary: (flags & F_COMPACT) !== 0,
    };
    if ((flags & F_MESSAGE) !== 0) {
      const message: JsonObject = { model: last[K_MODEL], id: last[K_ID] };
      if ((flags & F_USAGE) !== 0) {
        const u = i * USAGE_NUMBERS;
        const usage = this.usage;
        message.usage = { input_tokens: usage[u], output_tokens: usage[u + 1], cache_read_input_tokens: usage[u + 2], cache_creation_input_tokens: usage[u + 3] };
      }
      // A user line's content (an answer's is not read): a prompt whole, or a tool's result.
      if ((flags & F_TOOL_RESULTS) !== 0) message.content = TOOL_RESULT_CONTENT;
      else if (last[K_TYPE] === 'user') message.content = this.span(data, r, K_CONTENT, 0);
      value.message = message;
    }
    if ((flags & F_ORIGIN) !== 0) value.origin = { kind: this.span(data, r, K_ORIGIN_KIND, 0) };
    return value;
  }
}

/**
 * The latest canonical timestamp of the described lines read since the last flush, decoded only when something reads
 * the scan's times (a line the fold reads whole, the chunk's end): most lines' times are overwritten unread.
 */
class LastTime {
  data: Buffer | null = null;
  private start = -1;
  private end = -1;

  /** A line's canonical timestamp at [start, end) of `data` (the quotes excluded). */
  set(scan: ClaudeScan, start: number, end: number): void {
    if (scan.firstTimestamp === null) {
      const timestamp = utf8Slice(this.data!, start, end);
      scan.firstTimestamp = timestamp;
      scan.lastTimestamp = timestamp;
      this.start = -1;
      return;
    }
    this.start = start;
    this.end = end;
  }

  flush(scan: ClaudeScan): void {
    if (this.start < 0) return;
    scan.lastTimestamp = utf8Slice(this.data!, this.start, this.end);
    this.start = -1;
  }
}

/**
 * A described line that is not a user line nor a last prompt, folded from its record without an object made for it
 * (ClaudeScan.addLine and KeyedClaudeScan.addKeyed's rules for such a line); false for a line `value` must make.
 */
function described(scan: KeyedClaudeScan, reader: FieldsReader, data: Buffer, i: number, offset: number, length: number, uuid: number, parent: number, logical: number, time: LastTime): boolean {
  const r = i * SLOTS;
  const records = reader.records;
  const flags = records[r + 3]!;
  if ((flags & F_ISO_TIME) === 0) return false;
  const typed = reader.keyedSpan(data, r, K_TYPE);
  const type = typeof typed === 'string' ? typed : '';
  if (type === 'user' || type === 'last-prompt') return false;
  time.set(scan, records[r + 4 + 2 * K_TIMESTAMP]! + 1, records[r + 5 + 2 * K_TIMESTAMP]! - 1);
  const sidechain = (flags & F_SIDECHAIN) !== 0;
  if (type === 'assistant' && !sidechain) {
    scan.hasConversation = true;
    const sessionId = reader.keyedSpan(data, r, K_SESSION);
    const cwd = reader.keyedSpan(data, r, K_CWD);
    scan.sessionId ??= stringOrNull(sessionId);
    scan.cwd ??= stringOrNull(cwd);
    scan.gitBranch = stringOrNull(reader.keyedSpan(data, r, K_BRANCH)) ?? scan.gitBranch;
    scan.requestSessionId = stringOrNull(reader.keyedSpan(data, r, K_REQUEST_SESSION)) ?? scan.requestSessionId;
    if ((flags & F_MESSAGE) !== 0) {
      // ClaudeScan.addAssistant.
      const model = stringOrNull(reader.keyedSpan(data, r, K_MODEL));
      const id = stringOrNull(reader.keyedSpan(data, r, K_ID));
      if (model !== null && model !== SYNTHETIC_MODEL) scan.model = model;
      if ((flags & F_USAGE) !== 0) {
        const u = i * USAGE_NUMBERS;
        const usage = reader.usage;
        const count = (value: number): number => (Number.isFinite(value) ? value : 0);
        scan.usageById.set(id ?? `#${scan.anonymousUsage++}`, { input: count(usage[u]!), output: count(usage[u + 1]!), cacheRead: count(usage[u + 2]!), cacheWrite: count(usage[u + 3]!) });
      }
    }
  }
  scan.addNode(type, sidechain, (flags & F_META) !== 0, offset, length, uuid, parent, logical);
  return true;
}

/** Every span but the parent's, read after it. */
const READ_FIRST = [K_TYPE, K_UUID, K_LOGICAL_PARENT, K_TIMESTAMP, K_SESSION, K_CWD, K_BRANCH, K_REQUEST_SESSION, K_MODEL, K_ID];
/** The spans a keyed scan reads (not the uuid, parent and logical parent). */
const READ_KEYED = [K_TYPE, K_TIMESTAMP, K_SESSION, K_CWD, K_BRANCH, K_REQUEST_SESSION, K_MODEL, K_ID];

const VERDICTS = ['blank', 'malformed', 'parse', 'fields', 'big'] as const;

/**
 * The engine's verdict on one line (no newline in it; `whole`: as show's read judges it, at any length), and for a
 * line it describes the object the fold is given; null when the engine was not built. For tests: the verdict must be JSON.parse's, the object the parsed line's fields.
 */
export function judgeLine(bytes: Buffer, whole = false): { readonly verdict: (typeof VERDICTS)[number]; readonly value?: JsonObject } | null {
  const engine = nativeEngine() as Partial<FieldsEngine> | null;
  if (engine?.lineFields === undefined) return null;
  const data = Buffer.concat([bytes, Buffer.from('\n')]);
  const records = new Int32Array(SLOTS);
  const usage = new Float64Array(USAGE_NUMBERS);
  if (engine.lineFields(data, 0, data.length, records, usage, whole) !== 1 || records[SLOT_NEXT] !== data.length) throw new Error('one line, one record');
  const verdict = VERDICTS[records[2]!]!;
  return verdict === 'fields' ? { verdict, value: new FieldsReader(records, usage).value(data, 0) } : { verdict };
}

/**
 * `show`'s reading of a linear file's lines (`LinearFold` in stream.ts), a chunk at a time: each object line handed to
 * `add` with its offset, blank ones skipped and malformed ones counted, exactly as `jsonObjects` does. With the
 * native engine, every line is judged by it first (as JSON.parse judges it, at any length), and the members the fold
 * reads are taken from their bytes: of an attachment (a third of a big session's bytes) its uuid, type, parent and
 * flags, nothing of a line with no uuid, and of an answer or a user line its message's content is parsed alone
 * (`shownLine`); system lines, and lines the engine leaves to JS, are parsed whole. Without the engine, or with
 * one built before it judged whole lines (or `native` false, for tests), every line is parsed.
 */
export function showLineReader(stats: LineStats, native = true): (chunk: LineChunk, add: (offset: number, value: JsonObject) => void) => void {
  const parsed = (lines: Iterable<RawLine>, add: (offset: number, value: JsonObject) => void): void => {
    for (const line of jsonObjects(lines, stats)) add(line.offset, line.value);
  };
  const engine = native ? wholeLineEngine() : null;
  if (engine === null) {
    return (chunk, add) => parsed(chunkLines(chunk), add);
  }
  const records = new Int32Array(BATCH_LINES * SLOTS);
  const usage = new Float64Array(BATCH_LINES * USAGE_NUMBERS);
  return (chunk, add) => {
    if (chunk.joined !== null) parsed([chunk.joined], add);
    const { data, base } = chunk;
    for (let from = chunk.from; from < chunk.to; ) {
      const count = engine.lineFields(data, from, chunk.to, records, usage, true);
      // The uuid and type decoded from the record before (undefined: not decoded), reused where the engine says this
      // record's type, or parent, has the same bytes (SLOT_SAME): most lines name the line before as their parent.
      let lastUuid: string | null | undefined;
      let lastType: string | null | undefined;
      for (let i = 0; i < count; i++) {
        const r = i * SLOTS;
        const start = records[r]!;
        const end = records[r + 1]!;
        const verdict = records[r + 2]!;
        const same = records[r + SLOT_SAME]!;
        const uuidBefore = lastUuid;
        const typeBefore = lastType;
        lastUuid = lastType = undefined;
        if (verdict === V_BLANK) continue;
        if (verdict === V_MALFORMED) {
          stats.malformed++;
          continue;
        }
        if (verdict === V_FIELDS) {
          // No uuid (a string, not empty): the fold reads nothing else of the line.
          const uuid = (lastUuid = stringSpan(data, records, r, K_UUID));
          if (typeof uuid !== 'string' || uuid.length === 0) continue;
          const type = (lastType = (same & (1 << K_TYPE)) !== 0 && typeBefore !== undefined ? typeBefore : stringSpan(data, records, r, K_TYPE));
          const flags = records[r + 3]!;
          const parentUuid = (same & (1 << K_PARENT)) !== 0 && uuidBefore !== undefined ? uuidBefore : stringSpan(data, records, r, K_PARENT);
          if (type === 'user' || type === 'assistant') {
            add(base + start, shownLine(data, records, r, type, uuid, parentUuid, flags));
            continue;
          }
          if (type !== 'system') {
            add(base + start, { uuid, type, parentUuid, isSidechain: (flags & F_SIDECHAIN) !== 0, isMeta: (flags & F_META) !== 0 });
            continue;
          }
        }
        parsed([{ offset: base + start, bytes: data.subarray(start, end), terminated: true }], add);
      }
      from = records[(count - 1) * SLOTS + SLOT_NEXT]!;
    }
  };
}

/**
 * A user or assistant line as the fold reads it (LinearFold, ClaudeMessageFold, isClaudeUserTurn): its flags, time,
 * origin, and its message's id and content, the content parsed from its own bytes (not the line's usage, request ids,
 * cwd, version: most of an answer's bytes).
 */
function shownLine(data: Buffer, records: Int32Array, r: number, type: string, uuid: string, parentUuid: string | null, flags: number): JsonObject {
  const value: JsonObject = {
    type,
    uuid,
    parentUuid,
    isSidechain: (flags & F_SIDECHAIN) !== 0,
    isMeta: (flags & F_META) !== 0,
    isCompactSummary: (flags & F_COMPACT) !== 0,
    timestamp: anySpan(data, records, r, K_TIMESTAMP),
  };
  if ((flags & F_ORIGIN) !== 0) value.origin = { kind: anySpan(data, records, r, K_ORIGIN_KIND) };
  if ((flags & F_MESSAGE) !== 0) value.message = { id: anySpan(data, records, r, K_ID), content: anySpan(data, records, r, K_CONTENT) };
  return value;
}

/** Span k of record r as JSON.parse gives it (undefined: the member is absent). */
function anySpan(data: Buffer, records: Int32Array, r: number, k: number): unknown {
  const start = records[r + 4 + 2 * k]!;
  if (start < 0) return undefined;
  const end = records[r + 5 + 2 * k]!;
  return data[start] === 0x22 && (records[r + SLOT_ESCAPED]! & (1 << k)) === 0 ? utf8Slice(data, start + 1, end - 1) : (JSON.parse(utf8Slice(data, start, end)) as unknown);
}

/** Span k of record r when it is a string (decoded as JSON.parse decodes it), else null (absent, or another value). */
function stringSpan(data: Buffer, records: Int32Array, r: number, k: number): string | null {
  const start = records[r + 4 + 2 * k]!;
  if (start < 0 || data[start] !== 0x22) return null;
  const end = records[r + 5 + 2 * k]!;
  return (records[r + SLOT_ESCAPED]! & (1 << k)) === 0 ? utf8Slice(data, start + 1, end - 1) : (JSON.parse(utf8Slice(data, start, end)) as string);
}

let wholeLines: FieldsEngine | null | undefined;

/** The engine when it judges whole lines (a build from before that refuses the argument, or says a long line is big). */
function wholeLineEngine(): FieldsEngine | null {
  if (wholeLines !== undefined) return wholeLines;
  const engine = nativeEngine() as Partial<FieldsEngine> | null;
  wholeLines = null;
  if (engine?.lineFields === undefined) return null;
  const probe = Buffer.from(`{"uuid":"${'u'.repeat(5000)}"}\n`, 'latin1');
  try {
    const records = new Int32Array(SLOTS);
    if (engine.lineFields(probe, 0, probe.length, records, new Float64Array(USAGE_NUMBERS), true) === 1 && records[2] === V_FIELDS) wholeLines = engine as FieldsEngine;
  } catch {
    // built before: every line is parsed
  }
  return wholeLines;
}
