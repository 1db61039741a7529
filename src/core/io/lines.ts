import { closeSync, read, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openRegular, openRegularSync, openRegularWithStatsSync } from './regular.js';
import { giantLineClip, StreamingClipper } from './clip-stream.js';

/** One line of a file, without its line terminator (LF or CRLF). */
export interface RawLine {
  /** Byte offset of the line's first byte in the file. */
  readonly offset: number;
  /** The line's bytes, terminator excluded. */
  readonly bytes: Buffer;
  /** False for a last line with no newline yet: an agent may still be writing it. */
  readonly terminated: boolean;
  /** The line's length in the file, when `bytes` is shorter: a giant line a display or index read clipped (clip-stream.ts). */
  readonly fileLength?: number;
}

export interface ReadLinesOptions {
  /** First byte to read (must be a line start). */
  readonly start?: number;
  /** Stop before this byte (exclusive); a line crossing it is not returned. */
  readonly end?: number;
  readonly chunkSize?: number;
  /** A smaller first read (a screen shows a file's start before a whole chunk of it is read). */
  readonly firstChunkSize?: number;
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
  for await (const lines of readLineBatches(path, options)) yield* lines;
}

/**
 * `readLines` a chunk at a time: the lines that end in each chunk read (a line longer than a chunk comes with the
 * chunk it ends in). A reader that folds every line of a big file awaits once per chunk, not once per line (a
 * 200 MB session is ~300k lines). With `reuseChunk`, a batch's bytes are valid until the next batch is asked for.
 */
export async function* readLineBatches(path: string, options: ReadLinesOptions = {}): AsyncGenerator<RawLine[]> {
  for await (const chunk of readLineChunks(path, options)) {
    const lines = chunkLines(chunk);
    if (lines.length > 0) yield lines;
  }
}

/** The lines one chunk read ends: the line it completes (`joined`), then its whole lines, each a view of its bytes. */
export function chunkLines(chunk: LineChunk): RawLine[] {
  const lines: RawLine[] = chunk.joined === null ? [] : [chunk.joined];
  const { data, base } = chunk;
  for (let from = chunk.from, nl = data.indexOf(NEWLINE, from); from < chunk.to; from = nl + 1, nl = data.indexOf(NEWLINE, from)) {
    lines.push({ offset: base + from, bytes: stripCr(data.subarray(from, nl)), terminated: true });
  }
  return lines;
}

/**
 * What one chunk read ends: the line begun in an earlier chunk that ends in it (joined, or clipped when giant:
 * `joined`), then the lines wholly in it, `data[from, to)`, each ended by a newline (a CR before it not the line's),
 * `base` the file offset of `data[0]`. The unterminated last line of a file comes last, as `joined`.
 */
export interface LineChunk {
  readonly joined: RawLine | null;
  readonly data: Buffer;
  readonly from: number;
  readonly to: number;
  readonly base: number;
}

const NO_BYTES = Buffer.alloc(0);

/**
 * A file's lines a chunk at a time, as byte ranges (a reader can judge a chunk's lines at once, natively): see
 * `readLineBatches`, which makes them lines.
 */
