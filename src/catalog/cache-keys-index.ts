// A catalog cache file's keys index (CacheFileIndex.keyedSync): written with the cache, it names the entry lines that
// hold each id, parent id, lineage, cwd and folder, so that `show <id>` reads a few lines of the cache by position
// instead of reading the whole file (11 MB at 10k sessions) and searching it for those bytes.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { openRegularWithStatsSync, readRegularBytesSync } from '../core/io/regular.js';
import type { FileStamp } from './cache-entry.js';
import { digestOf, edgesOfFileHold, fileIdentity, readNumbersFile, writeNumbersFile } from './cache-lines-index.js';

/** The keys index of a cache file: beside it, under its name. */
export function keysIndexPath(cachePath: string): string {
  return `${cachePath.replace(/\.jsonl?$/, '')}.keys`;
}

/** The format: a JSON header line, then Float64 numbers from a multiple of 8 (entry line starts, ends, keys). */
const KEYS_VERSION = 1;

/** Above any line's place: hash * LINE_SPAN + line stays an exact integer in a double (2^30 hashes, 2^23 lines). */
const LINE_SPAN = 2 ** 23;

/**
 * Whether the keys index names every entry line holding `needle` (as CacheFileIndex.entriesWith searches it): a whole
 * encoded `"parentId":"…"`, `"lineage":"…"`, `"cwd":<number>,`, `"parentId":null}`, or an entry line's opening
 * `{"id":"…",`. Those bytes are found wherever they are (no string's text holds them unescaped), so its lines are
 * exactly those a search of the whole file finds.
 */
export function keyedNeedle(needle: string, atLineStart: boolean): boolean {
  if (atLineStart) return ID_NEEDLE.test(needle);
  return needle === PARENT_NULL || MEMBER_NEEDLE.test(needle) || CWD_NEEDLE.test(needle);
}

const ID_NEEDLE = /^\{"id":"(?:[^"\\]|\\.)*",$/;
const MEMBER_NEEDLE = /^"(?:parentId|lineage)":"(?:[^"\\]|\\.)*"$/;
const CWD_NEEDLE = /^"cwd":\d+,$/;
const PARENT_NULL = '"parentId":null}';
const MEMBER_OPENINGS = ['"parentId":"', '"lineage":"'];
const CWD_OPENING = '"cwd":';

/**
 * The key under which the keys index names the lines holding both `first` and `second` (CacheFileIndex.anyLineWith),
 * when it has one: `"parentId":null}` with a `"cwd":<number>,`.
 */
export function keyedPair(first: string, second: string): string | null {
  return first === PARENT_NULL && CWD_NEEDLE.test(second) ? `${first}${second}` : null;
}

/** The key under which the keys index names the entries with a stamp in `folder` (CacheFileIndex.stampsIn). */
export function folderNeedle(folder: string): string {
  return JSON.stringify(`${folder}/`).slice(0, -1);
}

