// A catalog cache file's line index (CacheFileIndex.openSync): what a whole read of the cache works out before its
// first lookup (its shared strings, where each entry line is, the lines by their first path), kept beside it for the
// file it was made from, so that a grep matching a few sessions reads a few MB and the lines it looks up, not the
// whole cache (68 MB at 100k sessions, read and walked for each grep).
import { createHash } from 'node:crypto';
import { closeSync, fstatSync } from 'node:fs';
import { replaceCacheFileSync } from '../core/io/atomic.js';
import { readAtSync } from '../core/io/lines.js';
import { readOpenBytesSync, readRegularBytesSync } from '../core/io/regular.js';

const NEWLINE = 0x0a;

/** The line index of a cache file (`CacheFileIndex.openSync`): beside it, under its name. */
export function linesIndexPath(cachePath: string): string {
  return `${cachePath.replace(/\.jsonl?$/, '')}.lines`;
}

/** The line index's format: a JSON header line, then its numbers (Float64, from a multiple of 8). */
const LINES_VERSION = 1;

/** A cache file open while its lines are read one by one; fd -1 once closed. */
export interface LineReader {
  fd: number;
  /** Its size when its line index was made. */
  readonly size: number;
}

/** A reader dropped unclosed (its cache was let go before reading the file whole) closes its file. */
export const LINE_READERS = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
});

/** What a line index holds (see writeLinesIndex). */
export interface SavedLines {
  readonly size: number;
  /** Whether the file open at `fd` holds the bytes the index was made with around its entry lines (see `edgesOfFileHold`). */
  readonly edgesHold: (fd: number) => boolean;
  readonly table: readonly string[];
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  readonly plain: Float64Array;
  readonly escaped: Map<string, number>;
}

/**
 * The file open at `fd`, named by what changes whenever it is written anew or in place: its device, inode, size,
 * and modification and change times in nanoseconds (the cache is written to a temp file renamed over it: a new inode).
 */
export function fileIdentity(fd: number): string {
  const stats = fstatSync(fd, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** The line index at `path` when it was made for the file of `identity` and is whole; null otherwise. */
export function readLinesIndex(path: string, identity: string): SavedLines | null {
  const file = readNumbersFile(readRegularBytesSync(path));
  if (file === null) return null;
  const { header, numbers } = file;
  const { size, lines, plain, table, escaped, head, tail } = header;
  if (typeof head !== 'string' || typeof tail !== 'string') return null;
  if (header.version !== LINES_VERSION || header.identity !== identity || typeof size !== 'number' || typeof lines !== 'number' || typeof plain !== 'number') return null;
  if (!Array.isArray(table) || !table.every((one) => typeof one === 'string') || !Array.isArray(escaped)) return null;
  if (!Number.isInteger(lines) || !Number.isInteger(plain) || lines < 0 || plain < 0 || numbers.length !== 2 * lines + plain) return null;
  const byPath = new Map<string, number>();
  for (const pair of escaped as unknown[]) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'number') return null;
    byPath.set(pair[0], pair[1]);
  }
  const starts = numbers.subarray(0, lines);
  const ends = numbers.subarray(lines, 2 * lines);
  const edgesHold = (fd: number): boolean => edgesOfFileHold(fd, size, starts, ends, head, tail);
  return { size, edgesHold, table: table as string[], starts, ends, plain: numbers.subarray(2 * lines), escaped: byPath };
}

/**
 * A file writeNumbersFile wrote: its header line parsed, and its numbers, copied into numbers of their own (the read
 * buffer need not start at a multiple of 8), with their bytes as read; null when it is not one.
 */
export function readNumbersFile(bytes: Buffer): { readonly header: Record<string, unknown>; readonly numbers: Float64Array; readonly numberBytes: Buffer } | null {
  const newline = bytes.indexOf(NEWLINE);
  if (newline === -1) return null;
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', 0, newline));
  } catch {
    return null;
  }
  if (header === null || typeof header !== 'object') return null;
  const numbersAt = Math.ceil((newline + 1) / 8) * 8;
  if (bytes.length < numbersAt || (bytes.length - numbersAt) % 8 !== 0) return null;
  const numberBytes = bytes.subarray(numbersAt);
  const numbers = new Float64Array(numberBytes.length / 8);
  new Uint8Array(numbers.buffer).set(numberBytes);
  return { header: header as Record<string, unknown>, numbers, numberBytes };
}

