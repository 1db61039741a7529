// Items as the native engine's push takes them (native-grep.ts), and the lists of items handed over again and again
// (a catalog's, searched at each Ctrl-G: grep-catalog.ts) packed once.
import type { GrepItem } from './grep-worker.js';

/** What the engine's push takes for a list of items (besides the lineage keys). */
export interface PackedItems {
  readonly indexes: Int32Array;
  readonly flags: Int32Array;
  readonly counts: Int32Array;
  /** Every item's paths in order, UTF-8, each followed by a NUL. */
  readonly paths: Buffer;
  readonly keyIndexes: Int32Array;
}

/**
 * Lists of items that are handed over again as they are, and their packing once made (null: not yet). Every pool flags
 * an item the same way (by its agent's adapter), so one packing serves every search.
 */
const packedLists = new WeakMap<readonly GrepItem[], PackedItems | null>();

/**
 * `items` will be handed to pools again, unchanged: a pool that gets the whole list at once packs it for the engine
 * once, for every search (80k paths joined and encoded, per search, held the first match back at 100k sessions).
 */
export function handedAgain(items: readonly GrepItem[]): void {
  if (!packedLists.has(items)) packedLists.set(items, null);
}

/** Whether `items` is a list handed over again (see handedAgain). */
export function isHandedAgain(items: readonly GrepItem[]): boolean {
  return packedLists.has(items);
}

/** `items` packed: kept for a list handed over again, made again for any other. */
export function packedOnce(items: readonly GrepItem[], flagsOf: (item: GrepItem) => number, keyIndexOf: (item: GrepItem) => number): PackedItems {
  const known = packedLists.get(items);
  if (known) return known;
  const indexes = new Int32Array(items.length);
  const flags = new Int32Array(items.length);
  const counts = new Int32Array(items.length);
  const keyIndexes = new Int32Array(items.length);
  const paths: string[] = [];
  items.forEach((item, at) => {
    indexes[at] = item.index;
    flags[at] = flagsOf(item);
    counts[at] = item.paths.length;
    keyIndexes[at] = keyIndexOf(item);
    for (const path of item.paths) paths.push(path);
  });
  // One buffer, encoded at once: a string per path (or one grown path by path) costs more than the search of a file.
  const packed = { indexes, flags, counts, paths: Buffer.from(`${paths.join('\0')}\0`), keyIndexes };
  if (known === null) packedLists.set(items, packed);
  return packed;
}
