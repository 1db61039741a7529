import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ADAPTER_LIST } from '../core/formats/index.js';
import type { FormatAdapter, Problem, SessionFileGroup } from '../core/formats/types.js';
import type { Locations } from './locations.js';
import type { CatalogCache } from './cache.js';
import { toRows, type CatalogSession, type ScanContext } from './scan.js';
import { mergeById, nestSubagents } from './merge-rows.js';
import { lineageLink } from './lineage.js';
import { sessionKey } from '../core/model.js';
import { describeError } from '../core/errors.js';
import { watchFolders, type FolderWatch } from './folder-watch.js';

/** What changed since the last report: sessions to add or replace (by agent and id), keys that are gone. */
export interface CatalogChange {
  readonly upserted: readonly CatalogSession[];
  readonly removed: readonly string[];
  readonly problems: readonly Problem[];
}

export interface WatchOptions {
  /** The scan's context: id lookups (Codex forks read their parent) and Codex names. */
  readonly context: ScanContext;
  readonly onChange: (change: CatalogChange) => void;
  /** Quiet time after the last file event before re-reading (agents write a line at a time). */
  readonly debounceMs?: number;
  /** Longest wait while events keep coming, so a session being written still updates about once a second. */
  readonly maxWaitMs?: number;
  /** Where rows (and folds of big files) are kept: a session that grows is read from where its fold stopped. */
  readonly cache?: CatalogCache;
}

export interface CatalogWatcher {
  /** Resolves once every root is being watched (events before that may be missed). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

interface WatchRoot {
  readonly adapter: FormatAdapter;
  readonly root: string;
}

const DEFAULT_DEBOUNCE_MS = 150;
const DEFAULT_MAX_WAIT_MS = 600;

/**
 * Watch the agents' session folders with the kernel's per-folder events (no polling; see folder-watch.ts) and report
 * sessions that appear, grow or disappear. Only the conversations whose files changed are summarised again, through their adapter.
 */
export function watchCatalog(locations: Locations, initial: readonly CatalogSession[], options: WatchOptions): CatalogWatcher {
  const { context, onChange, cache } = options;
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const current = new Map(initial.map((session) => [sessionKey(session), session]));
  const roots = watchRoots(locations, initial);
  const pending = new Map<WatchRoot, Set<string>>();
  let timer: NodeJS.Timeout | null = null;
  let firstPendingAt = 0;
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  const schedule = (): void => {
    const now = Date.now();
    if (timer === null) firstPendingAt = now;
    else clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstPendingAt + maxWaitMs - now));
    timer = setTimeout(() => {
      timer = null;
      const batch = new Map(pending);
      pending.clear();
      flushing = flushing.then(() => flush(batch)).catch(() => undefined);
    }, wait);
  };

  const flush = async (batch: ReadonlyMap<WatchRoot, ReadonlySet<string>>): Promise<void> => {
    if (closed) return;
    const upserted = new Map<string, CatalogSession>();
    const removed = new Set<string>();
    const problems: Problem[] = [];
    const before = context.problems.length;
    for (const [root, paths] of batch) {
      try {
        await refreshRoot(root, paths, current, context, upserted, removed, cache);
      } catch (error) {
        problems.push({ path: root.root, message: describeError(error) });
      }
    }
    problems.push(...context.problems.slice(before));
    if (closed || (upserted.size === 0 && removed.size === 0 && problems.length === 0)) return;
    onChange({ upserted: [...upserted.values()], removed: [...removed], problems });
  };

  const readies: Promise<void>[] = [];
  const folderWatches: FolderWatch[] = [];
  for (const [adapter, adapterRoots] of rootsByAdapter(roots)) {
    const { depth, wanted, fileSuffixes } = adapter.watch;
    const byPath = new Map(adapterRoots.map((root) => [root.root, root]));
    const folders = watchFolders({
      roots: [...byPath.keys()],
      depth,
      wanted,
      isFile: (path) => fileSuffixes.some((suffix) => path.endsWith(suffix)),
      onFile: (rootPath, path) => {
        const rel = relative(rootPath, path);
        if (rel.startsWith('..') || !wanted(rel.split(sep))) return;
        const root = byPath.get(rootPath)!;
        let set = pending.get(root);
        if (!set) pending.set(root, (set = new Set()));
        set.add(path);
        schedule();
      },
    });
    folderWatches.push(folders);
    readies.push(folders.ready);
  }

  return {
    ready: Promise.all(readies).then(() => undefined),
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      for (const folders of folderWatches) folders.close();
    },
  };
}

function rootsByAdapter(roots: readonly WatchRoot[]): Map<FormatAdapter, WatchRoot[]> {
  const out = new Map<FormatAdapter, WatchRoot[]>();
  for (const root of roots) {
    const list = out.get(root.adapter);
    if (list === undefined) out.set(root.adapter, [root]);
    else list.push(root);
  }
  return out;
}

/**
 * The folders to watch, per adapter: each configured root (a Codex home, a Claude dir: sessions may appear there
 * later), or for adapters whose roots are found (claw workspaces) the roots the listed sessions came from.
 */
