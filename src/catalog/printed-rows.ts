// The text lines grep printed, kept beside the walk memo: per file whose row was alone (no other file of its
// conversation, no family of others), its line as printed for this home with the few fields a search needs of the row
// (agent, id, cwd, update time, lineage), under the file's stamps exactly as the catalog cache keys its entry. A later
// grep that prints lines takes them for files with the same stamps instead of decoding each row's cache line (a common
// word's 86k rows at 100k sessions: ~1.1 s of cache lookups, the 68 MB cache read whole, most of the heap); a file with
// other stamps, a renamed session (its name told apart), another home, another cache version or another line format
// goes the way it goes without them.
import { dirname } from 'node:path';
import { statSync } from 'node:fs';
import { makePrivateFolder, replaceCacheFileSync } from '../core/io/atomic.js';
import { readRegularBytesSync } from '../core/io/regular.js';
import type { Agent } from '../core/model.js';
import { AGENTS } from '../core/model.js';
import type { FileStamp } from './cache-entry.js';
import { CACHE_VERSION } from './cache-file.js';

/**
 * 2: a header line `{version, cache, key, home, format}`, then one SavedRow a line (JSON), each decoded only when a row
 * asks for it (1, one JSON value, was parsed whole: at 100k sessions 44 MB decoded into an 88 MB string, then 86k
 * arrays kept: ~0.5 s of a grep's main thread and ~150 MB of its heap).
 */
const VERSION = 2;

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** A path JSON writes as it is, in ASCII: its row line holds it verbatim after `["`. */
const PLAIN_PATH = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Bytes of the file per match before it is read whole: a search that matches few sessions (a rare word) looks their
 * rows up in the cache, as before; one that matches more than about a quarter of the rows kept (~500 bytes each) reads it.
 */
const BYTES_PER_MATCH = 2000;

/** The file is written again when at least one in this many of its rows is new (or it held none). */
const REWRITE_SHARE = 64;

/** A row as printed: its line and what a search needs of the row besides (which conversation, its cwd, its order, its family). */
export interface PrintedRow {
  readonly agent: Agent;
  readonly id: string;
  readonly cwd: string | null;
  readonly updatedAt: string;
  readonly lineage: string | undefined;
  /** The text line (newline included), as the caller's `lineOf` made it for the home the file was kept for. */
  readonly line: string;
}

/** A kept row: `name` is the name the session's root gave its id when the row was made (null: none). */
type SavedRow = readonly [path: string, size: number, mtimeMs: number, fingerprint: string, agent: Agent, id: string, cwd: string | null, updatedAt: string, lineage: string | false, name: string | null, line: string];

/** A file kept as holding no conversation (the cache said so for these stamps): no row, and no cache lookup for it. */
type NoneRow = readonly [path: string, size: number, mtimeMs: number, fingerprint: string, none: null];

type KeptRow = SavedRow | NoneRow;

/** The printed rows file of the walk memo at `memoPath` (its name with `.printed` before `.json`). */
export function printedRowsPath(memoPath: string): string {
  return `${memoPath.replace(/\.json$/, '')}.printed.json`;
}

/**
 * The printed rows a grep read (`told`) and made (`note`), for the run of `key` (the walk memo's), the home `home` and
 * the line format `format` (the caller's: its lines change when it does). The file is not trusted: anything
 * malformed, another version's, another cache version's, home's, format's or run's is the same as none.
 */
export class PrintedRows {
  /** The file's bytes once read, and where each row's line starts by its path's key (`keyOf`); null until read. */
  private bytes: Buffer = Buffer.alloc(0);
  private saved: Map<string, number> | null = null;
  /** Rows made this run (`note`), by path: written with the saved ones still found (`save`). */
  private readonly made = new Map<string, KeptRow>();

  constructor(
    private readonly path: string,
    private readonly key: string,
    private readonly home: string,
    private readonly format: string,
  ) {}

