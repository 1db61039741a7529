import { closeSync, fstatSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openRegular, openRegularSync } from './regular.js';

/** One line of a file, without its line terminator (LF or CRLF). */
export interface RawLine {
  /** Byte offset of the line's first byte in the file. */
  readonly offset: number;
  /** The line's bytes, terminator excluded. */
  readonly bytes: Buffer;
  /** False for a last line with no newline yet: an agent may still be writing it. */
  readonly terminated: boolean;
}

export interface ReadLinesOptions {
  /** First byte to read (must be a line start). */
  readonly start?: number;
  /** Stop before this byte (exclusive); a line crossing it is not returned. */
  readonly end?: number;
  readonly chunkSize?: number;
  /**
   * Read every chunk into one buffer: a line's bytes are then valid only until the next line is asked for, and a
   * reader that keeps lines must copy them. Saves allocating (and collecting) the file's size in buffers.
   */
  readonly reuseChunk?: boolean;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

function stripCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
}

/**
 * Stream a file's lines with their byte offsets. Lines of any length are joined across chunks; a last line
 * without a newline is returned with `terminated: false`. Bytes are never decoded here.
 */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<RawLine> {
  const chunkSize = options.chunkSize ?? 1 << 20;
  const handle = await openRegular(path);
  try {
    const end = options.end ?? (await handle.stat()).size;
    let position = options.start ?? 0;
    let lineStart = position;
    let pending: Buffer[] = [];
    let shared: Buffer | null = null;
    while (position < end) {
      const length = Math.min(chunkSize, end - position);
      const chunk = options.reuseChunk ? (shared ??= Buffer.allocUnsafeSlow(chunkSize)) : Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(chunk, 0, length, position);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let from = 0;
      for (let nl = data.indexOf(NEWLINE, from); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
        const piece = data.subarray(from, nl);
        const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        yield { offset: lineStart, bytes: stripCr(bytes), terminated: true };
        lineStart = position + nl + 1;
        from = nl + 1;
      }
      if (from < data.length) pending.push(options.reuseChunk ? Buffer.from(data.subarray(from)) : data.subarray(from));
      position += bytesRead;
    }
    // With an explicit end, a line crossing it belongs to a later reader.
    if (pending.length > 0 && options.end === undefined) {
      yield { offset: lineStart, bytes: stripCr(Buffer.concat(pending)), terminated: false };
    }
  } finally {
    await handle.close();
  }
}

/** Split an in-memory buffer (starting at file offset `base`) into lines. */
export function splitLines(data: Buffer, base = 0, lastIsTerminated = false): RawLine[] {
  const lines: RawLine[] = [];
  let from = 0;
  for (let nl = data.indexOf(NEWLINE, from); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
    lines.push({ offset: base + from, bytes: stripCr(data.subarray(from, nl)), terminated: true });
    from = nl + 1;
  }
  if (from < data.length) {
    lines.push({ offset: base + from, bytes: stripCr(data.subarray(from)), terminated: lastIsTerminated });
  }
  return lines;
}

export interface HeadTail {
  readonly size: number;
  readonly mtimeMs: number;
  /** Complete lines from the start of the file. */
  readonly head: readonly RawLine[];
  /** Complete lines from the end of the file (empty when `whole`). */
  readonly tail: readonly RawLine[];
  /** True when head covers the whole file: counts taken from it are exact. */
  readonly whole: boolean;
}

/** Read `length` bytes at `position` (fewer at the end of the file). */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * Read a file's first `headBytes` and last `tailBytes` as lines: what listing needs, without a full read.
 * A first line longer than the head budget is read to its end (the session header must be whole).
 * The head never returns a line cut by the budget; the tail drops its first (cut) line.
 * Synchronous reads inside: listing does this for thousands of small reads, where promise-based file
 * handles cost more main-thread time than the reading itself.
 */
export async function readHeadTail(path: string, headBytes: number, tailBytes: number): Promise<HeadTail> {
  const fd = openRegularSync(path);
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    if (size <= headBytes + tailBytes) {
      const data = readAtSync(fd, 0, size);
      return { size, mtimeMs: stat.mtimeMs, head: splitLines(data), tail: [], whole: true };
    }
    let head = readAtSync(fd, 0, headBytes);
    let firstNewline = head.indexOf(NEWLINE);
    // The first record (session header) can be huge; grow the head until it holds one whole line.
    while (firstNewline === -1 && head.length < size) {
      const more = readAtSync(fd, head.length, Math.min(Math.max(head.length, 1 << 20), size - head.length));
      const base = head.length;
      head = Buffer.concat([head, more]);
      const nl = more.indexOf(NEWLINE);
      firstNewline = nl === -1 ? -1 : base + nl;
    }
    if (head.length >= size - tailBytes) {
      // The grown head reached the tail: treat as whole.
      const rest = readAtSync(fd, head.length, size - head.length);
      return { size, mtimeMs: stat.mtimeMs, head: splitLines(Buffer.concat([head, rest])), tail: [], whole: true };
    }
    const lastNewline = head.lastIndexOf(NEWLINE);
    const headLines = splitLines(head.subarray(0, lastNewline + 1));
    const tailStart = size - tailBytes;
    const tailData = readAtSync(fd, tailStart, tailBytes);
    const firstTailNewline = tailData.indexOf(NEWLINE);
    const tail = firstTailNewline === -1 ? [] : splitLines(tailData.subarray(firstTailNewline + 1), tailStart + firstTailNewline + 1);
    return { size, mtimeMs: stat.mtimeMs, head: headLines, tail, whole: false };
  } finally {
    closeSync(fd);
  }
}

function readAtSync(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = readSync(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Decode a line as UTF-8 (invalid bytes become U+FFFD) and parse it; undefined when it is not JSON. */
export function parseJsonLine(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

export interface JsonLine {
  readonly offset: number;
  readonly bytes: Buffer;
  readonly value: Record<string, unknown>;
}

/** Counts of what a JSONL read skipped. */
export interface LineStats {
  malformed: number;
  /** An unterminated last line that does not parse yet (being written). */
  partial: number;
}

/** Parse raw lines as JSON objects, skipping (and counting) blank, malformed and partial ones. */
export function* jsonObjects(lines: Iterable<RawLine>, stats: LineStats): Generator<JsonLine> {
  for (const line of lines) {
    if (line.bytes.length === 0 || isBlank(line.bytes)) continue;
    const value = parseJsonLine(line.bytes);
    if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
      if (line.terminated) stats.malformed++;
      else stats.partial++;
      continue;
    }
    yield { offset: line.offset, bytes: line.bytes, value: value as Record<string, unknown> };
  }
}

/** Read a whole JSONL file as objects (streaming underneath); malformed lines are skipped and counted. */
export async function readJsonLines(path: string, stats: LineStats, options: ReadLinesOptions = {}): Promise<JsonLine[]> {
  const out: JsonLine[] = [];
  for await (const line of readLines(path, options)) {
    for (const object of jsonObjects([line], stats)) out.push(object);
  }
  return out;
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== CR) return false;
  return true;
}

export function newLineStats(): LineStats {
  return { malformed: 0, partial: 0 };
}
