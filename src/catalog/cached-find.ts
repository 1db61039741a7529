import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ADAPTERS } from '../core/formats/index.js';
import { headFingerprint } from '../core/io/lines.js';
import type { Agent } from '../core/model.js';
import { CatalogCache } from './cache.js';
import type { CachedEntry } from './cache-file.js';
import { CacheFileIndex } from './cache-file-index.js';
import type { Locations } from './locations.js';
import { resolveSession, sessionsHoldingPath } from './resolve.js';
import { applyNames, FOLD_SAVE_MIN_BYTES, groupOf, ScanContext, type CatalogSession } from './scan.js';
import { mergeRows } from './merge-rows.js';

/** A session found in the catalog cache, as a scan would have found it (see findInCache). */
export interface CachedFind {
  readonly session: CatalogSession;
  /** Lookups of the rows it was merged with (a paginated Codex fork reads its parent's file) and their names. */
  readonly context: ScanContext;
  /** The cache's entries of those rows only (the session's saved fold); never saved. */
  readonly cache: CatalogCache;
}

export interface FindOptions {
  /** The cache file read synchronously (a process that waits for this lookup alone: the CLI). */
  readonly synchronous?: boolean;
}

/**
 * The session whose full id is `id`, from the catalog cache at `cachePath` without scanning every root: what a scan
 * would resolve `id` to, when nothing that decides its row changed since the cache was saved. A row is its own
 * files' (merged with the other files of its id), linked to its lineage family, with its sub-agents nested under
 * it: the entries of those rows are found in the cache file by their bytes (the id, the lineage, a parent id, the
 * cwd a review nests by), their files are checked as a scan checks them (size and mtime; the session's own also
 * by their first bytes), and so are the files of every folder where a file written since could join them (those
 * folders, and the adapter's `rowFolders`): a file there that is new or changed, or any doubt, gives null, and the
 * caller scans. Only for a sub-agent-free row of an adapter that bounds its folders.
 */
export async function findInCache(cachePath: string, locations: Locations, id: string, options: FindOptions = {}): Promise<CachedFind | null> {
  if (locations.within !== undefined) return null;
  const index = options.synchronous === true ? CacheFileIndex.keyedSync(cachePath) : await CacheFileIndex.open(cachePath);
  if (index === null) return null;
  const { entries: seeds, file } = seedsOf(index, id, locations.cwd);
  if (seeds === null || seeds.length === 0 || seeds.some((entry) => entry.session === null || entry.store)) return null;
  const agent = seeds[0]!.session!.agent;
  const adapter = ADAPTERS[agent];
  if (adapter.rowFolders === undefined || adapter.store !== undefined) return null;
  // Another agent's session of the same id makes the id ambiguous; a sub-agent is nested by rows not looked at here.
  if (seeds.some((entry) => entry.session!.agent !== agent || entry.session!.subagent !== undefined)) return null;
  if (seeds.some((entry) => !locations.roots[agent].includes(entry.session!.root))) return null;

  const related = relatedEntries(index, seeds, agent);
  if (related === null) return null;
  const own = new Set(seeds.flatMap((entry) => entry.stamps.map(([path]) => path)));
  for (const entry of related) if (!unchanged(entry, own)) return null;

  // Every folder a file of these rows is in, and those where a file joining them may have been written since.
  const folders = new Map<string, string>();
  for (const entry of related) for (const [path] of entry.stamps) folders.set(dirname(path), entry.session!.root);
  for (const entry of seeds) {
    for (const root of locations.roots[agent]) {
      const more = await adapter.rowFolders(entry.session!, root);
      if (more === null) return null;
      for (const folder of more) if (!folders.has(folder)) folders.set(folder, root);
    }
  }
  for (const [folder, root] of folders) if (!folderUnchanged(index, folder, root, agent)) return null;

  const context = new ScanContext(FOLD_SAVE_MIN_BYTES);
  const rows = related.map((entry) => entry.session!);
  // As a scan registers them: discovery's groups by the id their names give, then the rows by theirs.
  for (const row of rows) for (const group of adapter.groupFiles(row.root, row.paths)) context.register(group);
  for (const row of rows) context.register(groupOf(row), row.id);
  for (const root of new Set(rows.map((row) => row.root))) await context.loadNames(adapter, root);
  if (context.problems.length > 0) return null;
  applyNames(rows, context);
  const { rows: merged, nested } = mergeRows(rows);
  const found = resolveSession([...merged, ...nested], id, locations.cwd);
  if (found.kind !== 'found') return null;
  // A path: found by it, as the one row holding that file (else the scan's rows decide, by prefix or name).
  if (file !== null) {
    const holding = sessionsHoldingPath([...merged, ...nested], file, locations.cwd);
    if (holding.length !== 1 || holding[0] !== found.session) return null;
  }
  return { session: found.session, context, cache: CatalogCache.partialView(index.path, related) };
}

/**
 * The entries of the row `query` names: its id's; or, when no entry has that id and it is a path (from `cwd`) that an
 * entry keys as its first path, with no other entry naming a file of its name, the id's of that entry's row, with
 * the path (`show ~/.claude/projects/…/<id>.jsonl` was a whole scan). Null when an entry does not decode.
 */
