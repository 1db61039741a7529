// What grep was told of the lineage of each lineage-linked file whose head does not show it (Claude files whose root
// line is past the head the engine sniffs, or that hold no conversation): 981 of them at 10k sessions, 9,981 at 100k,
// each looked up in the catalog cache on every grep (its entry line found and read). Kept beside the walk memo with the
// stamps it was told for, so that a later grep compares the engine's stamps with them instead; a file with other
// stamps (changed) is looked up as before, and the file is written again.
import { dirname } from 'node:path';
import { makePrivateFolder, replaceCacheFileSync } from '../core/io/atomic.js';
import { readRegularBytesSync } from '../core/io/regular.js';
import type { FileStamp } from './cache-entry.js';
import { CACHE_VERSION } from './cache-file.js';

/** 1: `{version, cache, key, files: [[path, size, mtimeMs, fingerprint, lineage | false (none) | null (no conversation)]]}`. */
const VERSION = 1;

/** What the cache told of one file's lineage (CatalogCache.cachedLineage): its row's lineage, or null when it holds no conversation. */
export type LineageVerdict = { readonly lineage: string | undefined } | null;

type SavedFile = readonly [path: string, size: number, mtimeMs: number, fingerprint: string, lineage: string | false | null];

/** The verdicts file of the walk memo at `memoPath` (its name with `.lineages` before `.json`). */
export function lineageVerdictsPath(memoPath: string): string {
  return `${memoPath.replace(/\.json$/, '')}.lineages.json`;
}

/**
 * The verdicts a grep read (`told`) and was told (`note`), for the run of `key` (the walk memo's). The file is not
 * trusted: anything malformed, another version's, another cache version's or another run's is the same as none.
 */
export class LineageVerdicts {
  private saved: Map<string, { readonly stamp: SavedFile; readonly verdict: LineageVerdict }> | null = null;
  /** This run's verdicts (told or noted), written when one was noted (`save`). */
  private readonly kept: SavedFile[] = [];
  private noted = false;

  constructor(
    private readonly path: string,
    private readonly key: string,
  ) {}

  /** The verdict kept for this one file with exactly these stamps (size, mtime, fingerprint); undefined when there is none. */
  told(stamps: readonly FileStamp[]): LineageVerdict | undefined {
    const [stamp] = stamps;
    if (stamps.length !== 1 || stamp === undefined) return undefined;
    const found = (this.saved ??= this.read()).get(stamp[0]);
    if (found === undefined) return undefined;
    const [, size, mtimeMs, fingerprint] = found.stamp;
    if (size !== stamp[1] || mtimeMs !== stamp[2] || fingerprint !== stamp[3]) return undefined;
    this.kept.push(found.stamp);
    return found.verdict;
  }

  /** What the cache told of this one file (kept for the next run). */
  note(stamps: readonly FileStamp[], verdict: LineageVerdict): void {
    const [stamp] = stamps;
    if (stamps.length !== 1 || stamp === undefined) return;
    this.kept.push([stamp[0], stamp[1], stamp[2], stamp[3], verdict === null ? null : (verdict.lineage ?? false)]);
    this.noted = true;
  }

  /** Write this run's verdicts when one was not kept already (temp file + rename; a failure only costs the next run its lookups). */
  save(): void {
    if (!this.noted) return;
    const text = JSON.stringify({ version: VERSION, cache: CACHE_VERSION, key: this.key, files: this.kept });
    if (makePrivateFolder(dirname(this.path))) replaceCacheFileSync(this.path, text);
  }

  private read(): Map<string, { readonly stamp: SavedFile; readonly verdict: LineageVerdict }> {
    const out = new Map<string, { readonly stamp: SavedFile; readonly verdict: LineageVerdict }>();
    let value: unknown;
    try {
      value = JSON.parse(readRegularBytesSync(this.path).toString('utf8'));
    } catch {
      return out;
    }
    if (typeof value !== 'object' || value === null) return out;
    const data = value as Record<string, unknown>;
    if (data.version !== VERSION || data.cache !== CACHE_VERSION || data.key !== this.key || !Array.isArray(data.files)) return out;
    for (const file of data.files as unknown[]) {
      if (!isSavedFile(file)) return new Map();
      const lineage = file[4];
      out.set(file[0], { stamp: file, verdict: lineage === null ? null : { lineage: lineage === false ? undefined : lineage } });
    }
    return out;
  }
}

function isSavedFile(value: unknown): value is SavedFile {
  if (!Array.isArray(value) || value.length !== 5) return false;
  const [path, size, mtimeMs, fingerprint, lineage] = value as unknown[];
  return typeof path === 'string' && typeof size === 'number' && typeof mtimeMs === 'number' && typeof fingerprint === 'string' && (lineage === null || lineage === false || typeof lineage === 'string');
}
