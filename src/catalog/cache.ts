import { createHash } from 'node:crypto';
import { lstat, open, readdir, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { FoldResume } from '../core/formats/types.js';
import { readLines } from '../core/io/lines.js';
import { readRegularFile } from '../core/io/regular.js';
import { removeStaleTemps } from '../core/io/atomic.js';
import { errorCode } from '../core/errors.js';
import { AGENTS, type Agent, type ForkOrigin, type SubagentOrigin, type Usage } from '../core/model.js';
import { isUnder, type Locations } from './locations.js';
import type { CatalogSession } from './row.js';

/** Bump when SessionSummary, the adapters' reading or the file format changes meaning: old caches are then ignored. */
// 5: a Claude fold records whether the file is one chain in file order (`show` prints such a file in one pass).
export const CACHE_VERSION = 6;

/**
 * One file's identity for the cache: a changed size, mtime or fingerprint of its first bytes (lines.ts
 * headFingerprint) means the row must be read again; a file that only grew can be read from where its fold stopped.
 */
export type FileStamp = readonly [path: string, size: number, mtimeMs: number, fingerprint: string];

/**
 * One cached file group, keyed by its first file's path. That file's stamp is in the entry's own fields (most
 * groups are one file): no stamp arrays per entry, ≈ 140 bytes less each at 100k sessions.
 */
interface CacheEntry {
  /** null: the files hold no conversation (a header-only rollout, a summary-only Claude file): not read again. */
  readonly session: CatalogSession | null;
  /** The first file's size, mtime and fingerprint. */
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
  /** The stamps of the group's other files (Codex segments, rotated claw files), when it has any. */
  readonly more?: readonly FileStamp[];
  /** Where the live file's saved fold stopped (the fold itself is in a file of its own: see foldPath). */
  readonly fold?: number;
  /** A store of many conversations (FormatAdapter.store): every row it holds; `session` is then null. */
  readonly rows?: readonly CatalogSession[];
}

/** The entry of these stamps (the first path is the key it is stored under). */
function makeEntry(stamps: readonly FileStamp[], session: CatalogSession | null, fold?: number): CacheEntry {
  const [, size, mtimeMs, fingerprint] = stamps[0]!;
  const entry = { session, size, mtimeMs, fingerprint };
  const more = stamps.length > 1 ? { more: stamps.slice(1) } : {};
  return fold === undefined ? { ...entry, ...more } : { ...entry, ...more, fold };
}

/** An entry's stamps, first file first. */
function stampsOfEntry(path: string, entry: CacheEntry): FileStamp[] {
  return [[path, entry.size, entry.mtimeMs, entry.fingerprint], ...(entry.more ?? [])];
}

function stampCount(entry: CacheEntry): number {
  return 1 + (entry.more?.length ?? 0);
}

/** Every stamp (path, size, mtime, fingerprint) equal to the entry's. */
function sameStamps(entry: CacheEntry, stamps: readonly FileStamp[]): boolean {
  if (stampCount(entry) !== stamps.length) return false;
  const [, size, mtime, fingerprint] = stamps[0]!;
  if (size !== entry.size || mtime !== entry.mtimeMs || fingerprint !== entry.fingerprint) return false;
  for (let i = 1; i < stamps.length; i++) {
    const [path, size, mtime, fingerprint] = stamps[i]!;
    const [cachedPath, cachedSize, cachedMtime, cachedFingerprint] = entry.more![i - 1]!;
    if (path !== cachedPath || size !== cachedSize || mtime !== cachedMtime || fingerprint !== cachedFingerprint) return false;
  }
  return true;
}

/** What a grown file's row can go on from: its saved fold's offset (the state is loaded with loadFold). */
export interface FoldCandidate {
  readonly path: string;
  readonly offset: number;
}

/**
 * The cache file for one set of locations (and its first-screen file beside it): a run on another `--home`
 * neither paints this set's rows nor replaces its entries (and the exact turn counts they hold) with its own.
 */
export function defaultCachePath(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
  locations: Pick<Locations, 'roots'>,
): string {
  const base = env.XDG_CACHE_HOME || join(homeDir, '.cache');
  return join(base, 'sessions', `catalog-v${CACHE_VERSION}-${locationsKey(locations)}.jsonl`);
}

/** A short name for a set of locations: the same folders in any order give the same key. */
export function locationsKey(locations: Pick<Locations, 'roots'>): string {
  // In AGENTS order: for codex, claude and claw this is the key earlier builds wrote (their caches stay valid).
  const set = AGENTS.map((agent) => [...new Set(locations.roots[agent])].sort());
  return createHash('sha256').update(JSON.stringify(set)).digest('hex').slice(0, 16);
}

/**
 * The persisted catalog: summaries keyed by their files' path + size + mtime. Never trusted blindly:
 * an entry is used only when every one of its files still has the recorded size and mtime; a cache that
 * does not parse, is cut short or has another version is dropped and rebuilt.
 *
 * On disk it is one JSON value per line (see docs/architecture.md): read and written a line at a time, so
 * neither the whole text nor a second copy of the catalog is ever held, and strings that repeat across
 * sessions (cwds, roots, models, branches) are stored once and shared in memory.
 */
export class CatalogCache {
  private readonly byFirstPath = new Map<string, CacheEntry>();
  /** Folds to write at the next save (path → saved fold), and saved folds to delete. */
  private readonly pendingFolds = new Map<string, FoldResume>();
  private readonly staleFolds = new Set<string>();
  private dirty = false;
  /** Why the cache was not used, when it was not (for diagnostics). */
  rejected: string | null = null;
  /** Holds only some of the file's entries (CacheFileIndex.partialCache): never saved over the whole. */
  private partial = false;
  /** Entries not yet asked for are found in the file's bytes when they are (`CatalogCache.lazy`). */
  private source: CacheFileIndex | null = null;

  constructor(readonly path: string | null) {}

  /** A cache holding only these entries of the file at `path` (its saved folds load as usual); `save` writes nothing. */
  static partialView(path: string, entries: readonly CachedEntry[]): CatalogCache {
    const cache = new CatalogCache(path);
    cache.partial = true;
    for (const entry of entries) cache.byFirstPath.set(entry.firstPath, entry.entry);
    return cache;
  }

  /**
   * The cache at `path` for a reader that looks up a few sessions (`grep`'s matches): its entries are decoded when
   * they are asked for (CacheFileIndex), not all at once (~0.3 s of CPU for 10k sessions). Read-only: `save` writes
   * nothing, and `sessions` and `retain` see only the entries looked up so far. Falls back to an empty cache when
   * the file is missing or not one `load` would use.
   */
  static async lazy(path: string): Promise<CatalogCache> {
    const cache = new CatalogCache(path);
    cache.partial = true;
    cache.source = await CacheFileIndex.open(path);
    if (cache.source === null) cache.rejected = 'no usable cache';
    return cache;
  }

  /** The entry keyed by this first path (decoded from the file on first use in a lazy cache). */
  private entry(first: string): CacheEntry | undefined {
    const known = this.byFirstPath.get(first);
    if (known !== undefined || this.source === null) return known;
    const found = this.source.entryByFirstPath(first);
    if (found === undefined) return undefined;
    this.byFirstPath.set(first, found.entry);
    return found.entry;
  }

  static async load(path: string | null): Promise<CatalogCache> {
    const cache = new CatalogCache(path);
    if (path === null) return cache;
    try {
      for await (const [first, entry] of readEntries(path)) cache.byFirstPath.set(first, entry);
    } catch (error) {
      cache.byFirstPath.clear();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        cache.rejected = 'no cache yet';
      } else {
        cache.rejected = `cache ignored and rebuilt: ${(error as Error).message}`;
        cache.dirty = true;
      }
    }
    return cache;
  }

  /** Every cached session, unvalidated: for painting a first frame while the real scan runs. */
  sessions(): CatalogSession[] {
    const out: CatalogSession[] = [];
    for (const entry of this.byFirstPath.values()) {
      if (entry.session !== null) out.push(entry.session);
      if (entry.rows !== undefined) out.push(...entry.rows);
    }
    return out;
  }

  /**
   * The cached summary for these files, only if every stamp (size, mtime and first bytes) matches exactly: null when
   * they are known to hold no conversation, undefined when they must be read.
   */
  lookup(stamps: readonly FileStamp[]): CatalogSession | null | undefined {
    const entry = stamps[0] ? this.entry(stamps[0][0]) : undefined;
    if (!entry || entry.rows !== undefined || !sameStamps(entry, stamps)) return undefined;
    return entry.session;
  }

  /**
   * The cached entry of exactly these files, without looking at them (their caller knows they did not change since
   * the cache saw them: a mirror's sync): its row, null when they hold no conversation, undefined when not cached.
   */
  lookupUnchanged(paths: readonly string[]): { readonly session: CatalogSession | null; readonly bytes: number } | undefined {
    const entry = paths[0] === undefined ? undefined : this.entry(paths[0]);
    if (!entry || entry.rows !== undefined || stampCount(entry) !== paths.length) return undefined;
    let bytes = entry.size;
    for (let i = 1; i < paths.length; i++) {
      const [path, size] = entry.more![i - 1]!;
      if (path !== paths[i]) return undefined;
      bytes += size;
    }
    return { session: entry.session, bytes };
  }

  /** The cached rows of a store of many conversations, only if the store and its companions are unchanged (see lookup). */
  lookupStore(stamps: readonly FileStamp[]): readonly CatalogSession[] | undefined {
    const entry = stamps[0] ? this.entry(stamps[0][0]) : undefined;
    if (!entry || entry.rows === undefined || !sameStamps(entry, stamps)) return undefined;
    return entry.rows;
  }

  /** Record every row of a store of many conversations, under the stamps of the store and its companions. */
  storeRows(stamps: readonly FileStamp[], rows: readonly CatalogSession[]): void {
    if (stamps.length === 0) return;
    const first = stamps[0]![0];
    if (this.entry(first)?.fold !== undefined) {
      this.pendingFolds.delete(first);
      this.staleFolds.add(first);
    }
    this.byFirstPath.set(first, { ...makeEntry(stamps, null), rows });
    this.dirty = true;
  }

  /**
   * Whether these files (stamps without fingerprints) may have a usable entry: the same files with the same
   * sizes and mtimes, or a single file with a saved fold that did not shrink. Only then are fingerprints worth taking.
   */
  knows(stamps: readonly FileStamp[]): boolean {
    const entry = stamps[0] ? this.entry(stamps[0][0]) : undefined;
    if (!entry || stampCount(entry) !== stamps.length) return false;
    if (entry.fold !== undefined && stamps.length === 1 && stamps[0]![1] >= entry.fold) return true;
    if (stamps[0]![1] !== entry.size || stamps[0]![2] !== entry.mtimeMs) return false;
    return stamps.every(([path, size, mtime], i) => {
      if (i === 0) return true;
      const [cachedPath, cachedSize, cachedMtime] = entry.more![i - 1]!;
      return path === cachedPath && size === cachedSize && mtime === cachedMtime;
    });
  }

  /**
   * Where a changed single-file session's saved fold can go on from: only when the file kept its path and first
   * bytes and did not shrink below the fold (agents append; anything else is read again whole).
   */
  foldCandidate(stamps: readonly FileStamp[]): FoldCandidate | undefined {
    const entry = stamps[0] ? this.entry(stamps[0][0]) : undefined;
    if (!entry || entry.fold === undefined || stamps.length !== 1 || stampCount(entry) !== 1) return undefined;
    const [path, size, , fingerprint] = stamps[0]!;
    if (fingerprint !== entry.fingerprint || size < entry.size || size < entry.fold) return undefined;
    return { path, offset: entry.fold };
  }

  /** The saved fold of `candidate`, or undefined when it is missing or does not match (the file is then read whole). */
  async loadFold(candidate: FoldCandidate): Promise<FoldResume | undefined> {
    // The row the fold made goes with it: a fold keeps counts where the row has the texts (Claude's prompts).
    const row = this.entry(candidate.path)?.session ?? undefined;
    const pending = this.pendingFolds.get(candidate.path);
    if (pending !== undefined) return pending.offset === candidate.offset ? { ...pending, ...(row ? { row } : {}) } : undefined;
    if (this.path === null) return undefined;
    try {
      const saved = JSON.parse((await readRegularFile(foldPath(this.path, candidate.path))).toString('utf8')) as Partial<FoldResume> | null;
      if (saved?.path !== candidate.path || saved.offset !== candidate.offset || saved.state === undefined) return undefined;
      return { path: saved.path, offset: saved.offset, state: saved.state, ...(row ? { row } : {}) };
    } catch {
      return undefined;
    }
  }

  /** Record the row of these files, or null when they hold no conversation (then they are not read again until they change). */
  store(stamps: readonly FileStamp[], session: CatalogSession | null, fold?: FoldResume): void {
    if (stamps.length === 0) return;
    // The stamps' paths are usually the session's own: share those strings rather than keep two copies.
    const shared = session === null ? stamps : stamps.map(([path, size, mtime, fingerprint]): FileStamp => [session.paths.find((p) => p === path) ?? path, size, mtime, fingerprint]);
    const first = shared[0]![0];
    const previous = this.entry(first);
    const keepFold = session !== null && fold !== undefined && stamps.length === 1 && fold.path === first;
    this.byFirstPath.set(first, makeEntry(shared, session, keepFold ? fold.offset : undefined));
    if (keepFold) {
      this.pendingFolds.set(first, fold);
      this.staleFolds.delete(first);
    } else if (previous?.fold !== undefined) {
      this.pendingFolds.delete(first);
      this.staleFolds.add(first);
    }
    this.dirty = true;
  }

  /** Keep only the entries whose first file is in `paths` (files that disappeared are forgotten). */
  retain(paths: ReadonlySet<string>): void {
    for (const key of this.byFirstPath.keys()) {
      if (!paths.has(key)) {
        if (this.byFirstPath.get(key)?.fold !== undefined) this.staleFolds.add(key);
        this.pendingFolds.delete(key);
        this.byFirstPath.delete(key);
        this.dirty = true;
      }
    }
  }

  /**
   * Write the cache atomically (temp + rename: a reader never sees half a file), a line at a time, and
   * beside it the first screen: the newest conversations overall and under `scopeDir`, already merged and
   * sorted, small enough to paint the browser's first frame before the whole cache is read.
   */
  async save(head?: { readonly sessions: readonly CatalogSession[]; readonly scopeDir: string }): Promise<void> {
    if (this.path === null || this.partial) return;
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await removeStaleTemps(dirname(this.path), Date.now(), CACHE_TEMP_NAME);
    if (this.dirty) {
      await this.saveFolds(this.path);
      await writeEntries(this.path, this.byFirstPath.entries());
      this.dirty = false;
      await removeOlderVersions(this.path);
    }
    if (head) {
      const under = head.sessions.filter((s) => isUnder(s.cwd, head.scopeDir));
      const picked = new Set([...head.sessions.slice(0, HEAD_ROWS), ...under.slice(0, HEAD_ROWS)]);
      const body: CacheHead = { version: CACHE_VERSION, scopeDir: head.scopeDir, total: head.sessions.length, sessions: head.sessions.filter((s) => picked.has(s)) };
      const temp = `${headPath(this.path)}.tmp-${process.pid}`;
      await unlink(temp).catch(() => undefined);
      await writeFile(temp, JSON.stringify(body), { mode: 0o600, flag: 'wx' });
      await rename(temp, headPath(this.path));
    }
  }
  /** Folds are written before the entries that point to them; an entry whose fold cannot be written loses it. */
  private async saveFolds(cachePath: string): Promise<void> {
    if (this.pendingFolds.size === 0 && this.staleFolds.size === 0) return;
    await mkdir(foldDir(cachePath), { recursive: true, mode: 0o700 });
    for (const path of this.staleFolds) await unlink(foldPath(cachePath, path)).catch(() => undefined);
    this.staleFolds.clear();
    for (const [path, fold] of this.pendingFolds) {
      const target = foldPath(cachePath, path);
      const temp = `${target}.tmp-${process.pid}`;
      try {
        await writeFile(temp, JSON.stringify({ path: fold.path, offset: fold.offset, state: fold.state }), { mode: 0o600 });
        await rename(temp, target);
      } catch {
        await unlink(temp).catch(() => undefined);
        const entry = this.byFirstPath.get(path);
        if (entry !== undefined) this.byFirstPath.set(path, makeEntry(stampsOfEntry(path, entry), entry.session));
      }
    }
    this.pendingFolds.clear();
  }
}

