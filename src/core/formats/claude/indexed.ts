/** Big lines read by their bytes: only what the index's fold reads is decoded (io/json-bytes.ts). */
import { decodeScalar, decodeString, KeyNames, memberSpan, parseSpan, skipWhitespace, walkArray, walkObject, type Span } from '../../io/json-bytes.js';
import { jsonObjects, type LineStats, type RawLine } from '../../io/lines.js';
import { type JsonObject } from '../../json.js';
import { clipForSummary, SUMMARY_CLIP_FROM_BYTES } from './messages.js';
import { addToScan, ClaudeScan } from './scan.js';

// ---------------------------------------------------------------------------------------------------------
// The index: a row folded from every line, and the fold saved so that appended lines are all a later read needs

/**
 * One line into the index's fold. A big line is read by its bytes (`indexedValue`): the fields the fold reads are
 * decoded, the rest (tool results and inputs, thinking, attachments, request shapes, `toolUseResult`) is stepped
 * over, never parsed. A small line, and a line the byte reader cannot take (cut short, not an object, a taken
 * value that is not JSON), is parsed whole with long strings clipped, which counts it as malformed or partial.
 */
export function addIndexLine(scan: ClaudeScan, line: RawLine, stats: LineStats): void {
  // Small lines are parsed: JSON.parse of a line of a few hundred bytes costs no more than reading it by its bytes.
  const value = line.bytes.length < SUMMARY_CLIP_FROM_BYTES ? null : indexedValue(line.bytes);
  if (value !== null) {
    scan.add({ offset: line.offset, bytes: line.bytes, value, ...(line.fileLength === undefined ? {} : { fileLength: line.fileLength }) });
    return;
  }
  addToScan(scan, jsonObjects([clipForSummary(line)], stats));
}

/** Top-level members the fold reads (ClaudeScan.add, isClaudeUserTurn, the title and name lines). */
const INDEXED_KEYS = new KeyNames([
  'type', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'timestamp', 'sessionId', 'cwd', 'gitBranch', 'subtype', 'isMeta',
  'isCompactSummary', 'requestSessionId', 'customTitle', 'title', 'agentName', 'name', 'aiTitle', 'summary', 'leafUuid', 'lastPrompt',
  'origin', 'message',
]);

/** What the fold reads of a message: its content, and of an assistant's the model and the usage per API message id. */
const MESSAGE_KEYS = new KeyNames(['content', 'model', 'id', 'usage']);

/**
 * What the index's fold reads of a line, as the parsed line would give it, from its bytes: the scalars above,
 * `origin`, and of `message` its `model`, `id`, `usage` and `content` — a string whole, an array as its blocks
 * with text blocks whole and every other block (tool results, images, tool calls, thinking) as its `type` only.
 * Null when the line is not one whole JSON object or a value taken is not JSON.
 */
export function indexedValue(bytes: Buffer): JsonObject | null {
  const out: JsonObject = {};
  let message: Span | null = null;
  let valid = true;
  const end = walkObject(bytes, skipWhitespace(bytes, 0), (keyStart, keyEnd, start, end) => {
    const key = INDEXED_KEYS.find(bytes, keyStart, keyEnd);
    if (key === null) return true;
    const first = bytes[start];
    const nested = first === 0x7b || first === 0x5b;
    if (key === 'message') {
      message = nested ? { start, end } : null;
      if (nested) {
        delete out.message;
        return true;
      }
    }
    valid = take(out, key, nested ? parseSpan(bytes, start, end) : decodeScalar(bytes, start, end));
    return valid;
  });
  if (!valid || end <= 0 || skipWhitespace(bytes, end) !== bytes.length) return null;
  if (message !== null) {
    const value = indexedMessage(bytes, message);
    if (value === undefined) return null;
    out.message = value;
  }
  return out;
}

/** Set `out[key]`; false when the value did not parse (the line then goes the old way). */
function take(out: JsonObject, key: string, value: unknown): boolean {
  if (value === undefined) return false;
  out[key] = value;
  return true;
}

/** A line's `message` object as the fold reads it (see `indexedValue`); undefined when a value taken is not JSON. */
function indexedMessage(bytes: Buffer, span: Span): unknown {
  if (bytes[span.start] !== 0x7b) return parseSpan(bytes, span.start, span.end);
  const out: JsonObject = {};
  let valid = true;
  const end = walkObject(bytes, span.start, (keyStart, keyEnd, start, end) => {
    const key = MESSAGE_KEYS.find(bytes, keyStart, keyEnd);
    if (key === null) return true;
    const first = bytes[start];
    const value = key === 'content' && first === 0x5b ? indexedBlocks(bytes, start) : first === 0x7b || first === 0x5b ? parseSpan(bytes, start, end) : decodeScalar(bytes, start, end);
    return (valid = take(out, key, value));
  });
  return valid && end > 0 ? out : undefined;
}

/** A content array: text blocks parsed whole, any other object as `{type}`, anything else as it is. */
function indexedBlocks(bytes: Buffer, open: number): unknown[] | undefined {
  const blocks: unknown[] = [];
  let valid = true;
  const end = walkArray(bytes, open, (start, end) => {
    if (bytes[start] !== 0x7b) {
      // contentBlocks keeps objects only: what else an array holds is never read.
      blocks.push(null);
      return true;
    }
    const type = memberSpan(bytes, start, 'type');
    const name = type === null ? null : bytes[type.start] === 0x22 ? decodeString(bytes, type.start, type.end) : null;
    if (name === 'text' || (type !== null && name === null)) {
      const block = parseSpan(bytes, start, end);
      if (block === undefined) return (valid = false);
      blocks.push(block);
    } else {
      blocks.push(name === null ? {} : { type: name });
    }
    return true;
  });
  return valid && end > 0 ? blocks : undefined;
}
