// File stamps (size, mtime, the fingerprint of the first bytes) taken by the native engine's threads for a whole
// scan at once (native/stamps.c): a warm start's 100k stats and 64-byte reads, through Node's synchronous fs calls
// on the main thread, were a third of its time.
import type { SessionFileGroup } from '../core/formats/types.js';
import type { CatalogCache } from './cache.js';
import type { FileStamp } from './cache-entry.js';
import { fingerprintText } from '../core/io/lines.js';
import { nativeSearchAddon } from './native-grep.js';

interface StampsAddon {
  stamps?(paths: Buffer, count: number, out: Float64Array, threads: number): void;
}

/** Threads the stamps are taken on (stat and open wait on the kernel, not on a core: as many as libuv's pool). */
const STAMP_THREADS = 4;

/** Paths handed over in one call. */
const STAMP_SLICE = 4096;

/** Each file's stamp, from one native call: `of(i)` is null where the file must be stamped in JS (which says why). */
export interface TakenStamps {
  /** [path, size, mtimeMs, ''] of path i, or null (stat failed, or not a regular file). */
  stamp(i: number): FileStamp | null;
  /** The fingerprint of path i's first bytes (fingerprintOf), or null when it could not be taken. */
  fingerprint(i: number): string | null;
}

/**
 * The stamps of `paths`, taken by the native engine; null when the engine was not built (or predates stamps), or
 * a path holds a NUL (C cannot name it): stamp in JS then.
 */
export function nativeStamps(paths: readonly string[]): TakenStamps | null {
  const addon = nativeSearchAddon() as StampsAddon | null;
  if (addon?.stamps === undefined || paths.length === 0) return null;
  for (const path of paths) if (path.includes('\0')) return null;
  const out = new Float64Array(paths.length * 4);
  // A slice at a time: the paths of 100k files joined at once were ≈ 30 MB more at the peak.
  for (let from = 0; from < paths.length; from += STAMP_SLICE) {
    const slice = paths.slice(from, from + STAMP_SLICE);
    addon.stamps(Buffer.from(`${slice.join('\0')}\0`), slice.length, out.subarray(4 * from, 4 * (from + slice.length)), STAMP_THREADS);
  }
  return {
    stamp: (i) => (out[4 * i]! < 0 ? null : [paths[i]!, out[4 * i]!, out[4 * i + 1]!, '']),
    fingerprint: (i) => {
      const length = out[4 * i + 2]!;
      return length < 0 ? null : fingerprintText(length, out[4 * i + 3]!);
    },
  };
}

/** Below this many groups the stamps are taken in JS: a native call's set-up would cost more than it saves. */
export const NATIVE_STAMPS_MIN_GROUPS = 256;

/** Every group's files' stamps, taken at once by the native engine's threads (null: not built). */
export function takeStamps(groups: readonly SessionFileGroup[]): { readonly stamps: TakenStamps; readonly first: Uint32Array } | null {
  const first = new Uint32Array(groups.length);
  const paths: string[] = [];
  groups.forEach((group, index) => {
    first[index] = paths.length;
    for (const path of group.paths) paths.push(path);
  });
  const stamps = nativeStamps(paths);
  return stamps === null ? null : { stamps, first };
}

/**
 * What `stampsFor` (or, without a cache, `stampsOf`) gives for a group, from the stamps taken beforehand; null when
 * one of its files must be stamped in JS (it failed natively: JS says why).
 */
export function stampsTaken(taken: { readonly stamps: TakenStamps; readonly first: Uint32Array }, index: number, group: SessionFileGroup, cache: CatalogCache | undefined): FileStamp[] | null {
  const stamps: FileStamp[] = [];
  const first = taken.first[index]!;
  for (let i = 0; i < group.paths.length; i++) {
    const stamp = taken.stamps.stamp(first + i);
    if (stamp === null) return null;
    stamps.push(stamp);
  }
  if (cache === undefined || !cache.knows(stamps)) return stamps;
  for (let i = 0; i < stamps.length; i++) {
    const fingerprint = taken.stamps.fingerprint(first + i);
    if (fingerprint === null) return null;
    const [path, size, mtime] = stamps[i]!;
    stamps[i] = [path, size, mtime, fingerprint];
  }
  return stamps;
}