/** The folder of saved folds beside the cache file: one small JSON file per big session file. */
function foldDir(cachePath: string): string {
  return cachePath.replace(/\.jsonl?$/, '') + '.folds';
}

/** A session file's saved fold, named by a hash of its path. */
export function foldPath(cachePath: string, sessionPath: string): string {
  return join(foldDir(cachePath), `${createHash('sha1').update(sessionPath).digest('hex')}.json`);
}

/** The temp names save() writes (`<file>.tmp-<pid>`): what a killed run leaves behind. */
const CACHE_TEMP_NAME = /^catalog-v\d+(?:-[0-9a-f]+)?\.(?:jsonl|head\.json)\.tmp-(\d+)$/;

/** Rows kept in the first-screen file (per slice: overall, and under the directory it was saved for). */
const HEAD_ROWS = 200;

interface CacheHead {
  readonly version: number;
  readonly scopeDir: string;
  readonly total: number;
  readonly sessions: readonly CatalogSession[];
}

function headPath(path: string): string {
  return path.replace(/\.jsonl?$/, '') + '.head.json';
}

/**
 * The first screen saved by the last run (newest first), or null. Cheap: a few hundred rows. Every row is checked
 * field by field (the file is painted before anything else runs): a file that is not regular, does not parse, or
 * holds one bad row is deleted and null returned, and the next save writes it anew.
 */
