// Trigram maps of big session files (native/search.c's "trigram maps"): where they are kept, and the folder's pruning.
import { closeSync, existsSync, readdirSync, readSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { removeStaleTemps } from '../core/io/atomic.js';
import { openRegularSync } from '../core/io/regular.js';

/**
 * Trigram maps of big session files, kept between searches by the native engine (native/search.c): a search for
 * text a big file cannot hold reads only what was appended to it since its map was made.
 */
export interface TrigramMaps {
  /** The folder they are kept in (created when missing). */
  readonly dir: string;
  /** The least size of a file that gets one (default 16 MiB: a map is 512 KiB). */
  readonly minBytes?: number;
}

/** The trigram maps kept beside the catalog cache at `cachePath`. */
export function trigramMapsBeside(cachePath: string): TrigramMaps {
  return { dir: join(dirname(cachePath), mapsFolder(TRIGRAM_MAPS_VERSION)) };
}

const mapsFolder = (version: number): string => `grep-trigrams-v${version}`;

/** The maps' format (TRI_MAGIC in native/search.c): a folder per version, so an old one is never read. */
const TRIGRAM_MAPS_VERSION = 2;

/** Maps kept before the folder is pruned (at 512 KiB each: 256 MiB). */
export const MAX_TRIGRAM_MAPS = 512;

/** Where a map names its file (tri_header_t in native/search.c): the path's length, then the path. */
const MAP_PATH_LENGTH_AT = 72;
const MAP_PATH_AT = 80;

/** A map being written (tri_save in native/search.c): `<16 hex>.tri.<pid>.<thread, hex>` until it is renamed. */
const MAP_TEMP_NAME = /^[0-9a-f]{16}\.tri\.(\d+)\.[0-9a-f]+$/;

/**
 * Keep the folder of maps to `keep` maps once it holds more: first those whose session file is gone are removed, then
 * the oldest written. A map is only read for the file it names, so removing one costs a full read of that file later.
 * Maps a killed search left half-written go as every other temp file does (`removeStaleTemps`).
 */
export async function pruneTrigramMaps(dir: string, keep = MAX_TRIGRAM_MAPS): Promise<void> {
  removeOlderVersions(dir);
  await removeStaleTemps(dir, Date.now(), MAP_TEMP_NAME);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.tri'));
  } catch {
    return;
  }
  if (names.length <= keep) return;
  const left: { readonly path: string; readonly written: number }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const header = Buffer.alloc(MAP_PATH_AT + 4096);
      const fd = openRegularSync(path);
      let read: number;
      try {
        read = readSync(fd, header, 0, header.length, 0);
      } finally {
        closeSync(fd);
      }
      const length = read >= MAP_PATH_AT ? header.readUInt32LE(MAP_PATH_LENGTH_AT) : -1;
      const named = length >= 0 && MAP_PATH_AT + length <= read ? header.toString('utf8', MAP_PATH_AT, MAP_PATH_AT + length) : null;
      if (named === null || !existsSync(named)) unlinkSync(path);
      else left.push({ path, written: statSync(path).mtimeMs });
    } catch {
      // Gone meanwhile (another search pruned it), or unreadable: left alone.
    }
  }
  left.sort((a, b) => a.written - b.written);
  for (const { path } of left.slice(0, Math.max(0, left.length - keep))) rmSync(path, { force: true });
}

/**
 * The folders of older versions' maps beside `dir` (this version's folder, as `trigramMapsBeside` names it): no search
 * reads them again (version 1 held trigrams alone, up to 128 MiB).
 */
function removeOlderVersions(dir: string): void {
  if (basename(dir) !== mapsFolder(TRIGRAM_MAPS_VERSION)) return;
  for (let version = 1; version < TRIGRAM_MAPS_VERSION; version++) rmSync(join(dirname(dir), mapsFolder(version)), { recursive: true, force: true });
}