/** FNV-1a over a string's UTF-16 code units, kept to 30 bits: the writer and the lookups hash the same strings. */
function hashOf(text: string, from = 0, to = text.length): number {
  let hash = 0x811c9dc5;
  for (let at = from; at < to; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  return hash & 0x3fffffff;
}

/**
 * The keys index of a cache file as it is written (writeEntries): each piece of text in file order, the entry lines
 * with their stamps. Offsets count UTF-8 bytes.
 */
export class KeysCollector {
  private offset = 0;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly keys: number[] = [];
  private readonly table: string[] = [];
  private readonly head: Hash = createHash('sha1');
  private tail = '';

  /** A line that is no entry (the version, a shared string, the end line), newline included. */
  text(text: string): void {
    this.offset += Buffer.byteLength(text);
    if (this.starts.length === 0) this.head.update(text);
    else this.tail += text;
  }

  /** A shared string's line (`text` too): the table entries refer to. */
  sharedString(value: string, text: string): void {
    this.table.push(value);
    this.text(text);
  }

  /**
   * An entry line (without its newline), its files' stamps, the encoded rows it holds (one, a store's, or none), and
   * the id it opens with (null: none, or a store). The members the lookups search for are taken from the rows, not
   * searched for in the line (a whole scan of the lines was ~0.6 s of CPU at 100k sessions): a row is written by
   * JSON.stringify with its `cwd` (a table index) and `lineage` at its top level, and any other object member in the
   * line is in its `fork`, `subagent` or `usage`, searched as written.
   */
  entry(line: string, stamps: readonly FileStamp[], rows: readonly EncodedMembers[], id: string | null): void {
    const at = this.starts.length;
    this.starts.push(this.offset);
    this.offset += Buffer.byteLength(line);
    this.ends.push(this.offset);
    this.offset += 1;
    this.tail = '\n';
    if (at >= LINE_SPAN) return;
    const add = (hash: number): void => {
      this.keys.push(hash * LINE_SPAN + at);
    };
    if (id !== null) add(quotedHashOf('{"id":"', id, '",'));
    // Repeats are dropped by the lookups (a line's same keys are side by side once sorted).
    const members: string[] = [];
    const cwds: string[] = [];
    let parentNull = false;
    for (const row of rows) {
      if (typeof row.cwd === 'number') cwds.push(`"cwd":${row.cwd},`);
      if (typeof row.lineage === 'string') add(quotedHashOf('"lineage":"', row.lineage, '"'));
      for (const nested of [row.fork, row.subagent, row.usage]) {
        if (mayHoldMembers(nested) && membersIn(JSON.stringify(nested), members, cwds)) parentNull = true;
      }
    }
    for (const member of members) add(hashOf(member));
    if (parentNull) add(hashOf(PARENT_NULL));
    for (const member of cwds) {
      add(hashOf(member));
      // A review of this cwd that names no parent (cached-find's anyLineWith): ~300 such lines at 10k sessions.
      if (parentNull) add(hashOf(`${PARENT_NULL}${member}`));
    }
    for (const [path] of stamps) add(folderHashOf(path));
  }

  /**
   * Write the index beside the cache file at `cachePath`, which was just renamed from the temp file of inode `ino`:
   * for that file only (its identity, the digests of the bytes around its entry lines). Temp file + rename; a
   * failure only costs `show` a whole read of the cache.
   */
  write(cachePath: string, ino: bigint): void {
    const path = keysIndexPath(cachePath);
    let identity: string;
    try {
      const { fd } = openRegularWithStatsSync(cachePath);
      try {
        if (fstatSync(fd, { bigint: true }).ino !== ino) return; // replaced since by another process
        identity = fileIdentity(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      return;
    }
    const lines = this.starts.length;
    const keys = Float64Array.from(this.keys).sort();
    const numbers = new Float64Array(2 * lines + keys.length);
    numbers.set(this.starts, 0);
    numbers.set(this.ends, lines);
    numbers.set(keys, 2 * lines);
    const numberBytes = Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength);
    const header = Buffer.from(
      `${JSON.stringify({ version: KEYS_VERSION, identity, size: this.offset, head: this.head.digest('hex'), tail: digestOf(Buffer.from(lines > 0 ? this.tail : '')), lines, keys: keys.length, numbers: digestOf(numberBytes), table: this.table })}\n`,
    );
    writeNumbersFile(path, header, numberBytes);
  }
}

/** The members of an encoded row the keys index names (see KeysCollector.entry). */
export interface EncodedMembers {
  readonly cwd: number | null;
  readonly lineage?: string;
  readonly fork: unknown;
  readonly subagent?: unknown;
  readonly usage: unknown;
}

/**
 * Every whole `"parentId":"…"`, `"lineage":"…"` (into `members`) and `"cwd":<number>,` (into `cwds`) in this JSON text;
 * whether it holds `"parentId":null}`.
 */
function membersIn(text: string, members: string[], cwds: string[]): boolean {
  for (const opening of MEMBER_OPENINGS) {
    for (let from = text.indexOf(opening); from !== -1; ) {
      const close = stringClose(text, from + opening.length);
      if (close === -1) break;
      members.push(text.slice(from, close + 1));
      from = text.indexOf(opening, close + 1);
    }
  }
  for (let from = text.indexOf(CWD_OPENING); from !== -1; from = text.indexOf(CWD_OPENING, from + 1)) {
    let end = from + CWD_OPENING.length;
    while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
    if (end > from + CWD_OPENING.length && text[end] === ',') cwds.push(text.slice(from, end + 1));
  }
  return text.includes(PARENT_NULL);
}

/**
 * hashOf(`${opening}${JSON.stringify(value).slice(1, -1)}${closing}`) (an opening and closing quote of the value
 * included) without making those strings, when JSON.stringify writes the value as it is (nothing escaped).
 */
function quotedHashOf(opening: string, value: string, closing: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < opening.length; at++) hash = Math.imul(hash ^ opening.charCodeAt(at), 0x01000193);
  for (let at = 0; at < value.length; at++) {
    const code = value.charCodeAt(at);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return hashOf(`${opening.slice(0, -1)}${JSON.stringify(value)}${closing.slice(1)}`);
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  for (let at = 0; at < closing.length; at++) hash = Math.imul(hash ^ closing.charCodeAt(at), 0x01000193);
  return hash & 0x3fffffff;
}

/**
 * Whether JSON.stringify(value) may hold a member the keys index names: an object with a key of theirs or an object
 * inside (then it is searched as written); a row's usage and most forks are a few numbers and strings.
 */
function mayHoldMembers(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) {
    if (key === 'cwd' || key === 'parentId' || key === 'lineage') return true;
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && typeof member === 'object') return true;
  }
  return false;
}

