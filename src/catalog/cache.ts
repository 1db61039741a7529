import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isUnder } from './locations.js';
import type { CatalogSession } from './scan.js';

/** Bump when SessionSummary or the adapters' reading changes meaning: old caches are then ignored. */
export const CACHE_VERSION = 1;

/** One file's identity for the cache: a changed size or mtime means the summary must be read again. */
export type FileStamp = readonly [path: string, size: number, mtimeMs: number];

interface CacheEntry {
  readonly stamps: readonly FileStamp[];
  readonly session: CatalogSession;
}

interface CacheFile {
  readonly version: number;
  readonly entries: readonly CacheEntry[];
}

export function defaultCachePath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const base = env.XDG_CACHE_HOME || join(homeDir, '.cache');
  return join(base, 'sessions', `catalog-v${CACHE_VERSION}.json`);
}

/**
 * The persisted catalog: summaries keyed by their files' path + size + mtime. Never trusted blindly:
 * an entry is used only when every one of its files still has the recorded size and mtime; a cache that
 * does not parse or has another version is dropped and rebuilt.
 */
export class CatalogCache {
  private readonly byFirstPath = new Map<string, CacheEntry>();
  private dirty = false;
  /** Why the cache was not used, when it was not (for diagnostics). */
  rejected: string | null = null;

  constructor(readonly path: string | null) {}

  static async load(path: string | null): Promise<CatalogCache> {
    const cache = new CatalogCache(path);
    if (path === null) return cache;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      cache.rejected = 'no cache yet';
      return cache;
    }
    try {
      const parsed = JSON.parse(text) as CacheFile;
      if (parsed.version !== CACHE_VERSION || !Array.isArray(parsed.entries)) throw new Error(`cache version ${String(parsed.version)}`);
      for (const entry of parsed.entries) {
        if (!isEntry(entry)) throw new Error('malformed cache entry');
        cache.byFirstPath.set(entry.stamps[0]![0], entry);
      }
    } catch (error) {
      cache.byFirstPath.clear();
      cache.rejected = `cache ignored and rebuilt: ${(error as Error).message}`;
      cache.dirty = true;
    }
    return cache;
  }

  /** Every cached session, unvalidated: for painting a first frame while the real scan runs. */
  sessions(): CatalogSession[] {
    return [...this.byFirstPath.values()].map((entry) => entry.session);
  }

  /** The cached summary for these files, only if every stamp matches exactly. */
  lookup(stamps: readonly FileStamp[]): CatalogSession | undefined {
    const entry = stamps[0] ? this.byFirstPath.get(stamps[0][0]) : undefined;
    if (!entry || entry.stamps.length !== stamps.length) return undefined;
    for (let i = 0; i < stamps.length; i++) {
      const [path, size, mtime] = stamps[i]!;
      const [cachedPath, cachedSize, cachedMtime] = entry.stamps[i]!;
      if (path !== cachedPath || size !== cachedSize || mtime !== cachedMtime) return undefined;
    }
    return entry.session;
  }

  store(stamps: readonly FileStamp[], session: CatalogSession): void {
    if (stamps.length === 0) return;
    this.byFirstPath.set(stamps[0]![0], { stamps, session });
    this.dirty = true;
  }

  /** Keep only the entries whose first file is in `paths` (files that disappeared are forgotten). */
  retain(paths: ReadonlySet<string>): void {
    for (const key of this.byFirstPath.keys()) {
      if (!paths.has(key)) {
        this.byFirstPath.delete(key);
        this.dirty = true;
      }
    }
  }

  /**
   * Write the cache atomically (temp + rename: a reader never sees half a file), and beside it the first
   * screen: the newest conversations overall and under `scopeDir`, already merged and sorted, small enough
   * to paint the browser's first frame before the whole cache is parsed.
   */
  async save(head?: { readonly sessions: readonly CatalogSession[]; readonly scopeDir: string }): Promise<void> {
    if (this.path === null) return;
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    if (this.dirty) {
      const body: CacheFile = { version: CACHE_VERSION, entries: [...this.byFirstPath.values()] };
      await writeAtomically(this.path, JSON.stringify(body));
      this.dirty = false;
    }
    if (head) {
      const under = head.sessions.filter((s) => isUnder(s.cwd, head.scopeDir));
      const picked = new Set([...head.sessions.slice(0, HEAD_ROWS), ...under.slice(0, HEAD_ROWS)]);
      const body: CacheHead = { version: CACHE_VERSION, scopeDir: head.scopeDir, total: head.sessions.length, sessions: head.sessions.filter((s) => picked.has(s)) };
      await writeAtomically(headPath(this.path), JSON.stringify(body));
    }
  }
}

/** Rows kept in the first-screen file (per slice: overall, and under the directory it was saved for). */
const HEAD_ROWS = 200;

interface CacheHead {
  readonly version: number;
  readonly scopeDir: string;
  readonly total: number;
  readonly sessions: readonly CatalogSession[];
}

function headPath(path: string): string {
  return path.replace(/\.json$/, '') + '.head.json';
}

/** The first screen saved by the last run (unvalidated, newest first), or null. Cheap: a few hundred rows. */
export async function loadCacheHead(path: string | null): Promise<readonly CatalogSession[] | null> {
  if (path === null) return null;
  try {
    const head = JSON.parse(await readFile(headPath(path), 'utf8')) as CacheHead;
    if (head.version !== CACHE_VERSION || !Array.isArray(head.sessions) || !head.sessions.every((s) => isEntry({ stamps: [['', 0, 0]], session: s }))) return null;
    return head.sessions;
  } catch {
    return null;
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}

function isEntry(value: unknown): value is CacheEntry {
  if (!value || typeof value !== 'object') return false;
  const entry = value as Partial<CacheEntry>;
  return (
    Array.isArray(entry.stamps) &&
    entry.stamps.length > 0 &&
    entry.stamps.every((s) => Array.isArray(s) && typeof s[0] === 'string' && typeof s[1] === 'number' && typeof s[2] === 'number') &&
    !!entry.session &&
    typeof entry.session.id === 'string' &&
    typeof entry.session.agent === 'string'
  );
}
