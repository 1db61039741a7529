/*
 * JSON read by its bytes, without parsing: where a string or a value ends, the members of an object, one key's
 * value. The session files are JSON lines, most of whose bytes are long strings (tool outputs, prompts, request
 * shapes) that a row never reads; stepping over them costs an `indexOf` per quote, parsing them costs a string each.
 *
 * Everything here works on raw UTF-8 bytes: a byte of a multi-byte character (or an invalid byte) is never 0x22,
 * 0x5c, a brace or a bracket, so only ASCII structure is looked at. Positions are byte indices; "end" is the index
 * just past a thing, and -1 means the bytes end (or break off) inside it. Nothing here checks that what it steps
 * over is valid JSON: a caller that must reject invalid lines parses the spans it takes (`parseSpan`).
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** The first index at or after `i` that is not JSON whitespace (`bytes.length` when none is left). */
export function skipWhitespace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isWhitespace(bytes[i])) i++;
  return i;
}

/** How many backslashes run back from just before `end` (not looking before `floor`). */
export function backslashesBefore(bytes: Uint8Array, end: number, floor = 0): number {
  let count = 0;
  for (let i = end - 1; i >= floor && bytes[i] === BACKSLASH; i--) count++;
  return count;
}

/**
 * The index of the first quote at or after `from` that is not escaped (an even run of backslashes before it),
 * or -1. Jumps from quote to quote natively: strings are most of a session line.
 */
export function unescapedQuoteFrom(bytes: Buffer, from: number): number {
  for (;;) {
    const at = bytes.indexOf(QUOTE, from);
    if (at === -1) return -1;
    if (backslashesBefore(bytes, at) % 2 === 0) return at;
    from = at + 1;
  }
}

/** The index of the last unescaped quote before `before` (not looking before `floor`), or -1. */
export function unescapedQuoteBefore(bytes: Buffer, before: number, floor = 0): number {
  for (let at = before - 1; at >= floor; at--) {
    at = bytes.lastIndexOf(QUOTE, at);
    if (at < floor) return -1;
    if (backslashesBefore(bytes, at) % 2 === 0) return at;
  }
  return -1;
}

/** The end of the string whose opening quote is at `open` (just past its closing quote), or -1 when it does not close. */
export function stringEnd(bytes: Buffer, open: number): number {
  const close = unescapedQuoteFrom(bytes, open + 1);
  return close === -1 ? -1 : close + 1;
}