  /**
   * Whether the file is worth reading for a search expected to match `matches` sessions (read then, once): always once
   * read, or when there is none yet (nothing to read: this run's rows are kept).
   */
  wanted(matches: number): boolean {
    if (this.saved !== null) return true;
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      this.saved = new Map();
      return true;
    }
    if (matches * BYTES_PER_MATCH < size) return false;
    this.saved = this.read();
    return true;
  }

  /**
   * The row kept for this one file with exactly these stamps (size, mtime, fingerprint), made for `name` (the name its
   * root gives it now, see `nameOf`); null when the file was kept as holding no conversation (`noteNone`); undefined
   * when there is none, or the file was not read (`wanted`).
   */
  told(stamps: readonly FileStamp[], nameOf: (agent: Agent, id: string) => string | null): PrintedRow | null | undefined {
    const [stamp] = stamps;
    if (stamps.length !== 1 || stamp === undefined || this.saved === null) return undefined;
    const found = this.made.get(stamp[0]) ?? this.savedRow(stamp[0]);
    if (found === undefined || found[1] !== stamp[1] || found[2] !== stamp[2] || found[3] !== stamp[3]) return undefined;
    if (found.length === 5) return null;
    const [, , , , agent, id, cwd, updatedAt, lineage, name, line] = found;
    if (nameOf(agent, id) !== name) return undefined;
    return { agent, id, cwd, updatedAt, lineage: lineage === false ? undefined : lineage, line };
  }

  /** This one file holds no conversation (the catalog cache's word for these stamps): kept for the next run, as a row is. */
  noteNone(stamps: readonly FileStamp[]): void {
    const [stamp] = stamps;
    if (stamps.length !== 1 || stamp === undefined) return;
    this.made.set(stamp[0], [stamp[0], stamp[1], stamp[2], stamp[3], null]);
  }

  /** A row printed for this one file (alone in its conversation and family), made for `name`: kept for the next run. */
  note(stamps: readonly FileStamp[], row: PrintedRow, name: string | null): void {
    const [stamp] = stamps;
    if (stamps.length !== 1 || stamp === undefined) return;
    this.made.set(stamp[0], [stamp[0], stamp[1], stamp[2], stamp[3], row.agent, row.id, row.cwd, row.updatedAt, row.lineage ?? false, name, row.line]);
  }

  /**
   * Write the rows kept when this run made more than a few the file did not hold (temp file + rename; a failure only
   * costs the next run its lookups), when the file was read or there was none: the saved rows of the files `found` holds
   * (the search's single files: a file gone is dropped) that this run did not make again, then this run's.
   */
  save(found: () => ReadonlySet<string>): void {
    const saved = this.saved;
    if (saved === null) return;
    // Rows made before the file was read may be the ones it holds. A few new ones (a session that grew, the first row
    // of a family asked before its lineages were gathered) are not worth writing 44 MB again (100k sessions): their rows
    // are made as before until more are new.
    let fresh = 0;
    for (const row of this.made.values()) if (!sameRow(this.savedRow(row[0]), row)) fresh++;
    if (fresh === 0 || fresh * REWRITE_SHARE < saved.size) return;
    const files = saved.size === 0 ? null : found();
    const parts: Buffer[] = [Buffer.from(`${JSON.stringify({ version: VERSION, cache: CACHE_VERSION, key: this.key, home: this.home, format: this.format })}\n`)];
    // The rows kept of files still found and not made again: their lines as they are.
    const made = new Set([...this.made.keys()].map(keyOf));
    if (files !== null) {
      for (const [key, start] of saved) {
        const end = this.bytes.indexOf(NEWLINE, start);
        if (end === -1 || made.has(key)) continue;
        const row = this.rowAt(start);
        if (row !== undefined && files.has(row[0])) parts.push(this.bytes.subarray(start, end + 1));
      }
    }
    parts.push(Buffer.from([...this.made.values()].map((row) => `${JSON.stringify(row)}\n`).join('')));
    if (makePrivateFolder(dirname(this.path))) replaceCacheFileSync(this.path, Buffer.concat(parts));
  }

  /** The saved row of this path (decoded from its line), if the file holds a well-formed one. */
  private savedRow(path: string): KeptRow | undefined {
    const start = this.saved?.get(keyOf(path));
    if (start === undefined) return undefined;
    const row = this.rowAt(start);
    return row !== undefined && row[0] === path ? row : undefined;
  }

  private rowAt(start: number): KeptRow | undefined {
    const end = this.bytes.indexOf(NEWLINE, start);
    if (end === -1) return undefined;
    try {
      const row = JSON.parse(this.bytes.toString('utf8', start, end)) as unknown;
      return isSavedRow(row) || isNoneRow(row) ? row : undefined;
    } catch {
      return undefined;
    }
  }

  /** Where each row's line starts, by its path's key; empty when the file is not this run's, home's, format's or cache version's. */
  private read(): Map<string, number> {
    const out = new Map<string, number>();
    let bytes: Buffer;
    let header: unknown;
    try {
      bytes = readRegularBytesSync(this.path);
      const end = bytes.indexOf(NEWLINE);
      header = JSON.parse(bytes.toString('utf8', 0, end === -1 ? bytes.length : end));
      if (end === -1) return out;
    } catch {
      return out;
    }
    if (typeof header !== 'object' || header === null) return out;
    const data = header as Record<string, unknown>;
    if (data.version !== VERSION || data.cache !== CACHE_VERSION || data.key !== this.key || data.home !== this.home || data.format !== this.format) return out;
    this.bytes = bytes;
    // A row line opens `["`, then its path as JSON writes it: the key is those bytes (a line that does not is skipped).
    for (let start = bytes.indexOf(NEWLINE) + 1; start < bytes.length; ) {
      let end = bytes.indexOf(NEWLINE, start);
      if (end === -1) end = bytes.length;
      if (bytes[start] === 0x5b && bytes[start + 1] === QUOTE) {
        let at = start + 2;
        while (at < end && bytes[at] !== QUOTE) at += bytes[at] === BACKSLASH ? 2 : 1;
        if (at < end) out.set(bytes.toString('latin1', start + 2, at), start);
      }
      start = end + 1;
    }
    return out;
  }
}