export async function loadCacheHead(path: string | null): Promise<readonly CatalogSession[] | null> {
  if (path === null) return null;
  const file = headPath(path);
  let head: unknown;
  try {
    head = JSON.parse((await readRegularFile(file)).toString('utf8'));
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'EFTYPE') await unlink(file).catch(() => undefined);
    return null;
  }
  const record = head !== null && typeof head === 'object' ? (head as Partial<Record<keyof CacheHead, unknown>>) : null;
  // Another version's file is left for that version (removeOlderVersions cleans up once ours is written).
  if (record !== null && typeof record.version === 'number' && record.version !== CACHE_VERSION) return null;
  if (record === null || !Array.isArray(record.sessions) || !record.sessions.every(isHeadSession)) {
    await unlink(file).catch(() => undefined);
    return null;
  }
  return record.sessions;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** Every field a row, the preview and search read, with its type: a first-screen row is used only when all hold. */
function isHeadSession(value: unknown): value is CatalogSession {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const s = value as Partial<Record<keyof CatalogSession, unknown>>;
  return (
    isString(s.id) &&
    AGENTS.includes(s.agent as Agent) &&
    isString(s.path) &&
    Array.isArray(s.paths) &&
    s.paths.length > 0 &&
    s.paths.every(isString) &&
    isString(s.root) &&
    isStringOrNull(s.cwd) &&
    isString(s.title) &&
    isStringOrNull(s.firstPrompt) &&
    isStringOrNull(s.lastPrompt) &&
    isStringOrNull(s.name) &&
    isCount(s.userTurns) &&
    typeof s.userTurnsExact === 'boolean' &&
    Array.isArray(s.prompts) &&
    s.prompts.every(isString) &&
    isTime(s.createdAt) &&
    isTime(s.updatedAt) &&
    isStringOrNull(s.forkedFrom) &&
    (s.fork === null || isForkOrigin(s.fork)) &&
    (s.lineage === undefined || isString(s.lineage)) &&
    isStringOrNull(s.gitBranch) &&
    isStringOrNull(s.model) &&
    typeof s.archived === 'boolean' &&
    (s.usage === null || isUsage(s.usage)) &&
    isFiniteNumber(s.size) &&
    isFiniteNumber(s.mtimeMs)
  );
}