/**
 * Whether the bytes of the file open at `fd` (of `size` bytes when its index was made) around its entry lines
 * (`starts`, `ends`) still have the digests its index holds: before the first entry line (its version and shared
 * strings) and after the last (its end line, which counts them). The file an index was made for is told by them as
 * well as by its identity (an inode used again, a time within the clock's tick). Lines out of order or past `size`:
 * not the file.
 */
export function edgesOfFileHold(fd: number, size: number, starts: ArrayLike<number>, ends: ArrayLike<number>, head: string, tail: string): boolean {
  const lines = starts.length;
  const headEnd = lines > 0 ? starts[0]! : size;
  const tailStart = lines > 0 ? ends[lines - 1]! : size;
  if (!(headEnd >= 0 && headEnd <= tailStart && tailStart <= size)) return false;
  return digestOf(readAtSync(fd, 0, headEnd)) === head && digestOf(readAtSync(fd, tailStart, size - tailStart)) === tail;
}

/** A digest of bytes, as the indexes hold them. */
export function digestOf(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** The whole file open at `fd` (only read at positions before: its position is still its start). */
export function readWholeSync(fd: number): Buffer {
  return readOpenBytesSync(fd, Number(fstatSync(fd).size));
}

/** What a line index is made of (see CacheFileIndex): the cache's bytes, its shared strings, its entry lines' places, its lookups by first path. */
export interface LinesOfCache {
  readonly bytes: Buffer;
  readonly table: readonly string[];
  readonly starts: ArrayLike<number>;
  readonly ends: ArrayLike<number>;
  /** hash * LINE_SPAN + line, ascending (FirstPathLookups.plain). */
  readonly plain: Float64Array;
  readonly escaped: ReadonlyMap<string, number>;
}

/** The bytes of a cache file around its entry lines, whose digests its index holds (see edgesOfFileHold). */
function edgesOf(bytes: Buffer, starts: ArrayLike<number>, ends: ArrayLike<number>): { readonly head: Buffer; readonly tail: Buffer } {
  const lines = starts.length;
  return { head: bytes.subarray(0, lines > 0 ? starts[0]! : bytes.length), tail: lines > 0 ? bytes.subarray(ends[lines - 1]!, bytes.length) : Buffer.alloc(0) };
}

/**
 * Write the line index of the cache whose bytes are `lines.bytes` (the file of `identity`) at `path`: a JSON header
 * line (its identity, the digests of its edges, its shared strings, its escaped first paths), then the numbers as
 * Float64 from a multiple of 8: the lines' starts, their ends, the plain lookups. Temp file + rename; a failure only
 * costs the next open a whole read.
 */
export function writeLinesIndex(path: string, identity: string, lines: LinesOfCache): void {
  const { bytes, table, starts, ends, plain, escaped } = lines;
  const { head, tail } = edgesOf(bytes, starts, ends);
  const header = Buffer.from(`${JSON.stringify({ version: LINES_VERSION, identity, size: bytes.length, head: digestOf(head), tail: digestOf(tail), lines: starts.length, plain: plain.length, table, escaped: [...escaped] })}\n`);
  const count = 2 * starts.length + plain.length;
  const numbers = new Float64Array(count);
  numbers.set(starts, 0);
  numbers.set(ends, starts.length);
  numbers.set(plain, 2 * starts.length);
  writeNumbersFile(path, header, Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength));
}

/**
 * Write a cache's index at `path`: the `header` line, then `numbers` (Float64 bytes) from a multiple of 8, so a reader
 * can view them in place. Temp file + rename; a failure only costs the next open a whole read of the cache.
 */
export function writeNumbersFile(path: string, header: Buffer, numbers: Buffer): void {
  const numbersAt = Math.ceil(header.length / 8) * 8;
  const out = Buffer.alloc(numbersAt + numbers.length, 0x20);
  header.copy(out, 0);
  numbers.copy(out, numbersAt);
  replaceCacheFileSync(path, out);
}