export function watchRoots(locations: Locations, sessions: readonly CatalogSession[], adapters: readonly FormatAdapter[] = ADAPTER_LIST): WatchRoot[] {
  const roots: WatchRoot[] = [];
  for (const adapter of adapters) {
    const dirs =
      adapter.watch.roots === 'configured' ? locations.roots[adapter.agent] : new Set(sessions.filter((session) => session.agent === adapter.agent).map((session) => session.root));
    for (const root of dirs) roots.push({ adapter, root });
  }
  return roots;
}

async function refreshRoot(
  root: WatchRoot,
  paths: ReadonlySet<string>,
  current: Map<string, CatalogSession>,
  context: ScanContext,
  upserted: Map<string, CatalogSession>,
  removed: Set<string>,
  cache: CatalogCache | undefined,
): Promise<void> {
  const { adapter } = root;
  const namesFile = adapter.names === undefined ? null : join(root.root, adapter.names.file);
  if (namesFile !== null && paths.has(namesFile)) {
    await context.loadNames(adapter, root.root);
    for (const [key, session] of current) {
      if (session.agent !== adapter.agent || session.root !== root.root) continue;
      const name = context.names(root.root).get(session.id);
      if (name !== undefined && name !== session.name) {
        const renamed = { ...session, name, title: name };
        current.set(key, renamed);
        upserted.set(key, renamed);
      }
    }
  }
  const changed = new Set([...paths].filter((path) => path !== namesFile));
  if (changed.size === 0) return;
  // Sessions that own a changed file: re-read them as a whole (one of several files may have gone).
  const affected = [...current.entries()].filter(([, session]) => session.agent === adapter.agent && session.paths.some((path) => changed.has(path)));
  const touched = new Set(changed);
  for (const [, session] of affected) for (const path of session.paths) touched.add(path);

  // Group just the touched files that are there and regular (a FIFO or a link to a device is no session, as in
  // discovery), without walking the root (a whole-root walk costs seconds in a big home).
  const present = [...touched].filter(isRegularFile);
  // A store of many conversations changes through its companions too (SQLite's write-ahead log, which a
  // checkpoint removes): the store is read again, and its conversations no longer in it are gone.
  const { store } = adapter;
  if (store !== undefined) {
    for (const path of touched) {
      const file = store.storeOf(path);
      if (file !== null && !present.includes(file) && isRegularFile(file)) present.push(file);
    }
  }
  const groups = adapter.groupFiles(root.root, present);
  if (store !== undefined) {
    const files = new Set(groups.map((group) => group.paths[0]!));
    for (const entry of current.entries()) if (entry[1].agent === adapter.agent && entry[1].paths.some((path) => files.has(path)) && !affected.includes(entry)) affected.push(entry);
  }
  const seen = new Set<string>();
  for (const group of groups) {
    context.register(group);
    for (const summary of await readRows(group, context, cache)) await upsertRow(summary);
  }
  async function upsertRow(summary: CatalogSession): Promise<void> {
    const key = sessionKey(summary);
    seen.add(key);
    const merged = mergeInto(current.get(key), summary, current);
    if (merged.subagent && nestUnderParent(merged, current, upserted)) return;
    current.set(key, merged);
    upserted.set(key, merged);
  }
  for (const [key] of affected) {
    if (seen.has(key)) continue;
    current.delete(key);
    upserted.delete(key);
    removed.add(key);
  }
}

/**
 * The group's row (a store's: every row) through the scan's own pipeline (a grown file is read from its saved
 * fold), with its name (Codex's).
 */
async function readRows(group: SessionFileGroup, context: ScanContext, cache: CatalogCache | undefined): Promise<CatalogSession[]> {
  try {
    // A file can vanish between the event and the read (an agent's temp file renamed away).
    await stat(group.paths[group.paths.length - 1]!);
  } catch {
    return [];
  }
  try {
    return await toRows(group, context, cache);
  } catch (error) {
    context.report({ path: group.paths[group.paths.length - 1] ?? group.root, message: describeError(error) });
    return [];
  }
}

/** A sub-agent whose parent is a row is not a row: the parent lists it (as the scan does). True when nested. */
function nestUnderParent(child: CatalogSession, current: Map<string, CatalogSession>, upserted: Map<string, CatalogSession>): boolean {
  const parentId = nestSubagents([...current.values(), child]).nested.find((s) => s.id === child.id && s.agent === child.agent)?.subagent?.parentId;
  const parentKey = parentId ? sessionKey({ agent: child.agent, id: parentId }) : undefined;
  const parent = parentKey === undefined ? undefined : current.get(parentKey);
  if (parentKey === undefined || !parent) return false;
  if (!parent.subagents?.includes(child.id)) {
    const updated = { ...parent, subagents: [...(parent.subagents ?? []), child.id] };
    current.set(parentKey, updated);
    upserted.set(parentKey, updated);
  }
  return true;
}

/**
 * One row per conversation, as the scan does it (`mergeById`, `lineageLink`): other files of the same id stay merged;
 * a fork finds its family among the rows listed.
 */
function mergeInto(existing: CatalogSession | undefined, fresh: CatalogSession, current: ReadonlyMap<string, CatalogSession>): CatalogSession {
  const session = existing && !existing.paths.some((path) => fresh.paths.includes(path)) ? (mergeById([existing, fresh])[0] ?? fresh) : fresh;
  if (!session.lineage || session.forkedFrom) return session;
  return lineageLink(session, [...current.values()]);
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