/**
 * Earlier versions' files beside the current one (and, for a cache keyed by its locations, the one shared file
 * of this version that came before the keys): dead weight once the current one is written.
 */
async function removeOlderVersions(path: string): Promise<void> {
  const match = /^catalog-v(\d+)(-[0-9a-f]+)?\.jsonl$/.exec(basename(path));
  if (!match) return;
  const current = Number(match[1]);
  const keyed = match[2] !== undefined;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    const other = /^catalog-v(\d+)(-[0-9a-f]+)?\.(json|jsonl|head\.json|folds)$/.exec(name);
    if (!other) continue;
    const version = Number(other[1]);
    if (version < current || (keyed && version === current && other[2] === undefined)) {
      const target = join(dirname(path), name);
      // An older version's saved folds are a folder of small files; our own folders only (never a symlink).
      if (other[3] === 'folds') await removeFoldFolder(target);
      else await unlink(target).catch(() => undefined);
    }
  }
}

async function removeFoldFolder(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => null);
  if (info === null || !info.isDirectory()) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isFile() && entry.name.endsWith('.json')) await unlink(join(dir, entry.name)).catch(() => undefined);
  await rmdir(dir).catch(() => undefined);
}

// ---------------------------------------------------------------- the file format
//
// Line 1: {"version":5}. Then, in any order, string lines ["s", text] (each appends to a table of shared
// strings; entries refer to it by index) and entry lines, one JSON object per cached file group. Last line:
// {"end": number of entries, all kinds} (a file without it was cut short and is not trusted). Files that hold no
// conversation are an entry {"none": [[path, size, mtimeMs, fingerprint], ...]} (not read again until they change).
// A store of many conversations (opencode's database) is {"store": [its stamp, its companions' ...], "rows": [entry
// of each conversation, as below]}.
// In an entry of a conversation:
//   paths   [path, ...]   whole strings: a path built from a shared directory and a name would be a V8 cons
//           string, flattened into a private copy of its directory part the first time it is compared
//   path    index into paths, or the string itself
//   stamps  [[path, size, mtimeMs, fingerprint], ...]   path: index into paths, or the string itself
//   fold    offset where the live file's saved fold stopped (the fold is in <cache>.folds/<sha1 of path>.json)
//   cwd, root, model, gitBranch   table index or null
//   title, firstPrompt, lastPrompt   index into prompts, -1 (title only) for name, or a string / null
// and every other field of CatalogSession as it is.

