import { closeSync } from 'node:fs';
import { dirname } from 'node:path';
import { readAtSync } from '../core/io/lines.js';
import { openRegularWithStatsSync, readRegularBytesSync, readRegularFile } from '../core/io/regular.js';
import type { CacheEntry, FileStamp } from './cache-entry.js';
import { CACHE_VERSION, cachedEntry, decodeEntry, decodeNone, decodeStore, type CachedEntry } from './cache-file.js';
import { folderNeedle, keyedNeedle, keyedPair, readKeysIndex, type SavedKeys } from './cache-keys-index.js';
import { BACKSLASH, FIRST_PATH_ESCAPED, FIRST_PATH_NONE, firstPathOpening, firstPathSpanIn, firstWithKey, hashBytes, jsonStringEnd, LINE_SPAN, LONE_SURROGATE_MAYBE, nativeFirstPathHashes, NEEDS_ESCAPE, NONE_OPENING, pathBytes, onlyPlaceOf, QUOTE, startsWith, utf8Of, type FirstPathLookups, type FirstPathSpan } from './cache-first-paths.js';
import { fileIdentity, LINE_READERS, linesIndexPath, readLinesIndex, readWholeSync, writeLinesIndex, type LineReader, type SavedLines } from './cache-lines-index.js';

const NEWLINE = 0x0a;
const STRING_OPENING = Buffer.from('["s",');
const END_OPENING = Buffer.from('{"end":');
const ID_OPENING = Buffer.from('{"id":');
const STAMPS_KEY = Buffer.from('"stamps":');
const LINEAGE_KEY = Buffer.from('"lineage":');

/**
 * The cache file's bytes, with its entries found without decoding them (`show` of one id on a 10k-session home:
 * decoding all of them is ~170 ms). One walk over the lines checks the file as `load` does (version, end line, entry
 * count) and decodes the shared strings; an entry is found by bytes it holds (searched at memchr speed: its id, a
 * file's path, a member) and decoded when it is asked for. An entry that does not decode makes the lookup fail.
 */
export class CacheFileIndex {
  private constructor(
    readonly path: string,
    /** The whole file, or null while only its lines are read (opened from its line index: `openSync`). */
    private wholeBytes: Buffer | null,
    private readonly table: readonly string[],
    /** Where each entry line starts, in file order. */
    private readonly entryStarts: ArrayLike<number>,
    /** Where each entry line ends (its newline, or the end of the bytes), in the same order. */
    private readonly entryEnds: ArrayLike<number>,
    /** The file, open, while its lines are read one by one (see `lineOf`). */
    private readonly reader: LineReader | null = null,
  ) {}

  /** Entry lines by the first path they name (built on first use: `entryByFirstPath`). */
  private firstPaths: FirstPathLookups | null = null;

  /** The lines holding each id, parent, lineage, cwd and folder, from the file's keys index (`keyedSync`). */
  private keys: SavedKeys | null = null;

  /** Lines decoded so far, by where they start (a row of a 50k-turn session holds its 50k prompts: ~20 ms). */
  private readonly decoded = new Map<number, CachedEntry | null>();

  /** The line read last from the file (`lineOf`): a lookup compares its first path, then decodes it. */
  private lastLine: { readonly at: number; readonly bytes: Buffer } | null = null;
  private linesRead = 0;

