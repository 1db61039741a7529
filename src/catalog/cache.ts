// The cache's API: lookups by a file group's stamps, saved folds, save. Its file's format is cache-file.ts, the
// lazy reader of that file cache-file-index.ts, the first-screen file cache-head.ts.
import { createHash } from 'node:crypto';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FoldResume } from '../core/formats/types.js';
import { readRegularFile } from '../core/io/regular.js';
import { removeStaleTemps } from '../core/io/atomic.js';
import { AGENTS } from '../core/model.js';
import { makeEntry, sameStamps, stampCount, stampsOfEntry, type CacheEntry, type FileStamp } from './cache-entry.js';
import { CACHE_VERSION, readEntries, removeOlderVersions, writeEntries, type CachedEntry } from './cache-file.js';
import { CacheFileIndex } from './cache-file-index.js';
import { saveCacheHead } from './cache-head.js';
import type { Locations } from './locations.js';
import type { CatalogSession } from './row.js';

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
 * On disk it is one JSON value per line (cache-file.ts, docs/architecture.md): read and written a line at a time, so
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
  /** Holds only some of the file's entries (`partialView`, `lazy`): never saved over the whole. */
  private partial = false;
  /** Entries not yet asked for are found in the file's bytes when they are (`CatalogCache.lazy`). */
  private source: CacheFileIndex | null = null;
  /**
   * A lazy cache's entries are not kept once decoded: its reader (grep) asks once for each session's files, and 80k
   * decoded rows held to the end were a third of a common word's heap at 100k. The last one is, for the lookups of
   * one session's files in a row (`lookup`, then `foldCandidate` when they changed).
   */
  private keepDecoded = true;
  private lastDecoded: readonly [string, CacheEntry] | null = null;

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
   * nothing, and `sessions` and `retain` see only the entries recorded in it (entries decoded are not kept). Falls back to an empty cache when
   * the file is missing or not one `load` would use.
   */
  static async lazy(path: string): Promise<CatalogCache> {
    return CatalogCache.lazyOf(path, await CacheFileIndex.open(path));
  }

  /** `lazy`, its file read synchronously (see CacheFileIndex.openSync): for a process that does nothing else meanwhile. */
  static lazySync(path: string): CatalogCache {
    return CatalogCache.lazyOf(path, CacheFileIndex.openSync(path));
  }

  private static lazyOf(path: string, source: CacheFileIndex | null): CatalogCache {
    const cache = new CatalogCache(path);
    cache.partial = true;
    cache.keepDecoded = false;
    cache.source = source;
    if (cache.source === null) cache.rejected = 'no usable cache';
    return cache;
  }

  /** The entry keyed by this first path (decoded from the file on first use in a lazy cache). */
  private entry(first: string): CacheEntry | undefined {
    const known = this.byFirstPath.get(first);
    if (known !== undefined || this.source === null) return known;
    if (this.lastDecoded?.[0] === first) return this.lastDecoded[1];
    if (!this.keepDecoded) {
      const found = this.source.entryOnlyByFirstPath(first);
      if (found !== undefined) this.lastDecoded = [first, found];
      return found;
    }
    const found = this.source.entryByFirstPath(first);
    if (found !== undefined) this.byFirstPath.set(first, found.entry);
    return found?.entry;
  }

  /** A reader about to look up `count` entries: a lazy cache reads its whole file now when that costs less (CacheFileIndex.expectLookups). */
  expectLookups(count: number): void {
    this.source?.expectLookups(count);
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
   * The lineage of the row `lookup` would give for this one file, when a lazy cache can tell it without decoding the
   * entry (CacheFileIndex.lineageOfExact), null when its files hold no conversation; undefined when it cannot tell
   * (then `lookup` it).
   */
  cachedLineage(stamps: readonly FileStamp[]): { readonly lineage: string | undefined } | null | undefined {
    const [stamp] = stamps;
    if (stamps.length !== 1 || stamp === undefined || this.source === null || this.byFirstPath.has(stamp[0])) return undefined;
    return this.source.lineageOfExact(stamp);
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
    if (head) await saveCacheHead(this.path, head);
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
const CACHE_TEMP_NAME = /^catalog-v\d+(?:-[0-9a-f]+)?\.(?:jsonl|head\.json|lines)\.tmp-(\d+)$/;