interface EncodedEntry {
  readonly id: string;
  readonly agent: string;
  readonly paths: readonly string[];
  readonly path: number | string;
  readonly stamps: readonly (readonly [number | string, number, number, string])[];
  readonly fold?: number;
  readonly cwd: number | null;
  readonly root: number;
  readonly model: number | null;
  readonly gitBranch: number | null;
  readonly title: number | string;
  readonly firstPrompt: number | string | null;
  readonly lastPrompt: number | string | null;
  readonly name: string | null;
  readonly prompts: readonly string[];
  readonly userTurns: number;
  readonly userTurnsExact: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly forkedFrom: string | null;
  readonly fork: ForkOrigin | null;
  readonly lineage?: string;
  readonly subagent?: SubagentOrigin;
  readonly archived: boolean;
  readonly usage: Usage | null;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Bytes gathered before a write: big enough for few system calls, small enough to never matter. */
const WRITE_CHUNK = 1 << 20;

async function writeEntries(path: string, entries: Iterable<readonly [string, CacheEntry]>): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  // Exclusive create (after removing a leftover of this PID): never opens a FIFO or follows a symlink put there.
  await unlink(temp).catch(() => undefined);
  const handle = await open(temp, 'wx', 0o600);
  try {
    const table = new Map<string, number>();
    let buffered = `${JSON.stringify({ version: CACHE_VERSION })}\n`;
    const ref = (text: string): number => {
      let index = table.get(text);
      if (index === undefined) {
        index = table.size;
        table.set(text, index);
        buffered += `${JSON.stringify(['s', text])}\n`;
      }
      return index;
    };
    let count = 0;
    for (const [first, entry] of entries) {
      const stamps = stampsOfEntry(first, entry);
      const line = JSON.stringify(
        entry.rows !== undefined
          ? { store: stamps, rows: entry.rows.map((row) => encodeEntry(stamps.slice(0, 1), row, undefined, ref)) }
          : entry.session === null
            ? { none: stamps }
            : encodeEntry(stamps, entry.session, entry.fold, ref),
      ); // after the string lines it adds
      buffered += `${line}\n`;
      count++;
      if (buffered.length >= WRITE_CHUNK) {
        await handle.write(buffered);
        buffered = '';
      }
    }
    await handle.write(`${buffered}${JSON.stringify({ end: count })}\n`);
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temp, path);
}

function encodeEntry(stamps: readonly FileStamp[], s: CatalogSession, fold: number | undefined, ref: (text: string) => number): EncodedEntry {
  const promptRef = (text: string | null): number | string | null => {
    if (text === null) return null;
    const at = s.prompts.indexOf(text);
    return at === -1 ? text : at;
  };
  const pathRef = (path: string): number | string => {
    const at = s.paths.indexOf(path);
    return at === -1 ? path : at;
  };
  return {
    id: s.id,
    agent: s.agent,
    paths: s.paths,
    path: pathRef(s.path),
    stamps: stamps.map(([path, size, mtime, fingerprint]) => [pathRef(path), size, mtime, fingerprint] as const),
    ...(fold === undefined ? {} : { fold }),
    cwd: s.cwd === null ? null : ref(s.cwd),
    root: ref(s.root),
    model: s.model === null ? null : ref(s.model),
    gitBranch: s.gitBranch === null ? null : ref(s.gitBranch),
    title: s.name !== null && s.title === s.name ? -1 : (promptRef(s.title) ?? ''),
    firstPrompt: promptRef(s.firstPrompt),
    lastPrompt: promptRef(s.lastPrompt),
    name: s.name,
    prompts: s.prompts,
    userTurns: s.userTurns,
    userTurnsExact: s.userTurnsExact,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    forkedFrom: s.forkedFrom,
    fork: s.fork,
    ...(s.lineage !== undefined ? { lineage: s.lineage } : {}),
    ...(s.subagent !== undefined ? { subagent: s.subagent } : {}),
    archived: s.archived,
    usage: s.usage,
    size: s.size,
    mtimeMs: s.mtimeMs,
  };
}