/** The end of the object or array opened at `open`, or -1 when the bytes end inside it. */
export function nestedEnd(bytes: Buffer, open: number): number {
  let depth = 0;
  for (let j = open; j < bytes.length; j++) {
    const byte = bytes[j];
    if (byte === QUOTE) {
      const end = stringEnd(bytes, j);
      if (end === -1) return -1;
      j = end - 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * The end of the JSON value starting at `start` (a string, object, array, number, `true`, `false` or `null`), or
 * -1 when the bytes end inside it. A scalar that runs to the end of the bytes ends there when `final` (the bytes
 * are all there is), else -1 (more bytes may continue it).
 */
export function valueEnd(bytes: Buffer, start: number, final = true): number {
  const first = bytes[start];
  if (first === undefined) return -1;
  if (first === QUOTE) return stringEnd(bytes, start);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return nestedEnd(bytes, start);
  for (let j = start; j < bytes.length; j++) {
    const byte = bytes[j];
    if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isWhitespace(byte)) return j;
  }
  return final ? bytes.length : -1;
}

/** A value's bytes `[start, end)` parsed; `undefined` when they are not JSON. */
export function parseSpan(bytes: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', start, end)) as unknown;
  } catch {
    return undefined;
  }
}

/** A JSON string's body needs JSON.parse (an escape), or is not JSON (a raw control character or quote). */
// eslint-disable-next-line no-control-regex -- raw control characters are what makes a string body invalid
const NOT_PLAIN = /["\\\u0000-\u001f]/;

/** The string whose quotes are at `start` and `end - 1`, decoded; null when it is not a JSON string. */
export function decodeString(bytes: Buffer, start: number, end: number): string | null {
  if (end - start < 2 || bytes[start] !== QUOTE || bytes[end - 1] !== QUOTE) return null;
  // Most strings a scan decodes (keys, ids, timestamps, paths) have no escapes: decoded natively, no parse.
  const text = bytes.toString('utf8', start + 1, end - 1);
  if (!NOT_PLAIN.test(text)) return text;
  const value = parseSpan(bytes, start, end);
  return typeof value === 'string' ? value : null;
}

/** The scalar (string, number, `true`, `false`, `null`) at `[start, end)`, decoded; undefined when it is not JSON. */
export function decodeScalar(bytes: Buffer, start: number, end: number): unknown {
  const first = bytes[start];
  if (first === QUOTE) return decodeString(bytes, start, end) ?? undefined;
  const length = end - start;
  if (length === 4 && first === 0x74 && bytes[start + 1] === 0x72 && bytes[start + 2] === 0x75 && bytes[start + 3] === 0x65) return true;
  if (length === 5 && first === 0x66 && bytes.toString('latin1', start, end) === 'false') return false;
  if (length === 4 && first === 0x6e && bytes[start + 1] === 0x75 && bytes[start + 2] === 0x6c && bytes[start + 3] === 0x6c) return null;
  return parseSpan(bytes, start, end);
}

/** True when the key whose quotes are at `start` and `end - 1` is `name`: compared in bytes, decoded only when it must be. */
export function keyIs(bytes: Buffer, start: number, end: number, name: string): boolean {
  const from = start + 1;
  const to = end - 1;
  for (let k = from; k < to; k++) {
    const byte = bytes[k]!;
    if (byte === BACKSLASH || byte >= 0x80 || byte < 0x20) return decodeString(bytes, start, end) === name;
  }
  if (to - from !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (bytes[from + k] !== name.charCodeAt(k)) return false;
  return true;
}

/**
 * A set of ASCII key names looked up by a key's bytes, without decoding the key: a scan that walks every member
 * of every line keeps only a few, and a string per key would be most of its work.
 */
export class KeyNames {
  private readonly byLength = new Map<number, string[]>();

  constructor(names: Iterable<string>) {
    for (const name of names) {
      if (!/^[\x20-\x7e]*$/.test(name) || name.includes('\\') || name.includes('"')) throw new Error(`not a plain ASCII key: ${name}`);
      const list = this.byLength.get(name.length) ?? [];
      list.push(name);
      this.byLength.set(name.length, list);
    }
  }

  /** The name the key whose quotes are at `start` and `end - 1` is, or null when it is none of them. */
  find(bytes: Buffer, start: number, end: number): string | null {
    const from = start + 1;
    const to = end - 1;
    const candidates = this.byLength.get(to - from);
    if (candidates !== undefined) {
      for (const name of candidates) {
        let k = 0;
        while (k < name.length && bytes[from + k] === name.charCodeAt(k)) k++;
        if (k === name.length) return name;
      }
    }
    // A key written with escapes (`"\u0075uid"`) is longer than its name: decode it (JSON.stringify never does this).
    for (let k = from; k < to; k++) {
      if (bytes[k] !== BACKSLASH) continue;
      const key = decodeString(bytes, start, end);
      for (const list of this.byLength.values()) if (key !== null && list.includes(key)) return key;
      return null;
    }
    return null;
  }
}

/**
 * Called for each member of an object: its key's span `[keyStart, keyEnd)` (quotes included) and its value's span.
 * Return `false` to stop.
 */
export type MemberVisitor = (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number) => boolean | void;

/**
 * Walk the members of the object opened at `open` (the index of its `{`, after any whitespace). Returns the end
 * of the object (just past its `}`), `-1` when the bytes break off inside it or it is not an object, or `0` when
 * the visitor stopped the walk. Values are stepped over, not parsed.
 */
export function walkObject(bytes: Buffer, open: number, visit: MemberVisitor): number {
  if (bytes[open] !== OPEN_BRACE) return -1;
  let i = skipWhitespace(bytes, open + 1);
  if (bytes[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd === -1) return -1;
    const keyStart = i;
    i = skipWhitespace(bytes, keyEnd);
    if (bytes[i] !== COLON) return -1;
    const start = skipWhitespace(bytes, i + 1);
    const end = valueEnd(bytes, start, false);
    if (end === -1 || end === start) return -1;
    if (visit(keyStart, keyEnd, start, end) === false) return 0;
    i = skipWhitespace(bytes, end);
    if (bytes[i] === CLOSE_BRACE) return i + 1;
    if (bytes[i] !== COMMA) return -1;
    i = skipWhitespace(bytes, i + 1);
  }
}

/**
 * Walk the elements of the array opened at `open` (the index of its `[`): each element's span. Returns the end of
 * the array, `-1` when the bytes break off inside it or it is not an array, or `0` when the visitor stopped.
 */
export function walkArray(bytes: Buffer, open: number, visit: (start: number, end: number) => boolean | void): number {
  if (bytes[open] !== OPEN_BRACKET) return -1;
  let i = skipWhitespace(bytes, open + 1);
  if (bytes[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    const end = valueEnd(bytes, i, false);
    if (end === -1 || end === i) return -1;
    if (visit(i, end) === false) return 0;
    i = skipWhitespace(bytes, end);
    if (bytes[i] === CLOSE_BRACKET) return i + 1;
    if (bytes[i] !== COMMA) return -1;
    i = skipWhitespace(bytes, i + 1);
  }
}

/** A value's place in the bytes. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * The value of the member `name` of the object opened at `open`, found without parsing the object: the last one
 * when the key repeats (as JSON.parse keeps). Null when it is not there, or the object breaks off before its end.
 */
export function memberSpan(bytes: Buffer, open: number, name: string): Span | null {
  let found: Span | null = null;
  const end = walkObject(bytes, open, (keyStart, keyEnd, start, valueEnd) => {
    if (keyIs(bytes, keyStart, keyEnd, name)) found = { start, end: valueEnd };
  });
  return end === -1 ? null : found;
}

/** The value of the top-level member `name` of a JSON object line (see `memberSpan`). */
export function topLevelSpan(line: Buffer, name: string): Span | null {
  return memberSpan(line, skipWhitespace(line, 0), name);
}

/** Spans of every top-level `"name": "<string>"` value in a JSON object line (quotes included), in order. */
export function topLevelStringSpans(line: Buffer, name: string): Span[] {
  const spans: Span[] = [];
  walkObject(line, skipWhitespace(line, 0), (keyStart, keyEnd, start, end) => {
    if (line[start] === QUOTE && keyIs(line, keyStart, keyEnd, name)) spans.push({ start, end });
  });
  return spans;
}

/**
 * The top-level scalar members (strings, numbers, booleans, null) of a JSON object line whose keys are in `keys`,
 * decoded; objects and arrays are stepped over, never parsed. Null when the line is not one whole JSON object
 * or a kept value is not JSON.
 */
export function topLevelScalars(line: Buffer, keys: ReadonlySet<string>): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let valid = true;
  const end = walkObject(line, skipWhitespace(line, 0), (keyStart, keyEnd, start, valueEnd) => {
    const first = line[start];
    if (first === OPEN_BRACE || first === OPEN_BRACKET) return;
    const key = decodeString(line, keyStart, keyEnd);
    if (key === null || !keys.has(key)) return;
    const value = first === QUOTE ? decodeString(line, start, valueEnd) : parseSpan(line, start, valueEnd);
    if (value === null && first === QUOTE) valid = false;
    else if (value === undefined) valid = false;
    else out[key] = value;
    return valid;
  });
  return valid && end > 0 && skipWhitespace(line, end) === line.length ? out : null;
}