/**
 * hashOf(folderNeedle(dirname(path))) without making those strings (a key for each file written): the opening quote
 * and the path up to its last slash, when that is how JSON.stringify writes them (nothing escaped, an absolute path
 * with a folder of its own).
 */
function folderHashOf(path: string): number {
  const slash = path.lastIndexOf('/');
  let hash = Math.imul(0x811c9dc5 ^ 0x22, 0x01000193);
  for (let at = 0; at <= slash; at++) {
    const code = path.charCodeAt(at);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return hashOf(folderNeedle(dirname(path)));
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  // (dirname keeps `//` for `//a`, and a trailing slash is not a folder of its own.)
  if (slash <= 1 || path.charCodeAt(0) !== 0x2f || slash === path.length - 1) return hashOf(folderNeedle(dirname(path)));
  return hash & 0x3fffffff;
}

/** Where the JSON string whose text starts at `from` (after its opening quote) closes in `line`; -1 when it does not. */
function stringClose(line: string, from: number): number {
  for (let at = from; at < line.length; at++) {
    const code = line.charCodeAt(at);
    if (code === 0x5c) at++;
    else if (code === 0x22) return at;
  }
  return -1;
}

/** A keys index read for the cache file open at `fd` (see readKeysIndex). */
export interface SavedKeys {
  readonly size: number;
  readonly table: readonly string[];
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /** The entry lines (places in starts) whose bytes may hold `needle` (a keyedNeedle or folderNeedle), ascending. */
  readonly linesOf: (needle: string) => number[];
}

/**
 * The keys index beside the cache file at `cachePath`, when it was written for the very file open at `fd` (its
 * identity, and the bytes before its first entry line and after its last) and is whole; null otherwise.
 */
export function readKeysIndex(cachePath: string, fd: number): SavedKeys | null {
  let file: ReturnType<typeof readNumbersFile>;
  try {
    file = readNumbersFile(readRegularBytesSync(keysIndexPath(cachePath)));
  } catch {
    return null;
  }
  if (file === null) return null;
  const { header, numbers, numberBytes } = file;
  const { size, lines, keys, table, head, tail } = header;
  if (header.version !== KEYS_VERSION || header.identity !== fileIdentity(fd) || typeof size !== 'number' || typeof head !== 'string' || typeof tail !== 'string') return null;
  if (!Number.isInteger(lines) || !Number.isInteger(keys) || (lines as number) < 0 || (keys as number) < 0) return null;
  if (!Array.isArray(table) || !table.every((one) => typeof one === 'string')) return null;
  const lineCount = lines as number;
  // A line missed would change the row found: numbers damaged in place (the same length) are told by their digest.
  if (numbers.length !== 2 * lineCount + (keys as number) || digestOf(numberBytes) !== header.numbers) return null;
  const starts = numbers.subarray(0, lineCount);
  const ends = numbers.subarray(lineCount, 2 * lineCount);
  const sorted = numbers.subarray(2 * lineCount);
  try {
    if (!edgesOfFileHold(fd, size, starts, ends, head, tail)) return null;
  } catch {
    return null;
  }
  const linesOf = (needle: string): number[] => {
    const key = hashOf(needle) * LINE_SPAN;
    let low = 0;
    for (let high = sorted.length; low < high; ) {
      const middle = (low + high) >>> 1;
      if (sorted[middle]! < key) low = middle + 1;
      else high = middle;
    }
    const out: number[] = [];
    for (let k = low; k < sorted.length && sorted[k]! < key + LINE_SPAN; k++) {
      const at = sorted[k]! - key;
      if (at < lineCount && out.at(-1) !== at) out.push(at);
    }
    return out;
  };
  return { size, table: table as string[], starts, ends, linesOf };
}