/** One entry of the cache file as CacheFileIndex finds it: the key (its first file), its files' stamps, its row(s). */
export interface CachedEntry {
  readonly firstPath: string;
  /** Null: the files hold no conversation. */
  readonly session: CatalogSession | null;
  readonly stamps: readonly FileStamp[];
  /** A store of many conversations (its rows are not looked at here). */
  readonly store: boolean;
  /** @internal */
  readonly entry: CacheEntry;
}

function cachedEntry(decoded: readonly [string, CacheEntry]): CachedEntry {
  const [firstPath, entry] = decoded;
  return { firstPath, session: entry.session, stamps: stampsOfEntry(firstPath, entry), store: entry.rows !== undefined, entry };
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const STRING_OPENING = Buffer.from('["s",');
const NONE_OPENING = Buffer.from('{"none":[["');
const STORE_OPENING = Buffer.from('{"store":[["');
const PATHS_KEY = Buffer.from('"paths":["');
const END_OPENING = Buffer.from('{"end":');

/**
 * The cache file's bytes, with its entries found without decoding them (`show` of one id on a 10k-session home:
 * decoding all of them is ~170 ms). One walk over the lines checks the file as `load` does (version, end line, entry
 * count) and decodes the shared strings; an entry is found by bytes it holds (searched at memchr speed: its id, a
 * file's path, a member) and decoded when it is asked for. An entry that does not decode makes the lookup fail.
 */
export class CacheFileIndex {
  private constructor(
    readonly path: string,
    private readonly bytes: Buffer,
    private readonly table: readonly string[],
    /** Where each entry line starts, in file order. */
    private readonly entryStarts: readonly number[],
  ) {}

  /** Entry lines by the first path they name (built on first use: `entryByFirstPath`). */
  private byFirstPath: Map<string, number> | null = null;

  /** Lines decoded so far, by where they start (a row of a 50k-turn session holds its 50k prompts: ~20 ms). */
  private readonly decoded = new Map<number, CachedEntry | null>();

  /** The index of the cache file at `path`, or null when there is none or it is not one `load` would use. */
  static async open(path: string): Promise<CacheFileIndex | null> {
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(path);
    } catch {
      return null;
    }
    const table: string[] = [];
    const entryStarts: number[] = [];
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
        }
        start = end + 1;
      }
    } catch {
      return null;
    }
    if (ended !== entryStarts.length) return null;
    return new CacheFileIndex(path, bytes, table, entryStarts);
  }

  /**
   * The entry keyed by this first path (a lookup of `CatalogCache.lazy`), undefined when there is none or it does
   * not decode. Entry lines name their first path early (`{"id":…,"agent":…,"paths":["…"`, `{"none":[["…"`,
   * `{"store":[["…"`): one pass over the lines maps those to where the lines start; an entry whose key turns out to
   * be another of its paths is not used (its files are then read, as for a session the cache does not know).
   */
  entryByFirstPath(path: string): CachedEntry | undefined {
    if (this.byFirstPath === null) {
      this.byFirstPath = new Map();
      for (const start of this.entryStarts) {
        const first = this.firstPathAt(start);
        if (first !== null && !this.byFirstPath.has(first)) this.byFirstPath.set(first, start);
      }
    }
    const start = this.byFirstPath.get(path);
    if (start === undefined) return undefined;
    const [entry] = this.decodeLines([start]) ?? [];
    return entry?.firstPath === path ? entry : undefined;
  }

  /** The first path an entry line names (see entryByFirstPath), or null when it is not where expected. */
  private firstPathAt(start: number): string | null {
    const { bytes } = this;
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    let open: number;
    if (startsWith(bytes, start, NONE_OPENING)) open = start + NONE_OPENING.length - 1;
    else if (startsWith(bytes, start, STORE_OPENING)) open = start + STORE_OPENING.length - 1;
    else {
      const key = bytes.indexOf(PATHS_KEY, start);
      if (key === -1 || key >= end) return null;
      open = key + PATHS_KEY.length - 1;
    }
    const close = bytes.indexOf(QUOTE, open + 1);
    if (close === -1 || close >= end) return null;
    // A path with an escape (a quote, a backslash, a control character) is decoded as JSON.
    const raw = bytes.toString('utf8', open + 1, close);
    if (!raw.includes('\\')) return raw;
    const stringEnd = jsonStringEnd(bytes, open, end);
    if (stringEnd === -1) return null;
    try {
      return JSON.parse(bytes.toString('utf8', open, stringEnd + 1)) as string;
    } catch {
      return null;
    }
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
    const entries = this.entriesWith(JSON.stringify(`${folder}/`).slice(0, -1));
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
    for (let at = this.bytes.indexOf(needle); at !== -1; ) {
      const start = this.bytes.lastIndexOf(NEWLINE, at) + 1;
      let end = this.bytes.indexOf(NEWLINE, at);
      if (end === -1) end = this.bytes.length;
      if (this.bytes.subarray(start, end).indexOf(other) !== -1) return true;
      at = end === this.bytes.length ? -1 : this.bytes.indexOf(needle, end);
    }
    return false;
  }

  /** A read-only cache of these entries, for the row's saved fold (`savedFold`). */
  partialCache(entries: readonly CachedEntry[]): CatalogCache {
    return CatalogCache.partialView(this.path, entries);
  }

  private decodeLines(starts: readonly number[]): CachedEntry[] | null {
    const out: CachedEntry[] = [];
    for (const start of starts) {
      const known = this.decoded.get(start);
      if (known === null) return null;
      if (known !== undefined) {
        out.push(known);
        continue;
      }
      let end = this.bytes.indexOf(NEWLINE, start);
      if (end === -1) end = this.bytes.length;
      let value: unknown;
      try {
        value = JSON.parse(this.bytes.toString('utf8', start, end));
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
      const entry = decoded === null ? null : cachedEntry(decoded);
      this.decoded.set(start, entry);
      if (entry === null) return null;
      out.push(entry);
    }
    return out;
  }
}