function seedsOf(index: CacheFileIndex, query: string, cwd: string): { readonly entries: CachedEntry[] | null; readonly file: string | null } {
  const byId = index.entriesOf(query);
  if (byId === null || byId.length > 0) return { entries: byId, file: null };
  const file = resolve(cwd, query);
  // No such file: no row holds it (sessionsHoldingPath), and the keyed index need not read the whole cache to say so.
  if (!existsSync(file)) return { entries: [], file: null };
  const entry = index.entryByFirstPath(file);
  if (entry?.session == null) return { entries: [], file: null };
  // Paths are written whole as JSON strings: a file of this name closes one with its name and the quote.
  const named = index.entriesWith(JSON.stringify(`/${basename(file)}`).slice(1));
  if (named === null || named.some((other) => other.firstPath !== entry.firstPath)) return { entries: [], file: null };
  return { entries: index.entriesOf(entry.session.id), file };
}

/**
 * The entries whose rows decide the seeds' merged row: the other entries of each id met, the lineage family of each
 * row met (and their ids' other entries), the rows naming a seed as their parent, and, when a review of the seeds'
 * cwd names no parent (it is nested by cwd and time), every row of that cwd; and the fork parents a seed's
 * transcript may read (Codex's paginated forks). Null when one does not decode or is a store.
 */
function relatedEntries(index: CacheFileIndex, seeds: readonly CachedEntry[], agent: Agent): CachedEntry[] | null {
  const byPath = new Map<string, CachedEntry>();
  const ids: string[] = [];
  const seenIds = new Set<string>();
  const seenLineages = new Set<string>();
  const add = (entries: readonly CachedEntry[] | null): boolean => {
    if (entries === null) return false;
    for (const entry of entries) {
      if (entry.store) return false;
      const row = entry.session;
      if (row === null || row.agent !== agent || byPath.has(entry.firstPath)) continue;
      byPath.set(entry.firstPath, entry);
      if (!seenIds.has(row.id)) ids.push(row.id);
    }
    return true;
  };
  const seedRows = seeds.map((entry) => entry.session!);
  if (!add(seeds)) return null;
  for (const row of seedRows) {
    if (!add(index.entriesWith(`"parentId":${JSON.stringify(row.id)}`))) return null;
    const parents = new Set<string>();
    for (let parent = row.forkedFrom; parent !== null && !parents.has(parent); ) {
      parents.add(parent);
      const entries = index.entriesOf(parent);
      if (!add(entries)) return null;
      parent = entries!.find((entry) => entry.session?.agent === agent)?.session?.forkedFrom ?? null;
    }
    if (row.cwd === null) continue;
    const cwd = index.stringRef(row.cwd);
    if (cwd === undefined) return null;
    const cwdMember = `"cwd":${cwd},`;
    if (index.anyLineWith('"parentId":null}', cwdMember) && !add(index.entriesWith(cwdMember))) return null;
  }
  // Same ids and lineages, until no new row is met.
  while (ids.length > 0) {
    const next = ids.pop()!;
    if (seenIds.has(next)) continue;
    seenIds.add(next);
    // The seeds are their id's entries (entriesOf): not searched for again.
    if (!add(next === seedRows[0]!.id ? seeds : index.entriesOf(next))) return null;
    for (const entry of [...byPath.values()]) {
      const lineage = entry.session!.lineage;
      if (lineage === undefined || seenLineages.has(lineage)) continue;
      seenLineages.add(lineage);
      if (!add(index.entriesWith(`"lineage":${JSON.stringify(lineage)}`))) return null;
    }
  }
  return [...byPath.values()];
}

/** Whether an entry's files still have their cached size and mtime (and, for the files in `own`, first bytes). */
function unchanged(entry: CachedEntry, own: ReadonlySet<string>): boolean {
  try {
    return entry.stamps.every(([path, size, mtimeMs, fingerprint]) => {
      const info = statSync(path);
      return info.isFile() && info.size === size && info.mtimeMs === mtimeMs && (!own.has(path) || headFingerprint(path) === fingerprint);
    });
  } catch {
    return false;
  }
}

/** Every session file directly in `folder` (as the agent groups files under `root`) is cached with its size and mtime. */
function folderUnchanged(index: CacheFileIndex, folder: string, root: string, agent: Agent): boolean {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return true; // no such folder: no file in it
  }
  const groups = ADAPTERS[agent].groupFiles(
    root,
    names.map((name) => join(folder, name)),
  );
  if (groups.length === 0) return true;
  const known = index.stampsIn(folder);
  if (known === null) return false;
  for (const group of groups) {
    for (const path of group.paths) {
      let info;
      try {
        info = statSync(path);
      } catch {
        return false;
      }
      if (!info.isFile()) continue; // a folder named like a session file: discovery skips it too
      const stamp = known.get(path);
      if (stamp === undefined || stamp[1] !== info.size || stamp[2] !== info.mtimeMs) return false;
    }
  }
  return true;
}