/** A path's key among the saved rows: the bytes JSON writes it as, one character each (latin1). */
function keyOf(path: string): string {
  return PLAIN_PATH.test(path) ? path : Buffer.from(JSON.stringify(path).slice(1, -1)).toString('latin1');
}

function sameRow(a: KeptRow | undefined, b: KeptRow): boolean {
  return a !== undefined && a.length === b.length && a.every((value, at) => value === b[at]);
}

function isNoneRow(value: unknown): value is NoneRow {
  if (!Array.isArray(value) || value.length !== 5) return false;
  const [path, size, mtimeMs, fingerprint, none] = value as unknown[];
  return typeof path === 'string' && typeof size === 'number' && typeof mtimeMs === 'number' && typeof fingerprint === 'string' && none === null;
}

function isSavedRow(value: unknown): value is SavedRow {
  if (!Array.isArray(value) || value.length !== 11) return false;
  const [path, size, mtimeMs, fingerprint, agent, id, cwd, updatedAt, lineage, name, line] = value as unknown[];
  return (
    typeof path === 'string' &&
    typeof size === 'number' &&
    typeof mtimeMs === 'number' &&
    typeof fingerprint === 'string' &&
    (AGENTS as readonly unknown[]).includes(agent) &&
    typeof id === 'string' &&
    (cwd === null || typeof cwd === 'string') &&
    typeof updatedAt === 'string' &&
    (lineage === false || typeof lineage === 'string') &&
    (name === null || typeof name === 'string') &&
    typeof line === 'string'
  );
}