/** Where the JSON string opening at `open` (its quote) closes, before `end`; -1 when it does not. */
function jsonStringEnd(bytes: Buffer, open: number, end: number): number {
  for (let at = open + 1; at < end; at++) {
    if (bytes[at] === 0x5c) at++;
    else if (bytes[at] === QUOTE) return at;
  }
  return -1;
}

function startsWith(bytes: Buffer, at: number, prefix: Buffer): boolean {
  return bytes.length - at >= prefix.length && bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

/** The entries of a cache file, in order; throws on anything malformed, on another version, or on a file cut short. */
async function* readEntries(path: string): AsyncGenerator<readonly [string, CacheEntry]> {
  const table: string[] = [];
  let lineNo = 0;
  let count = 0;
  let ended = false;
  for await (const line of readLines(path)) {
    lineNo++;
    if (ended) throw new Error('data after the end line');
    let value: unknown;
    try {
      value = JSON.parse(line.bytes.toString('utf8'));
    } catch {
      throw new Error(`line ${lineNo} is not JSON`);
    }
    if (lineNo === 1) {
      const version = (value as { version?: unknown } | null)?.version;
      if (version !== CACHE_VERSION) throw new Error(`cache version ${String(version)}`);
    } else if (Array.isArray(value)) {
      if (value.length !== 2 || value[0] !== 's' || typeof value[1] !== 'string') throw new Error(`line ${lineNo}: malformed string`);
      table.push(value[1]);
    } else if (value && typeof value === 'object' && 'store' in value) {
      const entry = decodeStore(value as { store: unknown; rows?: unknown }, table);
      if (!entry) throw new Error(`line ${lineNo}: malformed entry of a store of conversations`);
      count++;
      yield entry;
    } else if (value && typeof value === 'object' && 'none' in value) {
      const entry = decodeNone((value as { none: unknown }).none);
      if (!entry) throw new Error(`line ${lineNo}: malformed entry of files without a conversation`);
      count++;
      yield entry;
    } else if (value && typeof value === 'object' && 'end' in value) {
      if ((value as { end: unknown }).end !== count) throw new Error(`line ${lineNo}: ${count} entries, end line says ${String((value as { end: unknown }).end)}`);
      ended = true;
    } else {
      const entry = decodeEntry(value, table);
      if (!entry) throw new Error(`line ${lineNo}: malformed cache entry`);
      count++;
      yield entry;
    }
  }
  if (lineNo === 0) throw new Error('empty file');
  if (!ended) throw new Error('cut short (no end line)');
}

/** `{"none": stamps}`: files that hold no conversation (stamp paths written whole). */
function decodeNone(value: unknown): readonly [string, CacheEntry] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const stamps: FileStamp[] = [];
  for (const stamp of value as unknown[]) {
    if (!Array.isArray(stamp) || stamp.length !== 4 || typeof stamp[0] !== 'string' || typeof stamp[1] !== 'number' || typeof stamp[2] !== 'number' || typeof stamp[3] !== 'string') return null;
    stamps.push([stamp[0], stamp[1], stamp[2], stamp[3]]);
  }
  return [stamps[0]![0], makeEntry(stamps, null)];
}

/** `{"store": stamps, "rows": [entry, ...]}`: a store of many conversations and every row in it. */
function decodeStore(value: { store: unknown; rows?: unknown }, table: readonly string[]): readonly [string, CacheEntry] | null {
  const none = decodeNone(value.store);
  if (none === null || !Array.isArray(value.rows)) return null;
  const rows: CatalogSession[] = [];
  for (const encoded of value.rows as unknown[]) {
    const decoded = decodeEntry(encoded, table);
    if (decoded === null || decoded[1].session === null) return null;
    rows.push(decoded[1].session);
  }
  return [none[0], { ...none[1], rows }];
}

