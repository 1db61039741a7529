import type { CatalogSession } from './row.js';

/**
 * One file's identity for the cache: a changed size, mtime or fingerprint of its first bytes (lines.ts
 * headFingerprint) means the row must be read again; a file that only grew can be read from where its fold stopped.
 */
export type FileStamp = readonly [path: string, size: number, mtimeMs: number, fingerprint: string];

/**
 * One cached file group, keyed by its first file's path. That file's stamp is in the entry's own fields (most
 * groups are one file): no stamp arrays per entry, ≈ 140 bytes less each at 100k sessions.
 */
export interface CacheEntry {
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
export function makeEntry(stamps: readonly FileStamp[], session: CatalogSession | null, fold?: number): CacheEntry {
  const [, size, mtimeMs, fingerprint] = stamps[0]!;
  // Most entries are one file without a fold: one object literal, no copies (80k made by a grep at 100k sessions).
  if (stamps.length === 1) return fold === undefined ? { session, size, mtimeMs, fingerprint } : { session, size, mtimeMs, fingerprint, fold };
  const more = stamps.slice(1);
  return fold === undefined ? { session, size, mtimeMs, fingerprint, more } : { session, size, mtimeMs, fingerprint, more, fold };
}

/** An entry's stamps, first file first. */
export function stampsOfEntry(path: string, entry: CacheEntry): FileStamp[] {
  return [[path, entry.size, entry.mtimeMs, entry.fingerprint], ...(entry.more ?? [])];
}

export function stampCount(entry: CacheEntry): number {
  return 1 + (entry.more?.length ?? 0);
}

/** Every stamp (path, size, mtime, fingerprint) equal to the entry's. */
export function sameStamps(entry: CacheEntry, stamps: readonly FileStamp[]): boolean {
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

