import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { errorMessage } from '../../errors.js';
import { PARTIAL_AFTER_BYTES, PARTIAL_AFTER_LINES, SUMMARY_CLIP_LIMITS, clipJsonStrings, clipRawLine, type ClipLimits } from '../../io/clip.js';
import { jsonObjects, parseJsonLine, readLines, type LineStats, type RawLine } from '../../io/lines.js';
import { readRegularFile } from '../../io/regular.js';
import type { AdapterContext, SessionFileGroup } from '../types.js';
import { DIGESTED_EVENTS, digestReads } from './digest.js';
import { REVIEW_MODE_EVENTS } from './rules.js';
import { BACKSLASH, KeyNames, QUOTE, keyIs } from '../../io/json-bytes.js';
import { isTypeScriptRollout } from './discovery.js';
import { type CodexLine, type Header, type HistoryBase, classify, headerOf } from './lines.js';
import { isRecord } from '../../json.js';

// Collecting a conversation's lines across segments and paginated parents

type ReadMode = 'full' | 'summary';

interface PathRead {
  readonly lines: CodexLine[];
  /** Every line up to `end` (or the file's end) was seen. */
  readonly exact: boolean;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Called once with the lines read so far, early in a long read (a display shows them while the rest is read). */
export type OnStart = (lines: readonly CodexLine[]) => void;

async function readPath(path: string, mode: ReadMode, stats: LineStats, end?: number, clip?: ClipLimits, onStart?: OnStart): Promise<PathRead> {
  if (isTypeScriptRollout(path)) return readTypeScriptRollout(path, stats);
  if (mode === 'summary') return readPathSkimmed(path, stats, end);
  if (clip !== undefined || onStart !== undefined) return readPathStreamed(path, stats, end, clip, onStart);
  const info = await stat(path);
  const raw: RawLine[] = [];
  for await (const line of readLines(path, end === undefined ? {} : { end: Math.min(end, info.size) })) raw.push(line);
  return { lines: parseLines(path, raw, stats), exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * A TypeScript-era rollout: one (pretty-printed) JSON object `{session: {id, timestamp, instructions, …}, items}`
 * whose items are Responses API items, like the legacy Rust files' bare items. Read whole (the CLI rewrote the
 * file whole on every save); the session object stands for the header line. Its lines have no offsets of
 * their own: every one is at 0, and such a file is never forked (forkCodex).
 */
async function readTypeScriptRollout(path: string, stats: LineStats): Promise<PathRead> {
  const data = await readRegularFile(path);
  const info = await stat(path);
  const lines: CodexLine[] = [];
  const value = parseJsonLine(data);
  if (!isRecord(value) || !isRecord(value.session) || !Array.isArray(value.items)) {
    stats.malformed++;
    return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
  }
  const { instructions: _instructions, ...session } = value.session;
  lines.push(classify(path, 0, Buffer.from(JSON.stringify(value.session)), session, true));
  for (const item of value.items) {
    if (isRecord(item)) lines.push(classify(path, 0, Buffer.from(JSON.stringify(item)), item, false));
  }
  return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * Every line, parsed as it is read (and clipped first, for display: then the file's bytes are never held all
 * at once); `onStart` gets the first lines early.
 */
async function readPathStreamed(path: string, stats: LineStats, end: number | undefined, clip: ClipLimits | undefined, onStart: OnStart | undefined): Promise<PathRead> {
  const info = await stat(path);
  const lines: CodexLine[] = [];
  // Clipped lines are copies: the chunk buffer can be reused.
  const options = { ...(end === undefined ? {} : { end: Math.min(end, info.size) }), reuseChunk: clip !== undefined };
  for await (const line of readLines(path, options)) {
    // One line at a time: parseLines's only cross-line state (the legacy header) is the line at offset 0.
    // A user message is read whole, as a summary reads it: an IDE prompt's request is at its end.
    const clipped = clip === undefined || isUserMessageLine(line) ? line : clipRawLine(line, clip);
    for (const parsed of parseLines(path, [clipped], stats)) {
      lines.push(clip !== undefined && !digestReads(parsed) ? { ...parsed, payload: {} } : parsed);
    }
    if (onStart !== undefined && (lines.length >= PARTIAL_AFTER_LINES || line.offset >= PARTIAL_AFTER_BYTES)) {
      onStart(lines);
      onStart = undefined;
    }
  }
  return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/** Every line, the kinds a row never reads skimmed by their opening bytes (a row of a group of several files). */
async function readPathSkimmed(path: string, stats: LineStats, end: number | undefined): Promise<PathRead> {
  const info = await stat(path);
  const lines: CodexLine[] = [];
  for await (const line of readLines(path, end === undefined ? {} : { end: Math.min(end, info.size) })) lines.push(...parseLines(path, [line], stats, true));
  return { lines, exact: true, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * Parse raw lines. `forSummary`: a listing needs neither tool outputs nor per-item events nor the instructions
 * text in session_meta, which are most of a rollout's bytes: big lines of those kinds are recognised by their
 * opening bytes and kept only as timestamps, and the header is parsed without its instructions.
 */
export function parseLines(path: string, raw: readonly RawLine[], stats: LineStats, forSummary = false): CodexLine[] {
  const lines: CodexLine[] = [];
  let first = true;
  for (const rawLine of raw) {
    // A line still being written (no newline yet) is skimmed only when it is long: a short one must parse to count.
    if (forSummary && (rawLine.terminated || rawLine.bytes.length > SUMMARY_SKIM_BYTES)) {
      const skimmed = skimmedLine(path, rawLine);
      if (skimmed !== null) {
        lines.push(skimmed);
        first = false;
        continue;
      }
    }
    if (forSummary && rawLine.bytes.length > SUMMARY_SKIM_BYTES) {
      const opening = rawLine.bytes.subarray(0, 240).toString('latin1');
      if (CLIPPED_IN_SUMMARY.test(opening)) {
        const value = parseJsonLine(clipJsonStrings(rawLine.bytes, SUMMARY_CLIP_LIMITS));
        if (isRecord(value)) {
          lines.push(classify(path, rawLine.offset, rawLine.bytes, value, first && rawLine.offset === 0));
          first = false;
          continue;
        }
      }
    }
    for (const object of jsonObjects([rawLine], stats)) {
      lines.push(classify(path, object.offset, object.bytes, object.value, first && object.offset === 0));
      first = false;
    }
  }
  return lines;
}

/** A user-role message item (modern or legacy), known by its opening bytes. */
function isUserMessageLine(line: RawLine): boolean {
  return USER_MESSAGE_OPENING.test(line.bytes.subarray(0, 240).toString('latin1'));
}

const USER_MESSAGE_OPENING =
  /^\{(?:"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"response_item","payload":\{)?(?:"id":(?:"[^"]*"|null),)?"type":"message",(?:"id":(?:"[^"]*"|null),)?"role":"user"/;

/** Longer lines of kinds whose long strings a row never reads are parsed with those strings clipped. */
const SUMMARY_SKIM_BYTES = 1024;

const bytesOf = (text: string): Buffer => Buffer.from(text, 'latin1');
const TIMESTAMP_OPENING = bytesOf('{"timestamp":"');
const ORDINAL_KEY = bytesOf(',"ordinal":');
const TYPE_KEY = bytesOf(',"type":"');
const LEGACY_OPENING = bytesOf('{"type":"');
const PAYLOAD_TYPE = bytesOf('","payload":{"type":"');
const DEVELOPER_ROLE = bytesOf(',"role":"developer"');

/** Line types (`type`) a row never reads but for their timestamp. */
const TIMESTAMP_ONLY_TYPES = new KeyNames(['world_state', 'token_usage_record']);
/** Response items a row never reads (tool outputs; `message` only with the developer role). */
const SKIMMED_ITEMS = new KeyNames(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);
/** Events whose payload the row's digest reads (digest.ts): parsed. Every other event is skimmed. */
const DIGESTED_EVENT_NAMES = new KeyNames(DIGESTED_EVENTS.filter((type) => !REVIEW_MODE_EVENTS.includes(type)));
/** Events the digest knows by their type alone (review mode opens and closes). */
const REVIEW_EVENT_NAMES = new KeyNames(REVIEW_MODE_EVENTS);

/** The probe's bytes at `at` (compared in JavaScript: a native `compare` per line costs more than these few bytes). */
function startsAt(bytes: Buffer, at: number, probe: Buffer): boolean {
  if (bytes.length < at + probe.length) return false;
  for (let k = 0; k < probe.length; k++) if (bytes[at + k] !== probe[k]) return false;
  return true;
}

/** The end (just past the closing quote) of a plain name whose opening quote is at `open - 1`: letters, digits, `_`. */
function plainNameEnd(bytes: Buffer, open: number): number {
  for (let i = open; i < bytes.length && i < open + 64; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) return i + 1;
    if (!((byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f)) return -1;
  }
  return -1;
}

/**
 * A line the row reads nothing of but its timestamp (or, for review-mode events, its type), known by its opening
 * bytes, without parsing it or decoding anything else: tool outputs, developer messages, every event the digest
 * does not read (per-item events, task starts, settings; `token_count`, rollbacks and names are parsed), world
 * state and token records. Null for any other line, and for an opening written otherwise than Codex writes it
 * (`{"timestamp":"…",["ordinal":n,]"type":"…","payload":{"type":"…"`; legacy `{"type":"…_output"`): parsed.
 * A skimmed line is not checked for being whole JSON (a cut-off one is not counted as malformed).
 */
export function skimmedLine(path: string, raw: RawLine): CodexLine | null {
  const bytes = raw.bytes;
  if (startsAt(bytes, 0, LEGACY_OPENING)) {
    const nameEnd = plainNameEnd(bytes, LEGACY_OPENING.length);
    return nameEnd !== -1 && SKIMMED_ITEMS.find(bytes, LEGACY_OPENING.length - 1, nameEnd) !== null ? skimmed(path, raw, undefined, undefined) : null;
  }
  if (!startsAt(bytes, 0, TIMESTAMP_OPENING)) return null;
  const stampEnd = bytes.indexOf(QUOTE, TIMESTAMP_OPENING.length);
  if (stampEnd === -1 || bytes.lastIndexOf(BACKSLASH, stampEnd) >= TIMESTAMP_OPENING.length) return null;
  let at = stampEnd + 1;
  let ordinal: number | undefined;
  if (startsAt(bytes, at, ORDINAL_KEY)) {
    let digits = at + ORDINAL_KEY.length;
    let value = 0;
    for (; digits < bytes.length && bytes[digits]! >= 0x30 && bytes[digits]! <= 0x39 && digits < at + ORDINAL_KEY.length + 15; digits++) value = value * 10 + bytes[digits]! - 0x30;
    if (digits === at + ORDINAL_KEY.length || (bytes[at + ORDINAL_KEY.length] === 0x30 && digits > at + ORDINAL_KEY.length + 1)) return null;
    ordinal = value;
    at = digits;
  }
  if (!startsAt(bytes, at, TYPE_KEY)) return null;
  const typeStart = at + TYPE_KEY.length;
  const typeEnd = plainNameEnd(bytes, typeStart);
  if (typeEnd === -1) return null;
  const timestamp = (): string => bytes.toString('utf8', TIMESTAMP_OPENING.length, stampEnd);
  if (TIMESTAMP_ONLY_TYPES.find(bytes, typeStart - 1, typeEnd) !== null) return skimmed(path, raw, timestamp(), ordinal);
  if (!startsAt(bytes, typeEnd - 1, PAYLOAD_TYPE)) return null;
  const innerStart = typeEnd - 1 + PAYLOAD_TYPE.length;
  const innerEnd = plainNameEnd(bytes, innerStart);
  if (innerEnd === -1) return null;
  if (keyIs(bytes, typeStart - 1, typeEnd, 'event_msg')) {
    if (DIGESTED_EVENT_NAMES.find(bytes, innerStart - 1, innerEnd) !== null) return null;
    const review = REVIEW_EVENT_NAMES.find(bytes, innerStart - 1, innerEnd);
    return review === null ? skimmed(path, raw, timestamp(), ordinal) : { ...skimmed(path, raw, timestamp(), ordinal), kind: 'event', type: review };
  }
  if (keyIs(bytes, typeStart - 1, typeEnd, 'response_item')) {
    if (SKIMMED_ITEMS.find(bytes, innerStart - 1, innerEnd) !== null) return skimmed(path, raw, timestamp(), ordinal);
    if (keyIs(bytes, innerStart - 1, innerEnd, 'message') && startsAt(bytes, innerEnd, DEVELOPER_ROLE)) return skimmed(path, raw, timestamp(), ordinal);
  }
  return null;
}

function skimmed(path: string, raw: RawLine, timestamp: string | undefined, ordinal: number | undefined): CodexLine {
  return { path, offset: raw.offset, bytes: raw.bytes, kind: 'other', type: '', payload: {}, timestamp, ordinal, fromBase: false, userTurn: false };
}

/**
 * Kinds of line whose long strings a summary never shows (instructions in session_meta, encrypted reasoning,
 * tool arguments, answers): parsed with those strings clipped (clip.ts). User messages are parsed whole: an
 * IDE-context prompt keeps the request at its end.
 */
const CLIPPED_IN_SUMMARY =
  /^\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(?:session_meta"|response_item","payload":\{"type":"(?:reasoning"|function_call"|custom_tool_call"|local_shell_call"|message","role":"assistant"))/;

interface Cut {
  /** Bytes of the group's last file to keep (history_base.end_byte_offset). */
  readonly endByteOffset: number | undefined;
  readonly endOrdinalExclusive: number | undefined;
}

export interface Collected {
  readonly header: Header | null;
  readonly id: string | null;
  /** The conversation's lines in order, the thread's own header (and segment headers) left out. */
  readonly lines: CodexLine[];
  readonly exact: boolean;
  /** Over the group's own files only: the catalog's cache key. */
  readonly size: number;
  readonly mtimeMs: number;
  /** Ids of later session_meta lines naming another thread (a fork that replays its parent). */
  readonly replayedIds: string[];
  /** Ordinal of the oldest ancestor's header: a materialised fork starts its ordinals there. */
  readonly rootHeaderOrdinal: number | undefined;
}

export async function collect(
  group: SessionFileGroup,
  context: AdapterContext,
  mode: ReadMode,
  stats: LineStats,
  cut: Cut | undefined,
  visiting: ReadonlySet<string>,
  clip?: ClipLimits,
  onStart?: OnStart,
): Promise<Collected> {
  const paths = distinctFiles(group.paths);
  const lastIndex = paths.length - 1;
  const byteCut = cut?.endByteOffset !== undefined && cut.endByteOffset > 0 ? cut.endByteOffset : undefined;
  const reads: PathRead[] = [];
  for (let i = 0; i <= lastIndex; i++) {
    // Only a single file's start is the conversation's start (later segments continue earlier files).
    reads.push(await readPath(paths[i]!, mode, stats, i === lastIndex ? byteCut : undefined, clip, lastIndex === 0 ? onStart : undefined));
  }

  const headerLine = reads[0]?.lines.find((line) => line.kind === 'header');
  const header = headerLine ? headerOf(headerLine) : null;
  const id = header?.id ?? group.idHint;
  let lines: CodexLine[] = [];
  const replayedIds: string[] = [];
  let exact = true;
  let size = 0;
  let mtimeMs = 0;
  reads.forEach((read, index) => {
    exact &&= read.exact;
    size += read.size;
    mtimeMs = Math.max(mtimeMs, read.mtimeMs);
    let segmentHeaderSeen = false;
    // A later file that starts by replaying what came before (a fork file of some releases) adds only the rest.
    let replayAt = index > 0 ? 0 : -1;
    for (const line of read.lines) {
      if (line.kind === 'header') {
        if (line === headerLine) continue;
        const other = headerOf(line);
        if (index > 0 && !segmentHeaderSeen && other.id === id) {
          // A later segment of the same thread: its header may say where the previous history ends (revert).
          segmentHeaderSeen = true;
          if (other.historyBase && other.historyBase.threadId === id) {
            lines = cutLines(lines, paths[index - 1]!, other.historyBase);
          }
          continue;
        }
        if (other.id !== null && other.id !== id) replayedIds.push(other.id);
      }
      if (replayAt >= 0) {
        if (lines[replayAt]?.bytes.equals(line.bytes)) {
          replayAt++;
          continue;
        }
        replayAt = -1;
      }
      lines.push(line);
    }
  });
  if (cut && byteCut === undefined && cut.endOrdinalExclusive !== undefined) {
    const end = cut.endOrdinalExclusive;
    lines = lines.filter((line) => line.ordinal === undefined || line.ordinal < end);
  }

  let rootHeaderOrdinal = header?.line.ordinal;
  const base = header?.historyBase;
  if (base && id !== null && base.threadId !== id) {
    const baseGroup = context.lookup('codex', base.threadId);
    const where = group.paths[0]!;
    if (!baseGroup) {
      context.report({ path: where, message: `fork parent ${base.threadId} not found: showing only this fork's own lines` });
    } else if (visiting.has(base.threadId)) {
      context.report({ path: where, message: `fork parent chain loops at ${base.threadId}` });
    } else {
      try {
        const parent = await collect(
          baseGroup,
          context,
          mode,
          stats,
          { endByteOffset: base.endByteOffset, endOrdinalExclusive: base.endOrdinalExclusive },
          new Set([...visiting, id]),
          clip,
        );
        for (const line of parent.lines) line.fromBase = true;
        lines = [...parent.lines, ...lines];
        exact &&= parent.exact;
        rootHeaderOrdinal = parent.rootHeaderOrdinal;
      } catch (error) {
        context.report({ path: baseGroup.paths[0] ?? where, message: `cannot read fork parent: ${errorMessage(error)}` });
      }
    }
  }
  return { header, id, lines, exact, size, mtimeMs, replayedIds, rootHeaderOrdinal };
}

/**
 * The same file name in sessions/ and archived_sessions/ is one file copied (archive, unarchive): read only
 * the last of them (discovery sorts the live sessions/ copy last), or every line would appear twice.
 */
export function distinctFiles(paths: readonly string[]): string[] {
  const lastByName = new Map<string, string>();
  for (const path of paths) lastByName.set(basename(path), path);
  return paths.filter((path) => lastByName.get(basename(path)) === path);
}

/** Keep what a revert segment's base keeps: by ordinal when the lines carry one, else by bytes of the previous file. */
function cutLines(lines: CodexLine[], previousPath: string, base: HistoryBase): CodexLine[] {
  const end = base.endOrdinalExclusive;
  if (end !== undefined && lines.some((line) => line.ordinal !== undefined)) {
    return lines.filter((line) => line.ordinal === undefined || line.ordinal < end);
  }
  const byteEnd = base.endByteOffset;
  if (byteEnd !== undefined && byteEnd > 0) {
    return lines.filter((line) => line.path !== previousPath || line.offset < byteEnd);
  }
  return lines;
}