export async function* readLineChunks(path: string, options: ReadLinesOptions = {}): AsyncGenerator<LineChunk> {
  const chunkSize = options.chunkSize ?? 1 << 20;
  const handle = await openRegular(path);
  /** The read of the next chunk, started before the lines of this one are handed out (the file is read while they are folded). */
  let ahead: Promise<ChunkRead> | null = null;
  try {
    const end = options.end ?? (await handle.stat()).size;
    let position = options.start ?? 0;
    let lineStart = position;
    // A line's start while its end is not read yet (a view of the chunk, or a copy when chunks are reused).
    const pending = new PendingLine(options.reuseChunk === true);
    // With reuseChunk, two buffers in turn: one holds the batch handed out, the other is being read into.
    const shared: (Buffer | null)[] = [null, null];
    let turn = 0;
    let size = Math.min(chunkSize, options.firstChunkSize ?? chunkSize);
    const readAt = (at: number): Promise<ChunkRead> => {
      const length = Math.min(size, end - at);
      size = chunkSize;
      let chunk: Buffer;
      if (options.reuseChunk) {
        chunk = shared[turn] ??= Buffer.allocUnsafeSlow(chunkSize);
        turn = 1 - turn;
      } else {
        chunk = Buffer.allocUnsafe(length);
      }
      // A failed read is kept, not left rejected: it may fail while no one awaits it yet (an unhandled rejection).
      return handle.read(chunk, 0, length, at).then(
        ({ bytesRead }) => ({ chunk, bytesRead, error: null }),
        (error: unknown) => ({ chunk, bytesRead: 0, error }),
      );
    };
    if (position < end) ahead = readAt(position);
    while (ahead !== null) {
      const { chunk, bytesRead, error } = await ahead;
      ahead = null;
      if (error !== null) throw error;
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let joined: RawLine | null = null;
      let from = 0;
      const first = data.indexOf(NEWLINE);
      if (first !== -1 && !pending.isEmpty()) {
        joined = pending.line(lineStart, data.subarray(0, first));
        lineStart = position + first + 1;
        from = first + 1;
      }
      const last = first === -1 ? -1 : data.lastIndexOf(NEWLINE);
      const to = last >= from ? last + 1 : from;
      if (to > from) lineStart = position + to;
      if (to < data.length) pending.add(data.subarray(to));
      const base = position;
      position += bytesRead;
      // The next read goes into the other buffer: this batch's bytes stay as they are until the next one is asked for.
      if (position < end) ahead = readAt(position);
      if (joined !== null || to > from) yield { joined, data, from, to, base };
    }
    // With an explicit end, a line crossing it belongs to a later reader.
    const partial = options.end === undefined ? pending.partial(lineStart) : null;
    if (partial !== null) yield { joined: partial, data: NO_BYTES, from: 0, to: 0, base: lineStart };
  } finally {
    // A reader that stopped early: the read started ahead ends before the file is closed.
    await ahead;
    await handle.close();
  }
}

/**
 * A line whose end is not read yet, a chunk's rest at a time: the parts are held (views, or copies when chunks are
 * reused), or, in a display or index read (clip-stream.ts), clipped as they come once the line is giant.
 */
class PendingLine {
  private parts: Buffer[] = [];
  /** Bytes of the line so far, in the file. */
  private length = 0;
  private clipper: StreamingClipper | null = null;
  private readonly giant = giantLineClip();

  constructor(private readonly copy: boolean) {}

  add(rest: Buffer): void {
    this.length += rest.length;
    if (this.clipper !== null) {
      this.clipper.push(rest);
      return;
    }
    this.parts.push(this.copy ? Buffer.from(rest) : rest);
    if (this.giant !== undefined && this.length > this.giant.from) {
      this.clipper = new StreamingClipper(this.giant.keep);
      for (const part of this.parts) this.clipper.push(part);
      this.parts = [];
    }
  }

  isEmpty(): boolean {
    return this.length === 0 && this.clipper === null;
  }

  /** The line that `last` (up to its newline) ends, starting at `offset`; the next one starts empty. */
  line(offset: number, last: Buffer): RawLine {
    const length = this.length + last.length;
    let line: RawLine;
    if (this.clipper !== null) {
      this.clipper.push(last);
      line = { offset, bytes: stripCr(this.clipper.end()), terminated: true, fileLength: length };
    } else {
      line = { offset, bytes: stripCr(this.parts.length === 0 ? last : Buffer.concat([...this.parts, last])), terminated: true };
    }
    this.parts = [];
    this.length = 0;
    this.clipper = null;
    return line;
  }

  /** The last line of a file with no newline yet, or null. */
  partial(offset: number): RawLine | null {
    if (this.clipper !== null) return { offset, bytes: stripCr(this.clipper.end()), terminated: false, fileLength: this.length };
    return this.parts.length === 0 ? null : { offset, bytes: stripCr(Buffer.concat(this.parts)), terminated: false };
  }
}

