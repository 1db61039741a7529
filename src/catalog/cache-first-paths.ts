// The bytes of a catalog cache file's entry lines, looked at without decoding them (CacheFileIndex): where a line's
// first path is and its hash, and the byte tests those lookups make.
import { nativeEngine } from '../core/native.js';

export const QUOTE = 0x22;
export const NONE_OPENING = Buffer.from('{"none":[["');
const STORE_OPENING = Buffer.from('{"store":[["');
const PATHS_KEY = Buffer.from('"paths":["');

/** Where the JSON string opening at `open` (its quote) closes, before `end`; -1 when it does not. */
export function jsonStringEnd(bytes: Buffer, open: number, end: number): number {
  for (let at = open + 1; at < end; at++) {
    if (bytes[at] === 0x5c) at++;
    else if (bytes[at] === QUOTE) return at;
  }
  return -1;
}

/** firstPathSpan of the line [start, end) of bytes (native/cache-index.c answers the same). */
export function firstPathSpanIn(bytes: Buffer, start: number, end: number): FirstPathSpan | null {
  const open = firstPathOpening(bytes, start, end);
  if (open === -1) return null;
  let hash = HASH_SEED;
  let escaped = false;
  let close = open + 1;
  for (; close < end; close++) {
    const byte = bytes[close]!;
    if (byte === QUOTE) break;
    if (byte === BACKSLASH) escaped = true;
    hash = Math.imul(hash ^ byte, HASH_PRIME);
  }
  if (close >= end) return null;
  return { open, close, escaped, hash: hash & HASH_MASK };
}

/** Where the first path of the line [start, end) of bytes opens (its quote), or -1 when it is not where expected. */
export function firstPathOpening(bytes: Buffer, start: number, end: number): number {
  // Byte tests in JS, not Buffer calls: this runs once per entry of the file (100k at 100k sessions), and each
  // native call costs more than the few bytes it looks at.
  if (bytesAt(bytes, start, end, NONE_OPENING)) return start + NONE_OPENING.length - 1;
  if (bytesAt(bytes, start, end, STORE_OPENING)) return start + STORE_OPENING.length - 1;
  const key = firstIndexOf(bytes, PATHS_KEY, start, end);
  return key === -1 ? -1 : key + PATHS_KEY.length - 1;
}

/**
 * What firstPathLookups takes of each line in JS, as nativeFirstPathHashes answers it: the hash, FIRST_PATH_NONE or
 * FIRST_PATH_ESCAPED. For tests.
 */
export function firstPathHashesInJs(bytes: Buffer, starts: readonly number[], ends: readonly number[]): Int32Array {
  return Int32Array.from(starts, (start, at) => {
    const span = firstPathSpanIn(bytes, start, ends[at]!);
    return span === null ? FIRST_PATH_NONE : span.escaped ? FIRST_PATH_ESCAPED : span.hash;
  });
}

export interface FirstPathSpan {
  readonly open: number;
  readonly close: number;
  readonly escaped: boolean;
  readonly hash: number;
}

/** cacheFirstPaths' answers beside a hash: the line names no first path where expected, or names it with escapes. */
export const FIRST_PATH_NONE = -1;
export const FIRST_PATH_ESCAPED = -2;

/**
 * The first path's hash of every entry line as firstPathSpan would give it (native/cache-index.c, one call for all of
 * them), FIRST_PATH_NONE or FIRST_PATH_ESCAPED; null without the native engine (firstPathSpan then hashes each in JS).
 * Exported for tests.
 */
export function nativeFirstPathHashes(bytes: Buffer, starts: ArrayLike<number>, ends: ArrayLike<number>): Int32Array | null {
  const native = nativeEngine() as { cacheFirstPaths?: (bytes: Buffer, starts: Float64Array, ends: Float64Array, out: Int32Array) => void } | null;
  if (typeof native?.cacheFirstPaths !== 'function') return null;
  const out = new Int32Array(starts.length);
  native.cacheFirstPaths(bytes, starts instanceof Float64Array ? starts : Float64Array.from(starts), ends instanceof Float64Array ? ends : Float64Array.from(ends), out);
  return out;
}

/** Entry lines (places in entryStarts) by their first path: plain ones by its bytes' hash (`hashBytes`), file order kept. */
export interface FirstPathLookups {
  /** hash * LINE_SPAN + line, ascending: a hash's lines together, in file order. */
  readonly plain: Float64Array;
  readonly escaped: Map<string, number>;
}

export const BACKSLASH = 0x5c;
export const LONE_SURROGATE_MAYBE = /[\ud800-\udfff]/;
/** FNV-1a, 32 bits, kept to 30 (a small integer: a fast Map key). */
export const HASH_SEED = 0x811c9dc5;
export const HASH_PRIME = 0x01000193;
export const HASH_MASK = 0x3fffffff;
/** Above any line's place: hash * LINE_SPAN + line stays an exact integer in a double (2^30 hashes, 2^23 lines). */
export const LINE_SPAN = 2 ** 23;

export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = HASH_SEED;
  for (let at = from; at < to; at++) hash = Math.imul(hash ^ bytes[at]!, HASH_PRIME);
  return hash & HASH_MASK;
}

/** A path's UTF-8 bytes (as the cache file holds a path written without escapes). */
export function utf8Of(path: string): Buffer {
  return Buffer.from(path, 'utf8');
}

/** Whether `prefix` is at `at`, wholly before `end` (a loop: for short prefixes at many places). */
export function bytesAt(bytes: Buffer, at: number, end: number, prefix: Buffer): boolean {
  if (end - at < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (bytes[at + k] !== prefix[k]) return false;
  return true;
}

/** Where `needle` first is in `[from, end)`, or -1: a loop over the first bytes (an entry names its paths after its id and agent), then indexOf. */
export function firstIndexOf(bytes: Buffer, needle: Buffer, from: number, end: number): number {
  const first = needle[0]!;
  const near = Math.min(end - needle.length, from + 256);
  for (let at = from; at <= near; at++) if (bytes[at] === first && bytesAt(bytes, at, end, needle)) return at;
  if (near >= end - needle.length) return -1;
  const found = bytes.indexOf(needle, near + 1);
  return found === -1 || found + needle.length > end ? -1 : found;
}

/** Where `needle` is in [from, end) when it is there once (an encoded key or member: no string's text holds it), else -1. */
export function onlyPlaceOf(bytes: Buffer, needle: Buffer, from: number, end: number): number {
  // Searched in a view of the line: a search of the whole file for a needle it holds once runs to its end.
  const line = bytes.subarray(from, end);
  const at = line.indexOf(needle);
  return at === -1 || line.indexOf(needle, at + 1) !== -1 ? -1 : from + at;
}

export function startsWith(bytes: Buffer, at: number, prefix: Buffer): boolean {
  return bytes.length - at >= prefix.length && bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

/** Where a path's UTF-8 bytes are put for a lookup (firstLineOf): longer ones (past 4 KiB) get a buffer of their own. */
export const pathBytes = Buffer.alloc(4096);

/** A character JSON writes escaped (JSON.stringify: a quote, a backslash, a control character) or a lone surrogate's half. */
// eslint-disable-next-line no-control-regex -- the characters JSON.stringify escapes
export const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The first place in `plain` (ascending) holding `key` or more. */
export function firstWithKey(plain: Float64Array, key: number): number {
  let low = 0;
  for (let high = plain.length; low < high; ) {
    const middle = (low + high) >>> 1;
    if (plain[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}