const AGENT_BY_NAME = new Map<unknown, Agent>(AGENTS.map((agent) => [agent, agent]));

function decodeEntry(value: unknown, table: readonly string[]): readonly [string, CacheEntry] | null {
  if (!value || typeof value !== 'object') return null;
  const e = value as Partial<Record<keyof EncodedEntry, unknown>>;
  const agent = AGENT_BY_NAME.get(e.agent);
  const prompts = e.prompts;
  if (agent === undefined || typeof e.id !== 'string' || !Array.isArray(prompts) || !prompts.every((p) => typeof p === 'string')) return null;
  const tableRef = (v: unknown): string | null | undefined => (v === null ? null : typeof v === 'number' && v >= 0 && v < table.length ? table[v] : undefined);
  const promptRef = (v: unknown): string | null | undefined => (v === null || typeof v === 'string' ? v : typeof v === 'number' ? prompts[v] : undefined);
  if (!Array.isArray(e.paths) || e.paths.length === 0) return null;
  const paths = e.paths as unknown[];
  if (!paths.every((p) => typeof p === 'string')) return null;
  const pathRef = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? (paths[v] as string | undefined) : undefined);
  const path = pathRef(e.path);
  if (!Array.isArray(e.stamps) || e.stamps.length === 0) return null;
  const stamps: FileStamp[] = [];
  for (const stamp of e.stamps as unknown[]) {
    if (!Array.isArray(stamp) || stamp.length !== 4 || typeof stamp[1] !== 'number' || typeof stamp[2] !== 'number' || typeof stamp[3] !== 'string') return null;
    const stampPath = pathRef(stamp[0]);
    if (stampPath === undefined) return null;
    stamps.push([stampPath, stamp[1], stamp[2], stamp[3]]);
  }
  const cwd = tableRef(e.cwd);
  const root = tableRef(e.root);
  const model = tableRef(e.model);
  const gitBranch = tableRef(e.gitBranch);
  const name = e.name;
  const title = e.title === -1 ? name : promptRef(e.title);
  const firstPrompt = promptRef(e.firstPrompt);
  const lastPrompt = promptRef(e.lastPrompt);
  if (
    path === undefined ||
    cwd === undefined ||
    typeof root !== 'string' ||
    model === undefined ||
    gitBranch === undefined ||
    !(name === null || typeof name === 'string') ||
    typeof title !== 'string' ||
    firstPrompt === undefined ||
    lastPrompt === undefined ||
    typeof e.userTurns !== 'number' ||
    typeof e.userTurnsExact !== 'boolean' ||
    typeof e.createdAt !== 'string' ||
    typeof e.updatedAt !== 'string' ||
    !(e.forkedFrom === null || typeof e.forkedFrom === 'string') ||
    !(e.fork === null || isForkOrigin(e.fork)) ||
    !(e.lineage === undefined || typeof e.lineage === 'string') ||
    !(e.subagent === undefined || isSubagentOrigin(e.subagent)) ||
    typeof e.archived !== 'boolean' ||
    !(e.usage === null || isUsage(e.usage)) ||
    typeof e.size !== 'number' ||
    typeof e.mtimeMs !== 'number'
  ) {
    return null;
  }
  const session: CatalogSession = {
    id: e.id,
    agent,
    path,
    paths: paths as string[],
    cwd,
    title,
    firstPrompt,
    lastPrompt,
    name,
    userTurns: e.userTurns,
    userTurnsExact: e.userTurnsExact,
    prompts: prompts as string[],
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    forkedFrom: e.forkedFrom,
    fork: e.fork,
    ...(e.lineage !== undefined ? { lineage: e.lineage } : {}),
    ...(e.subagent !== undefined ? { subagent: e.subagent } : {}),
    gitBranch,
    model,
    archived: e.archived,
    usage: e.usage,
    size: e.size,
    mtimeMs: e.mtimeMs,
    root,
  };
  if (!(e.fold === undefined || (typeof e.fold === 'number' && Number.isSafeInteger(e.fold) && e.fold >= 0))) return null;
  return [stamps[0]![0], makeEntry(stamps, session, e.fold)];
}

function isForkOrigin(value: unknown): value is ForkOrigin {
  if (!value || typeof value !== 'object') return false;
  const fork = value as Partial<Record<keyof ForkOrigin, unknown>>;
  return typeof fork.id === 'string' && (fork.atTurn === undefined || typeof fork.atTurn === 'number') && (fork.branchName === undefined || typeof fork.branchName === 'string');
}

function isSubagentOrigin(value: unknown): value is SubagentOrigin {
  if (!value || typeof value !== 'object') return false;
  const origin = value as Partial<Record<keyof SubagentOrigin, unknown>>;
  return typeof origin.kind === 'string' && (origin.parentId === null || typeof origin.parentId === 'string');
}

function isUsage(value: unknown): value is Usage {
  if (!value || typeof value !== 'object') return false;
  const usage = value as Partial<Record<keyof Usage, unknown>>;
  return typeof usage.input === 'number' && typeof usage.output === 'number' && typeof usage.cacheRead === 'number' && typeof usage.cacheWrite === 'number';
}