/** One chunk read by readLineBatches: its bytes, or why they could not be read. */
interface ChunkRead {
  readonly chunk: Buffer;
  readonly bytesRead: number;
  readonly error: unknown;
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

export function readAtSync(fd: number, position: number, length: number, counted = false): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = readSync(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (counted) indexReads.bytes += filled;
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
  /** As RawLine.fileLength: set when `bytes` is a clipped giant line. */
  readonly fileLength?: number;
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
    yield { offset: line.offset, bytes: line.bytes, value: value as Record<string, unknown>, ...(line.fileLength === undefined ? {} : { fileLength: line.fileLength }) };
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

/**
 * Bytes the index has read from session files since the process started (`foldLines` and `headFingerprint`):
 * a test reads it to prove that one appended turn costs the appended bytes, not the file.
 */
export const indexReads = { bytes: 0 };

/** How many first bytes of a file its fingerprint covers. */
export const FINGERPRINT_BYTES = 64;

/**
 * A short fingerprint of a file's first bytes (FNV-1a of up to 64 bytes, with their count): a file that kept
 * its size and mtime but was rewritten from the start no longer matches its cache entry.
 */
export function headFingerprint(path: string): string {
  const fd = openRegularSync(path);
  try {
    return fingerprintOf(readAtSync(fd, 0, FINGERPRINT_BYTES, true));
  } finally {
    closeSync(fd);
  }
}

/**
 * A whole file's bytes up to the size fstat gave when it was opened, with that stamp and the fingerprint of its first
 * bytes (headFingerprint's), read synchronously: a small file read whole for the index (claw's legacy JSON).
 */
export function readWholeFileSync(path: string): { readonly data: Buffer; readonly size: number; readonly mtimeMs: number; readonly fingerprint: string } {
  const { fd, stats } = openRegularWithStatsSync(path);
  try {
    const data = readAtSync(fd, 0, stats.size, true);
    return { data, size: stats.size, mtimeMs: stats.mtimeMs, fingerprint: fingerprintOf(data.subarray(0, FINGERPRINT_BYTES)) };
  } finally {
    closeSync(fd);
  }
}

export function fingerprintOf(head: Buffer): string {
  let hash = 0x811c9dc5;
  for (const byte of head) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return fingerprintText(head.length, hash);
}

/** A fingerprint as the cache writes it, from the bytes' count and their FNV-1a hash (the native stamps' too). */
export function fingerprintText(length: number, hash: number): string {
  return `${length.toString(16)}:${hash.toString(16).padStart(8, '0')}`;
}

export interface FoldedFile {
  readonly size: number;
  readonly mtimeMs: number;
  /** Offset just past the last newline read: where an appended read goes on. */
  readonly end: number;
  /** Fingerprint of the file's first bytes (see headFingerprint). */
  readonly fingerprint: string;
  /** The last line when it has no newline yet (an agent may be writing it), else null. Not passed to `onLine`. */
  readonly partial: RawLine | null;
}

/**
 * Every line of `data[from, to)` (each ended by a newline; a CR before it is not the line's), `base` the file offset
 * of `data[0]`: `foldLines` hands a chunk's lines over at once to a reader that judges them together (natively).
 * The bytes are valid only during the call.
 */
export type LineBatch = (data: Buffer, from: number, to: number, base: number) => void;

/** Files up to this size are read with one synchronous read: thousands of small async reads cost more than reading. */
const SYNC_READ_MAX = 1 << 20;

/**
 * Stream every complete line of a file from `start` (a line start) to its end into `onLine`, once: the index's
 * one pass. A line's bytes are valid only during the call (chunks are reused). The unterminated last line, if
 * any, is returned, not folded: the caller decides (a fold that is saved must stop before it).
 */
export async function foldLines(path: string, start: number, onLine: (line: RawLine) => void, onBatch?: LineBatch): Promise<FoldedFile> {
  // Synchronous open, stat and close: for thousands of small files a FileHandle's promises cost more than reading.
  // The fstat the safe open took is the file's stamp as opened (a second one cost ~5 µs a file: 0.5 s at 100k).
  const { fd, stats: info } = openRegularWithStatsSync(path);
  try {
    const size = info.size;
    if (start > size) throw new Error(`file shrank below byte ${start}`);
    let head: Buffer;
    let position = start;
    let lineStart = start;
    // Chunks are reused: a line's start is copied.
    const pending = new PendingLine(true);
    const consume = (data: Buffer): void => {
      let from = 0;
      if (onBatch !== undefined) {
        // The line begun in the last chunk alone, then every line ending in this one at once.
        const nl = pending.isEmpty() ? -1 : data.indexOf(NEWLINE);
        if (nl !== -1) {
          onLine(pending.line(lineStart, data.subarray(0, nl)));
          lineStart = position + nl + 1;
          from = nl + 1;
        }
        const last = pending.isEmpty() ? data.lastIndexOf(NEWLINE) : -1;
        if (last >= from) {
          onBatch(data, from, last + 1, position);
          lineStart = position + last + 1;
          from = last + 1;
        }
      }
      for (let nl = data.indexOf(NEWLINE, from); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
        onLine(pending.line(lineStart, data.subarray(from, nl)));
        lineStart = position + nl + 1;
        from = nl + 1;
      }
      if (from < data.length) pending.add(data.subarray(from));
      position += data.length;
    };
    if (size - start <= SYNC_READ_MAX) {
      const data = readAtSync(fd, start, size - start, true);
      head = start === 0 ? data.subarray(0, FINGERPRINT_BYTES) : readAtSync(fd, 0, FINGERPRINT_BYTES, true);
      consume(data);
    } else {
      head = readAtSync(fd, 0, FINGERPRINT_BYTES, true);
      // Two chunks: the next one is being read (off the main thread) while the lines of this one are folded.
      const chunks = [Buffer.allocUnsafeSlow(SYNC_READ_MAX), Buffer.allocUnsafeSlow(SYNC_READ_MAX)];
      const readChunk = (k: number, at: number): Promise<number> =>
        new Promise((resolve, reject) => read(fd, chunks[k % 2]!, 0, Math.min(SYNC_READ_MAX, Math.max(0, size - at)), at, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
      let next = readChunk(0, position);
      for (let k = 0; position < size; k++) {
        const bytesRead = await next;
        if (bytesRead === 0) break;
        indexReads.bytes += bytesRead;
        const nextAt = position + bytesRead;
        if (nextAt < size) next = readChunk(k + 1, nextAt);
        consume(chunks[k % 2]!.subarray(0, bytesRead));
      }
      // A read still in flight (the loop left early) must finish before the descriptor is closed.
      await next.catch(() => 0);
    }
const partial = pending.partial(lineStart);
    return { size: position, mtimeMs: info.mtimeMs, end: lineStart, fingerprint: fingerprintOf(head), partial };
  } finally {
    closeSync(fd);
  }
}

/** A fold of a JSONL file's values (`foldJsonLines`): the file, its skipped lines, and its unterminated last line. */
export interface FoldedJsonLines {
  readonly file: FoldedFile;
  readonly stats: LineStats;
  /** Hands the unterminated last line over (a fold that is saved stops before it): counted partial if it is no value. */
  takePartial(): void;
}

/**
 * Every complete line of a file from `start` parsed and handed to `add` with its offset, blank lines skipped; a line
 * `add` does not take (false: not JSON, or not a record of the format) is counted malformed.
 */
export async function foldJsonLines(path: string, start: number, add: (value: unknown, offset: number) => boolean): Promise<FoldedJsonLines> {
  const stats = newLineStats();
  const take = (bytes: Buffer, offset: number, terminated: boolean): void => {
    if (bytes.length === 0 || bytes.every((byte) => byte === 0x20 || byte === 0x09)) return;
    if (add(parseJsonLine(bytes), offset)) return;
    if (terminated) stats.malformed++;
    else stats.partial++;
  };
  const file = await foldLines(path, start, (line) => take(line.bytes, line.offset, true));
  return { file, stats, takePartial: () => (file.partial === null ? undefined : take(file.partial.bytes, file.partial.offset, false)) };
}