  /** The index of the cache file at `path`, or null when there is none or it is not one `load` would use. */
  static async open(path: string): Promise<CacheFileIndex | null> {
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(path);
    } catch {
      return null;
    }
    return CacheFileIndex.of(path, bytes);
  }

  /**
   * `open`, read synchronously and whole: for a process that waits for this lookup alone (the CLI's `show` of one
   * session, whose searches by bytes read the whole file anyway, its line index or not), where an asynchronous read
   * waits a turn of the event loop for each of its chunks (512 KiB: 23 of them at 10k sessions).
   */
  static readSync(path: string): CacheFileIndex | null {
    let bytes: Buffer;
    try {
      bytes = readRegularBytesSync(path);
    } catch {
      return null;
    }
    return CacheFileIndex.of(path, bytes);
  }

  /**
   * `readSync`, but when the keys index written with the file (cache-keys-index.ts) is there for this very file, only
   * it is read, and the entry lines its lookups name, each by its position (`show <id>` of one session read the whole
   * 11 MB at 10k sessions). A lookup the keys do not answer (a path, a member it does not hold) reads the whole file.
   */
  static keyedSync(path: string): CacheFileIndex | null {
    let fd: number;
    try {
      ({ fd } = openRegularWithStatsSync(path));
    } catch {
      return null;
    }
    let keys: SavedKeys | null;
    let bytes: Buffer;
    try {
      keys = readKeysIndex(path, fd);
      if (keys === null) bytes = readWholeSync(fd);
    } catch {
      closeSync(fd);
      return null;
    }
    if (keys === null) {
      closeSync(fd);
      return CacheFileIndex.of(path, bytes!);
    }
    const index = CacheFileIndex.readingLines(path, fd, keys);
    index.keys = keys;
    return index;
  }

  /**
   * `open`, read synchronously: for a process that does nothing else meanwhile (the CLI's grep), whose event loop is
   * busy with the search's results, where an asynchronous read waits a turn of it for each of its chunks (512 KiB:
   * 23 of them at 10k sessions, 130 at 100k, and the rows with them). When the file's line index (`linesIndexPath`)
   * was written for this very file, only it is read, and each entry line when it is looked up (a rare word's rows at
   * 100k sessions look up a few thousand of the 68 MB's 100k lines); else the file is read whole and its line index
   * written for the next open.
   */
  static openSync(path: string): CacheFileIndex | null {
    let fd: number;
    try {
      ({ fd } = openRegularWithStatsSync(path));
    } catch {
      return null;
    }
    let identity: string;
    let bytes: Buffer;
    try {
      identity = fileIdentity(fd);
      const fromLines = CacheFileIndex.fromLinesIndex(path, fd, identity);
      // It reads the file's lines from this descriptor from now on.
      if (fromLines !== null) return fromLines;
      bytes = readWholeSync(fd);
    } catch {
      closeSync(fd);
      return null;
    }
    closeSync(fd);
    const index = CacheFileIndex.of(path, bytes);
    index?.writeLinesIndex(identity);
    return index;
  }

  /** The index of the file open at `fd` from its line index, or null when there is none for this very file. */
  private static fromLinesIndex(path: string, fd: number, identity: string): CacheFileIndex | null {
    let saved: SavedLines | null;
    try {
      saved = readLinesIndex(linesIndexPath(path), identity);
      if (saved !== null && !saved.edgesHold(fd)) saved = null;
    } catch {
      saved = null;
    }
    if (saved === null) return null;
    const index = CacheFileIndex.readingLines(path, fd, saved);
    index.firstPaths = { plain: saved.plain, escaped: saved.escaped };
    return index;
  }

  /** The index of the file open at `fd` from what an index beside it says of its lines: it reads them from `fd` from now on. */
  private static readingLines(path: string, fd: number, saved: Pick<SavedLines, 'size' | 'table' | 'starts' | 'ends'>): CacheFileIndex {
    const reader: LineReader = { fd, size: saved.size };
    LINE_READERS.register(reader, fd, reader);
    return new CacheFileIndex(path, null, saved.table, saved.starts, saved.ends, reader);
  }

  /**
   * Whether the whole file was read (false while its lines are read one by one from its line index). For tests and
   * diagnostics.
   */
  get readWhole(): boolean {
    return this.wholeBytes !== null;
  }

  /**
   * The line index of this file, written beside it (temp file + rename; a failure only costs the next open a whole
   * read): its shared strings, where each entry line is, and the lookups by first path, for the file of `identity`.
   */
  private writeLinesIndex(identity: string): void {
    const lookups = (this.firstPaths ??= this.firstPathLookups());
    writeLinesIndex(linesIndexPath(this.path), identity, { bytes: this.bytes, table: this.table, starts: this.entryStarts, ends: this.entryEnds, plain: lookups.plain, escaped: lookups.escaped });
  }

  /** The whole file's bytes (read now when only its lines were read so far). */
  private get bytes(): Buffer {
    return this.wholeBytes ?? this.readWholeFile();
  }

  private readWholeFile(): Buffer {
    const reader = this.reader!;
    let bytes: Buffer;
    try {
      bytes = readWholeSync(reader.fd);
    } catch {
      bytes = Buffer.alloc(0);
    }
    this.closeReader();
    // Not the file its line index was made for (changed in place since): none of its lines is used, every lookup
    // fails (the sessions are read from their files).
    this.wholeBytes = bytes.length === reader.size ? bytes : Buffer.alloc(0);
    return this.wholeBytes;
  }

  private closeReader(): void {
    const reader = this.reader;
    if (reader === null || reader.fd === -1) return;
    LINE_READERS.unregister(reader);
    try {
      closeSync(reader.fd);
    } catch {
      // closed already
    }
    reader.fd = -1;
  }

  /**
   * Entry line `at`'s bytes, and where they start in them: the whole file's (at the line's start) once it was read,
   * else the line alone, read from the file (a lookup of many lines reads the file whole instead).
   */
  private lineOf(at: number): Buffer {
    if (this.wholeBytes !== null) return this.wholeBytes;
    if (this.lastLine?.at === at) return this.lastLine.bytes;
    // A read per line costs a system call: past a quarter of the lines, one read of the whole file costs less.
    if (++this.linesRead > this.linesBeforeWhole()) return this.bytes;
    const start = this.entryStarts[at]!;
    const length = this.entryEnds[at]! - start;
    let bytes: Buffer;
    try {
      bytes = readAtSync(this.reader!.fd, start, length);
    } catch {
      bytes = Buffer.alloc(0);
    }
    // Cut short (the file changed in place since): no line, the lookup fails.
    if (bytes.length !== length) bytes = Buffer.alloc(0);
    this.lastLine = { at, bytes };
    return bytes;
  }

  /** Lines read one by one before the whole file is read instead (see `lineOf`). */
  private linesBeforeWhole(): number {
    return Math.max(LINES_BEFORE_WHOLE, this.entryStarts.length / 4);
  }

  /**
   * A reader about to look up `count` entries (grep's matches so far): as many as `lineOf` reads one by one before it
   * reads the whole file, and the whole file is read now (a common word's rows at 100k sessions read 25k lines one by
   * one, then the 68 MB anyway).
   */
  expectLookups(count: number): void {
    if (this.wholeBytes === null && count > this.linesBeforeWhole()) this.readWholeFile();
  }

  /** Where entry line `at` starts in the bytes `lineOf` gave for it. */
  private lineBase(at: number, bytes: Buffer): number {
    return bytes === this.wholeBytes ? this.entryStarts[at]! : 0;
  }

  private static of(path: string, bytes: Buffer): CacheFileIndex | null {
    const table: string[] = [];
    const entryStarts: number[] = [];
    const entryEnds: number[] = [];
    let ended: unknown = null;
    let start = 0;
    let lineNo = 0;
    try {
      while (start < bytes.length) {
        let end = bytes.indexOf(NEWLINE, start);
        if (end === -1) end = bytes.length;
        lineNo++;
        if (ended !== null) return null; // data after the end line
        if (lineNo === 1) {
          if ((JSON.parse(bytes.toString('utf8', start, end)) as { version?: unknown } | null)?.version !== CACHE_VERSION) return null;
        } else if (bytes[start] === 0x5b && startsWith(bytes, start, STRING_OPENING)) {
          const value = JSON.parse(bytes.toString('utf8', start, end)) as unknown;
          if (!Array.isArray(value) || value.length !== 2 || value[0] !== 's' || typeof value[1] !== 'string') return null;
          table.push(value[1]);
        } else if (bytes[start + 2] === 0x65 && startsWith(bytes, start, END_OPENING)) {
          ended = (JSON.parse(bytes.toString('utf8', start, end)) as { end?: unknown }).end;
        } else {
          entryStarts.push(start);
          entryEnds.push(end);
        }
        start = end + 1;
      }
    } catch {
      return null;
    }
    if (ended !== entryStarts.length) return null;
    return new CacheFileIndex(path, bytes, table, entryStarts, entryEnds);
  }

  /**
   * The entry keyed by this first path (a lookup of `CatalogCache.lazy`), undefined when there is none or it does
   * not decode. Entry lines name their first path early (`{"id":…,"agent":…,"paths":["…"`, `{"none":[["…"`,
   * `{"store":[["…"`): one pass over the lines maps those to where the lines start; an entry whose key turns out to
   * be another of its paths is not used (its files are then read, as for a session the cache does not know). A caller
   * that asks once for each (grep's 80k rows at 100k) takes `entryOnlyByFirstPath`, which keeps nothing.
   */
  entryByFirstPath(path: string): CachedEntry | undefined {
    const at = this.firstLineOf(path);
    if (at === -1) return undefined;
    const line = this.lineOf(at);
    const base = this.lineBase(at, line);
    const entry = this.decodeLine(this.entryStarts[at]!, line, base, base + this.entryEnds[at]! - this.entryStarts[at]!);
    return entry?.firstPath === path ? entry : undefined;
  }

  /**
   * The entry line (its place in entryStarts) that first names `path` as its first path, or -1. Plain paths are found
   * by a hash of their bytes, taken while they are scanned (no string per entry: 100k of them were most of a grep's
   * lookups at 100k sessions), and compared byte for byte; paths written with escapes by their decoded text.
   */
  private firstLineOf(path: string): number {
    const lookups = (this.firstPaths ??= this.firstPathLookups());
    const best = lookups.escaped.get(path) ?? -1;
    // Encoded into one buffer kept for it (a Buffer per lookup, 80k at 100k sessions, was a quarter of each).
    const length = pathBytes.write(path);
    if (length > pathBytes.length - 4) return this.firstLineOfLong(path, best);
    // A lone surrogate is written escaped: no plain path is it (its bytes would be U+FFFD's).
    if (LONE_SURROGATE_MAYBE.test(path) && pathBytes.toString('utf8', 0, length) !== path) return best;
    // A path without a quote, a backslash or a control character is written as its bytes: a line names it first when
    // those bytes follow its first path's opening quote and a quote follows them (no span, no second hash of it).
    if (!NEEDS_ESCAPE.test(path)) return this.plainFirstLineOf(pathBytes, length, best, lookups.plain);
    return this.firstLineOfBytes(Buffer.from(pathBytes.subarray(0, length)), best, lookups.plain);
  }

  /** firstLineOf of a path longer than the buffer kept for paths. */
  private firstLineOfLong(path: string, best: number): number {
    const wanted = utf8Of(path);
    if (LONE_SURROGATE_MAYBE.test(path) && wanted.toString('utf8') !== path) return best;
    return this.firstLineOfBytes(wanted, best, this.firstPaths!.plain);
  }

  /** firstLineOfBytes of a path that needs no escape in JSON, its UTF-8 bytes `wanted[0, length)`. */
  private plainFirstLineOf(wanted: Buffer, length: number, best: number, plain: Float64Array): number {
    const key = hashBytes(wanted, 0, length) * LINE_SPAN;
    for (let k = firstWithKey(plain, key); k < plain.length && plain[k]! < key + LINE_SPAN; k++) {
      const at = plain[k]! - key;
      if (best !== -1 && at > best) break;
      const line = this.lineOf(at);
      const base = this.lineBase(at, line);
      const open = firstPathOpening(line, base, base + this.entryEnds[at]! - this.entryStarts[at]!);
      if (open !== -1 && open + 1 + length < base + this.entryEnds[at]! - this.entryStarts[at]! && line[open + 1 + length] === QUOTE && line.compare(wanted, 0, length, open + 1, open + 1 + length) === 0) {
        best = at;
        break;
      }
    }
    return best;
  }

  /** The line (see firstLineOf) whose first path is written as the bytes `wanted` without escapes, or `best` when that comes first. */
  private firstLineOfBytes(wanted: Buffer, best: number, plain: Float64Array): number {
    // The lines whose first path has this hash, in file order: `plain` sorted by hash, then line.
    const key = hashBytes(wanted, 0, wanted.length) * LINE_SPAN;
    for (let k = firstWithKey(plain, key); k < plain.length && plain[k]! < key + LINE_SPAN; k++) {
      const at = plain[k]! - key;
      if (best !== -1 && at > best) break;
      const line = this.lineOf(at);
      const base = this.lineBase(at, line);
      const span = firstPathSpanIn(line, base, base + this.entryEnds[at]! - this.entryStarts[at]!);
      if (span !== null && span.escaped === false && span.close - span.open - 1 === wanted.length && line.compare(wanted, 0, wanted.length, span.open + 1, span.close) === 0) {
        best = at;
        break;
      }
    }
    return best;
  }

  private firstPathLookups(): FirstPathLookups {
    // One number per line, hash * LINE_SPAN + line, sorted at once: a Map of 100k hashes was most of this at 100k.
    const plain = new Float64Array(this.entryStarts.length);
    let plains = 0;
    const escaped = new Map<string, number>();
    const hashes = nativeFirstPathHashes(this.bytes, this.entryStarts, this.entryEnds);
    for (let at = 0; at < this.entryStarts.length; at++) {
      // The native engine's hash of each line's first path (or that it has none, or escapes), as firstPathSpan's.
      const known = hashes?.[at];
      if (known === FIRST_PATH_NONE) continue;
      const span = known === undefined || known === FIRST_PATH_ESCAPED ? this.firstPathSpan(at) : null;
      if (span?.escaped === true) {
        const first = this.decodedPath(span.open, this.entryEnds[at]!);
        if (first !== null && !escaped.has(first)) escaped.set(first, at);
        continue;
      }
      const hash = span !== null ? span.hash : known;
      // (A line past LINE_SPAN is not found by its path: its session is read from its files.)
      if (hash === undefined || at >= LINE_SPAN) continue;
      plain[plains++] = hash * LINE_SPAN + at;
    }
    return { plain: plain.subarray(0, plains).sort(), escaped };
  }

  /**
   * Where the first path of entry line `at` is (its opening quote, and the next quote: its end unless it is written
   * with escapes), with a hash of its bytes; null when it is not where expected.
   */
  private firstPathSpan(at: number): FirstPathSpan | null {
    return firstPathSpanIn(this.bytes, this.entryStarts[at]!, this.entryEnds[at]!);
  }

  /** A first path written with escapes (a quote, a backslash, a control character), decoded as JSON; null when it does not. */
  private decodedPath(open: number, end: number): string | null {
    const stringEnd = jsonStringEnd(this.bytes, open, end);
    if (stringEnd === -1) return null;
    try {
      return JSON.parse(this.bytes.toString('utf8', open, stringEnd + 1)) as string;
    } catch {
      return null;
    }
  }

  /**
   * The lineage of the row cached for this one file, read from its entry line's bytes without decoding the line: when
   * the line is the file's (its first path) and records exactly this stamp as its only one (as the writer encodes it),
   * `{ lineage }` (undefined: the row has none, as `lookup` would give it), null when they hold no conversation (as
   * `lookup` says); undefined when that cannot be told so (a
   * line written otherwise, escapes, a key twice): then the row is looked up. grep's rows read the lineages of the
   * Claude files whose head does not show theirs (10k of them at 100k sessions), to find a family's members only.
   */
  lineageOfExact(stamp: FileStamp): { readonly lineage: string | undefined } | null | undefined {
    const at = this.firstLineOf(stamp[0]);
    if (at === -1) return undefined;
    const bytes = this.lineOf(at);
    const start = this.lineBase(at, bytes);
    const end = start + this.entryEnds[at]! - this.entryStarts[at]!;
    // Files known to hold no conversation (`lookup` gives null): the line is this stamp's, as the writer encodes it.
    if (startsWith(bytes, start, NONE_OPENING)) {
      const none = Buffer.from(JSON.stringify({ none: [stamp] }));
      return end - start === none.length && bytes.compare(none, 0, none.length, start, end) === 0 ? null : undefined;
    }
    if (!startsWith(bytes, start, ID_OPENING)) return undefined;
    const stamps = Buffer.from(`"stamps":[[0,${JSON.stringify(stamp[1])},${JSON.stringify(stamp[2])},${JSON.stringify(stamp[3])}]],`);
    if (onlyPlaceOf(bytes, stamps, start, end) === -1 || onlyPlaceOf(bytes, STAMPS_KEY, start, end) === -1) return undefined;
    // No lineage key at all: the row has none (a key with another value than a string: told by decoding).
    if (bytes.subarray(start, end).indexOf(LINEAGE_KEY) === -1) return { lineage: undefined };
    const key = onlyPlaceOf(bytes, LINEAGE_KEY, start, end);
    if (key === -1 || bytes[key + LINEAGE_KEY.length] !== QUOTE) return undefined;
    const open = key + LINEAGE_KEY.length + 1;
    let close = open;
    for (; close < end && bytes[close] !== QUOTE; close++) if (bytes[close]! < 0x20 || bytes[close] === BACKSLASH) return undefined;
    return close >= end ? undefined : { lineage: bytes.toString('utf8', open, close) };
  }

  /** The entries whose row has this id; null when one does not decode. */
  entriesOf(id: string): CachedEntry[] | null {
    // Entry lines start with their id: `{"id":"…",`.
    const found = this.entriesWith(`{"id":${JSON.stringify(id)},`, true);
    return found === null ? null : found.filter((entry) => entry.session?.id === id);
  }

  /**
   * The cache's stamps (size, mtime, fingerprint) of every file it knows in `folder` (directly in it), by path; null
   * when an entry naming one does not decode.
   */
  stampsIn(folder: string): Map<string, FileStamp> | null {
    // Paths are written whole, as JSON strings: the folder's, without its closing quote, opens each of its files'.
    const needle = folderNeedle(folder);
    const entries = this.keys !== null ? this.keyedEntries(this.keys.linesOf(needle), needle, false) : this.entriesWith(needle);
    if (entries === null) return null;
    const out = new Map<string, FileStamp>();
    for (const entry of entries) for (const stamp of entry.stamps) if (dirname(stamp[0]) === folder) out.set(stamp[0], stamp);
    return out;
  }

  /** The shared-string index of `text` (cwds, roots, models are stored once and referred to by index), if it is one. */
  stringRef(text: string): number | undefined {
    const at = this.table.indexOf(text);
    return at === -1 ? undefined : at;
  }

  /**
   * The entries whose line holds these bytes (`atLineStart`: opens with them), each once; null when one does not
   * decode. The bytes are encoded JSON such as `"lineage":"…"`, which a string's own text cannot hold unescaped.
   */
  entriesWith(bytesOf: string, atLineStart = false): CachedEntry[] | null {
    if (this.keys !== null && keyedNeedle(bytesOf, atLineStart)) return this.keyedEntries(this.keys.linesOf(bytesOf), bytesOf, atLineStart);
    const needle = Buffer.from(bytesOf);
    const lines: number[] = [];
    for (let at = this.bytes.indexOf(needle); at !== -1; ) {
      const start = this.bytes.lastIndexOf(NEWLINE, at) + 1;
      let end = this.bytes.indexOf(NEWLINE, at);
      if (end === -1) end = this.bytes.length;
      if ((!atLineStart || start === at) && lines.at(-1) !== start && start > 0) lines.push(start);
      at = end === this.bytes.length ? -1 : this.bytes.indexOf(needle, end);
    }
    return this.decodeLines(lines);
  }

  /** Whether a line holds both these bytes (as `entriesWith`), without decoding any. */
  anyLineWith(first: string, second: string): boolean {
    const needle = Buffer.from(first);
    const other = Buffer.from(second);
    if (this.keys !== null && keyedNeedle(first, false)) {
      return this.keys.linesOf(keyedPair(first, second) ?? first).some((at) => {
        const line = this.lineOf(at);
        const base = this.lineBase(at, line);
        const bytes = line.subarray(base, base + this.entryEnds[at]! - this.entryStarts[at]!);
        return bytes.indexOf(needle) !== -1 && bytes.indexOf(other) !== -1;
      });
    }
    for (let at = this.bytes.indexOf(needle); at !== -1; ) {
      const start = this.bytes.lastIndexOf(NEWLINE, at) + 1;
      let end = this.bytes.indexOf(NEWLINE, at);
      if (end === -1) end = this.bytes.length;
      if (this.bytes.subarray(start, end).indexOf(other) !== -1) return true;
      at = end === this.bytes.length ? -1 : this.bytes.indexOf(needle, end);
    }
    return false;
  }


  /**
   * The entries of these lines (places in entryStarts, ascending: the keys index's candidates) that hold `bytesOf` (at
   * their start: `atLineStart`), each read by its position, as entriesWith finds them in the whole file; null when
   * one does not decode.
   */
  private keyedEntries(lines: readonly number[], bytesOf: string, atLineStart: boolean): CachedEntry[] | null {
    const needle = Buffer.from(bytesOf);
    const out: CachedEntry[] = [];
    for (const at of lines) {
      const line = this.lineOf(at);
      const base = this.lineBase(at, line);
      const end = base + this.entryEnds[at]! - this.entryStarts[at]!;
      // A line of another key of the same hash (or of a file changed since: its lines are cut short, none holds it).
      const found = line.subarray(base, end).indexOf(needle);
      if (found === -1 || (atLineStart && found !== 0)) continue;
      const entry = this.decodeLine(this.entryStarts[at]!, line, base, end);
      if (entry === null) return null;
      out.push(entry);
    }
    return out;
  }

  private decodeLines(starts: readonly number[]): CachedEntry[] | null {
    const out: CachedEntry[] = [];
    const bytes = this.bytes;
    for (const start of starts) {
      let end = bytes.indexOf(NEWLINE, start);
      if (end === -1) end = bytes.length;
      const entry = this.decodeLine(start, bytes, start, end);
      if (entry === null) return null;
      out.push(entry);
    }
    return out;
  }

  /**
   * The entry line starting at `start` in the file, whose bytes are [from, to) of `bytes`, decoded (see decodeLines) and
   * kept for the next lookup of its line; null when it does not.
   */
  private decodeLine(start: number, bytes: Buffer, from: number, to: number): CachedEntry | null {
    const known = this.decoded.get(start);
    if (known !== undefined) return known;
    const decoded = this.decodeBytes(start, bytes, from, to);
    const entry = decoded === null ? null : cachedEntry(decoded);
    if (entry !== null) this.decoded.set(start, entry);
    return entry;
  }

  /** The line's first path and entry, decoded from [from, to) of `bytes` (a failure is kept, by `start`: see decodeLine). */
  private decodeBytes(start: number, bytes: Buffer, from: number, to: number): readonly [string, CacheEntry] | null {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8', from, to));
    } catch {
      this.decoded.set(start, null);
      return null;
    }
    const decoded =
      value && typeof value === 'object' && 'store' in value
        ? decodeStore(value as { store: unknown; rows?: unknown }, this.table)
        : value && typeof value === 'object' && 'none' in value
          ? decodeNone((value as { none: unknown }).none)
          : decodeEntry(value, this.table);
    if (decoded === null) this.decoded.set(start, null);
    return decoded;
  }

  /**
   * `entryByFirstPath(path, false)`'s entry, without the CachedEntry made around it (its stamps made again): for a
   * caller that asks once for each and reads the entry only (CatalogCache.lazy's lookups: 80k at 100k sessions).
   */
  entryOnlyByFirstPath(path: string): CacheEntry | undefined {
    const at = this.firstLineOf(path);
    if (at === -1) return undefined;
    const start = this.entryStarts[at]!;
    const known = this.decoded.get(start);
    if (known !== undefined) return known?.firstPath === path ? known.entry : undefined;
    const line = this.lineOf(at);
    const base = this.lineBase(at, line);
    const decoded = this.decodeBytes(start, line, base, base + this.entryEnds[at]! - start);
    return decoded?.[0] === path ? decoded[1] : undefined;
  }
}

/** Lines read one by one at least, before the whole file is read instead (see `lineOf`). */
const LINES_BEFORE_WHOLE = 4096;

// For tests, where they were before.
export { firstPathHashesInJs, nativeFirstPathHashes } from './cache-first-paths.js';
