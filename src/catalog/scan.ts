import { statSync } from 'node:fs';
import { readingGiantLinesClipped } from '../core/io/clip-stream.js';
import { availableParallelism } from 'node:os';
import type { CatalogCache } from './cache.js';
import type { FileStamp } from './cache-entry.js';
import { join } from 'node:path';
import { describeError } from '../core/errors.js';
import { ADAPTER_LIST, ADAPTERS } from '../core/formats/index.js';
import { headFingerprint } from '../core/io/lines.js';
import { whileWalkingSynchronously } from '../core/io/walk-fs.js';
import { FS_CALLS_IN_FLIGHT, forEachLimited } from '../core/io/limited.js';
import type { AdapterContext, FoldResume, FormatAdapter, IndexedSession, Problem, ReportProblem, SessionFileGroup } from '../core/formats/types.js';
import { AGENTS, type Agent } from '../core/model.js';
import { isUnder, type Locations } from './locations.js';
import type { CatalogSession } from './row.js';
import { mergeRows, newestFirst } from './merge-rows.js';
import { BIG_FILE_BYTES, FoldQueue, summarizeOnWorkers } from './summary-pool.js';
import { shareStrings, StringPool } from './share-strings.js';
import { NATIVE_STAMPS_MIN_GROUPS, stampsTaken, takeStamps } from './native-stamps.js';
import { EventLoopTurns } from './event-loop-turns.js';
import { discoveryRootsReal } from './discovery-roots.js';

export { discoveryRoots } from './discovery-roots.js';

export type { CatalogSession };

export interface ScanResult {
  /** Newest first (by updatedAt). */
  readonly sessions: readonly CatalogSession[];
  /** Sub-agent sessions listed under their parent (its `subagents`) instead of as rows: still found by id. */
  readonly subagentSessions: readonly CatalogSession[];
  readonly problems: readonly Problem[];
}

/** How far indexing is: files and bytes done of those found (cached files count as done, with their bytes). */
export interface ScanProgress {
  readonly done: number;
  readonly total: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
}

export interface ScanOptions {
  readonly agents?: readonly Agent[];
  readonly onProgress?: (progress: ScanProgress) => void;
  /** Each row read from its files (not from the cache) as soon as it is indexed, newest files first, before merging. */
  readonly onSession?: (session: CatalogSession) => void;
  readonly concurrency?: number;
  /** Reuse rows whose files did not change (path + size + mtime + first bytes), go on from saved folds, record new ones. */
  readonly cache?: CatalogCache;
  /** Files at least this big get their fold saved in the cache (default FOLD_SAVE_MIN_BYTES). */
  readonly saveFoldFrom?: number;
  /**
   * Worker threads to read summaries on beside the main thread (0: the main thread only). Default: one per other
   * core, when there are enough files (or big enough ones) to read to pay for starting them.
   */
  readonly workers?: number;
  /**
   * With `cache`: the only files that may have changed since the cache was saved (a mirror's sync says which it
   * copied). Groups of other files take their cached row without a stat or a read.
   */
  readonly changed?: ReadonlySet<string>;
  /**
   * Walk the folders with synchronous calls (see `whileWalkingSynchronously`): for a process that does nothing else
   * meanwhile (the CLI's `list`), not for the browser, whose event loop must stay free.
   */
  readonly walkSynchronously?: boolean;
}

/**
 * Files at least this big keep their fold in the cache: a grown one is read from where it stopped. A smaller file
 * is read again whole when it changes (a few milliseconds), which keeps the cache small.
 */
export const FOLD_SAVE_MIN_BYTES = 1024 * 1024;

/** The files of a listed session, as its adapter wants them back. */
export function groupOf(session: CatalogSession): SessionFileGroup {
  return { agent: session.agent, paths: session.paths, idHint: session.id, root: session.root, archived: session.archived };
}

/** Discovery and summaries share one context: lookups by id and the names kept beside sessions (Codex's). */
export class ScanContext implements AdapterContext {
  readonly problems: Problem[] = [];
  /** Summaries read on worker threads (the rest were read on the calling thread or came from the cache). */
  workerReads = 0;
  /** Summaries a worker handed back to be read on the calling thread (they looked up another conversation's files). */
  workerRetries = 0;
  /** Second-phase passes (claw's roots from cwds) begun while workers still folded the first phase's files. */
  earlyPasses = 0;
  /** Worker pools started (one per phase at most). */
  workerPools = 0;
  private readonly reported = new Set<string>();
  /** File groups by agent, then id (no composite key strings: 100k of them cost ≈ 10 MB). */
  private readonly groups = new Map<Agent, Map<string, SessionFileGroup>>();
  private readonly nameMaps = new Map<string, ReadonlyMap<string, string>>();
  /** The strings rows repeat (a model, a directory), one copy each: rows folded on workers arrive with copies of their own. */
  readonly strings = new StringPool();

  /** Files at least this big get their fold back with their row (only worth it with a cache to keep it in). */
  constructor(readonly saveFoldFrom = Number.POSITIVE_INFINITY) {}

  readonly report = (problem: Problem): void => {
    const key = `${problem.path}\0${problem.message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problems.push(problem);
  };

  readonly lookup = (agent: Agent, id: string): SessionFileGroup | undefined => this.settled().get(agent)?.get(id);

  readonly names = (root: string): ReadonlyMap<string, string> => this.nameMaps.get(root) ?? new Map();

  register(group: SessionFileGroup, id = group.idHint): void {
    if (id === null) return;
    // While `registerAll`'s groups wait, so does this (in order, after them): grep registers each row's group as it is
    // made, and the first registration made every group's (100k at 100k sessions: ~0.15 s) though nothing looked one up.
    if (this.pending !== null) {
      this.deferred.push([group, id]);
      return;
    }
    let byId = this.settled().get(group.agent);
    if (byId === undefined) this.groups.set(group.agent, (byId = new Map()));
    if (!byId.has(id)) byId.set(id, group);
  }

  /**
   * The group found by discovery, registered again with the paths of its cached row (the same files): the
   * context then holds no second copy of each path, which is ≈ 200 bytes a file at 100k files.
   */
  shareRow(group: SessionFileGroup, row: CatalogSession): SessionFileGroup {
    const paths = row.paths;
    if (paths === group.paths || paths.length !== group.paths.length || paths.some((path, i) => path !== group.paths[i])) return group;
    // The id found in a file name is a slice of that name (it would keep the discovered path alive): the row's
    // own id string stands for it when they are the same id, as map key too.
    const idHint = group.idHint !== null && group.idHint === row.id ? row.id : group.idHint;
    const shared: SessionFileGroup = { ...group, paths, idHint };
    const byId = this.settled().get(group.agent);
    if (byId === undefined) return shared;
    for (const id of [group.idHint, row.id]) {
      if (id === null || byId.get(id) !== group) continue;
      byId.delete(id);
      byId.set(id === group.idHint ? (idHint ?? id) : id, shared);
    }
    return shared;
  }

  /** Groups `registerAll` left to register, in order, when first asked: a grep that makes no row hashes no ids (100k: ~0.15 s). */
  private pending: readonly SessionFileGroup[] | null = null;
  /** Registrations made while `pending` waits, in order: made after its groups, when first asked. */
  private deferred: (readonly [SessionFileGroup, string])[] = [];

  registerAll(groups: readonly SessionFileGroup[]): void {
    this.settled();
    this.pending = groups;
  }

  private settled(): Map<Agent, Map<string, SessionFileGroup>> {
    const pending = this.pending;
    if (pending === null) return this.groups;
    this.pending = null;
    const deferred = this.deferred;
    this.deferred = [];
    for (const group of pending) this.register(group);
    for (const [group, id] of deferred) this.register(group, id);
    return this.groups;
  }

  /** Every root's names (for summary workers). */
  allNames(): ReadonlyMap<string, ReadonlyMap<string, string>> {
    return this.nameMaps;
  }

  /** Read (again) the names an adapter keeps beside the sessions of `root`; nothing for an adapter without names. */
  async loadNames(adapter: FormatAdapter, root: string): Promise<void> {
    if (adapter.names === undefined) return;
    try {
      this.nameMaps.set(root, await adapter.names.read(root));
    } catch (error) {
      this.report({ path: join(root, adapter.names.file), message: describeError(error) });
    }
  }
}

/** Find every conversation in the locations: discovery, then rows folded from every line, merged one per conversation. */
export async function scanCatalog(locations: Locations, options: ScanOptions = {}): Promise<ScanResult & { context: ScanContext }> {
  return options.walkSynchronously ? whileWalkingSynchronously(() => scanWalking(locations, options)) : scanWalking(locations, options);
}

async function scanWalking(locations: Locations, options: ScanOptions): Promise<ScanResult & { context: ScanContext }> {
  const context = new ScanContext(options.cache ? (options.saveFoldFrom ?? FOLD_SAVE_MIN_BYTES) : Number.POSITIVE_INFINITY);
  const adapters = selectedAdapters(options.agents);
  const groups: SessionFileGroup[] = [];
  const summaries: CatalogSession[] = [];

  // Every agent's candidate roots are looked for at once (claw's walk of its dirs runs while the others are read).
  const candidates = new Map(adapters.map((adapter) => [adapter, candidateRoots(adapter, locations, context.report)]));
  // Per adapter, the folders already looked at and the real paths of the roots walked: a later pass (cwds of rows
  // made after the first) looks only at new folders and walks a root once, under its first spelling.
  const seen = new Map(adapters.map((adapter) => [adapter, { paths: new Set<string>(), walked: new Set<string>() }]));
  const cwdsOf = (rows: readonly CatalogSession[]): string[] => (locations.rootsFromCwds === false ? [] : [...new Set(rows.flatMap((row) => (row.cwd ? [row.cwd] : [])))]);
  const runPhase = async (phase: readonly FormatAdapter[], cwds: readonly string[], onMainIdle?: OnMainIdle, phaseOptions: ScanOptions = options): Promise<CatalogSession[]> => {
    const found: SessionFileGroup[] = [];
    await Promise.all(
      phase.map(async (adapter) => {
        const { paths, walked } = seen.get(adapter)!;
        const looked = [...(await candidates.get(adapter)!), ...(adapter.discovery?.rootsFromCwds ? cwds : [])].filter((path) => !paths.has(path));
        for (const path of looked) paths.add(path);
        const fresh = (await discoveryRootsReal(adapter, looked)).filter(({ real }) => !walked.has(real));
        for (const { real } of fresh) walked.add(real);
        await forEachLimited(fresh, FS_CALLS_IN_FLIGHT, async ({ root }) => {
          await context.loadNames(adapter, root);
          found.push(...(await discoverRoot(adapter, root, context.report)));
        });
      }),
    );
    for (const group of found) context.register(group);
    const stores = found.filter(isStoreGroup);
    const rows = await summarize(found.filter((group) => !isStoreGroup(group)), context, phaseOptions, onMainIdle);
    for (const store of stores) {
      try {
        const storeRowsFound = await storeRows(store, context, options.cache);
        for (const row of storeRowsFound) options.onSession?.(row);
        rows.push(...storeRowsFound);
      } catch (error) {
        context.report({ path: store.paths[0]!, message: describeError(error) });
      }
    }
    groups.push(...found);
    return rows;
  };
  // Agents whose roots come from other sessions' cwds (claw) go second: the first agents' rows name those cwds.
  const first = adapters.filter((a) => !a.discovery?.rootsFromCwds);
  const second = adapters.filter((a) => a.discovery?.rootsFromCwds);
  const secondRows: CatalogSession[] = [];
  // When the main thread has no first-phase file left while workers still fold big ones, the second phase starts
  // from the cwds of the rows made so far; the cwds of the rest are looked at after, their roots walked only if new.
  // On the main thread alone: the workers are busy, and one more would only share their cores (and start, ~0.2 s).
  const early: OnMainIdle | undefined = second.length === 0 ? undefined : async (rowsSoFar) => {
    context.earlyPasses++;
    secondRows.push(...(await runPhase(second, cwdsOf(rowsSoFar), undefined, { ...options, workers: 0 })));
  };
  if (first.length > 0) summaries.push(...(await runPhase(first, [], early)));
  if (second.length > 0) secondRows.push(...(await runPhase(second, cwdsOf(summaries))));
  summaries.push(...secondRows);

  if (options.cache) options.cache.retain(new Set(groups.map((g) => g.paths[0]!)));
  applyNames(summaries, context);
  const { rows: merged, nested } = mergeRows(summaries);
  merged.sort(newestFirst);
  return { sessions: merged, subagentSessions: nested, problems: context.problems, context };
}

/**
 * The catalog a cache holds, trusted without looking at the files: what the scan that saved it found, merged and
 * named as a scan does (names are read again from beside the sessions). Only for files nothing but the caller
 * writes: a host's mirror, whose sync knows which files it changed since that scan.
 */
export async function catalogFromCache(cache: CatalogCache): Promise<ScanResult & { context: ScanContext }> {
  const context = new ScanContext(FOLD_SAVE_MIN_BYTES);
  const summaries = cache.sessions();
  for (const row of summaries) context.register(groupOf(row), row.id);
  for (const adapter of ADAPTER_LIST) {
    if (adapter.names === undefined) continue;
    for (const root of new Set(summaries.filter((row) => row.agent === adapter.agent).map((row) => row.root))) await context.loadNames(adapter, root);
  }
  applyNames(summaries, context);
  const { rows, nested } = mergeRows(summaries);
  return { sessions: rows, subagentSessions: nested, problems: context.problems, context };
}

/** The adapters of these agents (all by default), in registry order. */
export function selectedAdapters(agents: readonly Agent[] | undefined): FormatAdapter[] {
  const wanted = new Set<Agent>(agents ?? AGENTS);
  return ADAPTER_LIST.filter((adapter) => wanted.has(adapter.agent));
}

/** An agent's configured roots, or the candidates its adapter derives from them and the current directory (claw's workspaces). */
export async function candidateRoots(adapter: FormatAdapter, locations: Locations, report: ReportProblem): Promise<string[]> {
  const configured = locations.roots[adapter.agent];
  const candidates = adapter.discovery?.candidateRoots ? await adapter.discovery.candidateRoots(configured, locations.cwd, report) : [...configured];
  const { within } = locations;
  return within === undefined ? candidates : candidates.filter((root) => isUnder(root, within));
}

/** One root's groups; a root that cannot be walked is reported, never fatal. */
export async function discoverRoot(adapter: FormatAdapter, root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  try {
    return await adapter.discover(root, report);
  } catch (error) {
    report({ path: root, message: describeError(error) });
    return [];
  }
}

/**
 * The one row pipeline of scan, watch, grep and the browser's forks: a group's row, folded from every line of its
 * files (through the cache when there is one), with the name its root keeps for it (Codex's session_index.jsonl).
 * Rows of several groups become the listed rows through `mergeRows`.
 */
export async function toRow(group: SessionFileGroup, context: ScanContext, cache?: CatalogCache, stamps?: readonly FileStamp[]): Promise<CatalogSession | null> {
  const row = await indexGroup(group, context, cache, stamps);
  return row === null ? null : named(row, context);
}

/** A store of many conversations as discovery finds it (FormatAdapter.store): the file, no conversation id yet. */
export function isStoreGroup(group: SessionFileGroup): boolean {
  return ADAPTERS[group.agent].store !== undefined && group.idHint === null;
}

/**
 * The rows of a group: a store's every conversation (`storeRows`), else the group's one row (`toRow`). The watcher's
 * path, where a changed file may be a store.
 */
export async function toRows(group: SessionFileGroup, context: ScanContext, cache?: CatalogCache): Promise<CatalogSession[]> {
  if (isStoreGroup(group)) return (await storeRows(group, context, cache)).map((row) => named(row, context));
  const row = await toRow(group, context, cache);
  return row === null ? [] : [row];
}

/**
 * Every conversation's row in a store (FormatAdapter.store), read in one pass, or from the cache when neither the
 * store nor its companions (SQLite's write-ahead log) changed since. Each conversation is registered for lookups
 * under its own group: the store file with the conversation's id.
 */
export async function storeRows(group: SessionFileGroup, context: ScanContext, cache?: CatalogCache): Promise<CatalogSession[]> {
  const store = ADAPTERS[group.agent].store!;
  const file = group.paths[0]!;
  // Stamps taken before the read: a store written meanwhile is read again next time.
  let stamps: FileStamp[] | null = null;
  try {
    if (cache !== undefined) stamps = stampsFor(cache, [file, ...store.companions(file)]);
  } catch {
    // A companion gone between the listing and the stat (a checkpoint removed the log): read, do not cache.
  }
  const known = stamps !== null ? cache!.lookupStore(stamps) : undefined;
  const rows = known !== undefined ? [...known] : (await store.readRows(group, context)).map((row): CatalogSession => ({ ...row, root: group.root }));
  if (known === undefined && stamps !== null) {
    cache!.storeRows(stamps.map((stamp): FileStamp => (stamp[3] !== '' ? stamp : [stamp[0], stamp[1], stamp[2], headFingerprint(stamp[0])])), rows);
  }
  for (const row of rows) context.register({ ...group, idHint: row.id }, row.id);
  return rows;
}

/**
 * A group's row, folded from every line of its files, as the cache keeps it (without the name kept beside it). With a
 * cache, a file that only grew is read from where its saved fold stopped, and the row (and fold) is recorded.
 */
export async function indexGroup(group: SessionFileGroup, context: ScanContext, cache?: CatalogCache, stamps?: readonly FileStamp[]): Promise<CatalogSession | null> {
  // One conversation of a store: its file is the whole store's, whose cache entry holds every row (storeRows).
  if (ADAPTERS[group.agent].store !== undefined) cache = undefined;
  const own = cache !== undefined ? (stamps ?? stampsFor(cache, group.paths)) : null;
  // Files unchanged since the cache saw them: their row is the cached one (what `list` prints), or none when they hold
  // no conversation (a fifth of a real home: read again, they would cost what they cost the first time).
  const known = own !== null ? cachedIndex(group, context, cache!, own) : undefined;
  if (known !== undefined) return known;
  const candidate = own !== null ? cache!.foldCandidate(own) : undefined;
  const resume = candidate !== undefined ? await cache!.loadFold(candidate) : undefined;
  // A row needs no giant line whole (a 300 MB tool output): clipped as it is read (clip-stream.ts).
  let indexed = await readingGiantLinesClipped(() => ADAPTERS[group.agent].indexSession(group, context, resume));
  if (resume !== undefined && indexed.summary === null) indexed = await readingGiantLinesClipped(() => ADAPTERS[group.agent].indexSession(group, context));
  return acceptIndexed(group, indexed, context, cache, own);
}

/**
 * `toRow`'s row when the cache holds it for these files, unchanged (`stamps`, else taken now): made at once, with no
 * read and no promise (grep's tens of thousands of cached rows). null when they hold no conversation; undefined when
 * they must be read (then `toRow`). Throws where `toRow` would (a file gone).
 */
export function cachedRow(group: SessionFileGroup, context: ScanContext, cache: CatalogCache, stamps?: readonly FileStamp[]): CatalogSession | null | undefined {
  if (ADAPTERS[group.agent].store !== undefined) return undefined;
  const known = cachedIndex(group, context, cache, stamps ?? stampsFor(cache, group.paths));
  return known === undefined || known === null ? known : named(known, context);
}

/** The cached row of files with these stamps, registered under its id; null when they hold no conversation, undefined when not cached as they are. */
function cachedIndex(group: SessionFileGroup, context: ScanContext, cache: CatalogCache, stamps: readonly FileStamp[]): CatalogSession | null | undefined {
  const known = cache.lookup(stamps);
  if (known !== undefined && known !== null) context.register(group, known.id);
  return known;
}

function acceptIndexed(group: SessionFileGroup, indexed: IndexedSession, context: ScanContext, cache: CatalogCache | undefined, stamps: readonly FileStamp[] | null): CatalogSession | null {
  const summary = indexed.summary;
  const session: CatalogSession | null = summary === null ? null : { ...shareStrings(summary, group, context.strings), root: group.root };
  if (session !== null) context.register(group, session.id);
  // Stamps taken before the read: a file that grew meanwhile is read again (from its fold) next time. A file the
  // cache did not know has no fingerprint yet: the read took it (a single file), or it is taken now. Files that
  // hold no conversation are recorded too (a fifth of a real home): a warm start reads none of them again.
  if (cache !== undefined && stamps !== null) {
    const complete = stamps.map((stamp): FileStamp => (stamp[3] !== '' ? stamp : [stamp[0], stamp[1], stamp[2], (stamps.length === 1 ? indexed.fingerprint : undefined) ?? headFingerprint(stamp[0])]));
    cache.store(complete, session, indexed.resume);
  }
  return session;
}

/** Called once when the main thread has no file of a scan left but workers are still folding: work for it meanwhile. */
type OnMainIdle = (rowsSoFar: readonly CatalogSession[]) => Promise<void>;

/** Rows of these groups; a group whose row came from the cache is replaced in `groups` by one sharing the row's paths. */
async function summarize(groups: SessionFileGroup[], context: ScanContext, options: ScanOptions, onMainIdle?: OnMainIdle): Promise<CatalogSession[]> {
  const out: CatalogSession[] = [];
  const cache = options.cache;
  let done = 0;
  let bytesDone = 0;
  let bytesTotal = 0;
  const sizes: number[] = [];
  const progress = (index: number): void => {
    done++;
    bytesDone += sizes[index] ?? 0;
    options.onProgress?.({ done, total: groups.length, bytesDone, bytesTotal });
  };
  const stampsByIndex: (FileStamp[] | null)[] = [];
  const newestByIndex: number[] = [];
  const todo: number[] = [];
  const found = (index: number, session: CatalogSession | null): void => {
    if (session === null) return;
    out.push(session);
    options.onSession?.(session);
  };
  const fail = (index: number, message: string): void => {
    const group = groups[index]!;
    context.report({ path: group.paths[group.paths.length - 1] ?? group.root, message });
  };

  const cached: number[] = [];
  const changed = options.changed;
  const taken = changed === undefined && groups.length >= NATIVE_STAMPS_MIN_GROUPS ? takeStamps(groups) : null;
  groups.forEach((group, index) => {
    try {
      const unchanged = cache !== undefined && changed !== undefined && !group.paths.some((path) => changed.has(path)) ? cache.lookupUnchanged(group.paths) : undefined;
      if (unchanged !== undefined) {
        sizes[index] = unchanged.bytes;
        bytesTotal += unchanged.bytes;
        cached.push(index);
        if (unchanged.session === null) return;
        groups[index] = context.shareRow(group, unchanged.session);
        context.register(groups[index], unchanged.session.id);
        out.push(unchanged.session);
        return;
      }
      const stamps = (taken === null ? null : stampsTaken(taken, index, group, cache)) ?? (cache ? stampsFor(cache, group.paths) : stampsOf(group.paths, false));
      // Kept only for the files that are read (100k stamps are ≈ 18 MB while the scan runs).
      sizes[index] = stamps.reduce((sum, stamp) => sum + stamp[1], 0);
      newestByIndex[index] = Math.max(...stamps.map((stamp) => stamp[2]));
      bytesTotal += sizes[index]!;
      const row = cache?.lookup(stamps);
      if (row === undefined) {
        stampsByIndex[index] = cache ? stamps : null;
        return void todo.push(index);
      }
      cached.push(index);
      if (row === null) return; // known to hold no conversation
      // The discovered group (its own copy of each path) is let go now, not when the scan ends.
      groups[index] = context.shareRow(group, row);
      context.register(groups[index], row.id);
      out.push(row);
    } catch (error) {
      fail(index, describeError(error));
      cached.push(index);
    }
  });
  for (const index of cached) progress(index);
  // Newest files first: on a cold start the rows a user looks for first arrive first.
  todo.sort((a, b) => newestByIndex[b]! - newestByIndex[a]!);

  // A file with a saved fold goes on from it on the main thread (the cache is here); the rest is folded on both
  // threads' share of one queue.
  const resumed = todo.filter((index) => cache?.foldCandidate(stampsByIndex[index]!) !== undefined).reverse();
  const queue = new FoldQueue(
    todo.filter((index) => cache?.foldCandidate(stampsByIndex[index]!) === undefined),
    (index) => sizes[index] ?? 0,
  );
  const cores = availableParallelism();
  const workers = options.workers ?? ((queue.size >= PARALLEL_MIN_FILES || (queue.bigBytes >= PARALLEL_MIN_BIG_BYTES && queue.size > 1)) && cores >= PARALLEL_MIN_CORES ? cores - 1 : 0);
  const foldHere = async (index: number): Promise<void> => {
    const group = groups[index]!;
    try {
      found(index, await indexGroup(group, context, cache, stampsByIndex[index] ?? undefined));
    } catch (error) {
      fail(index, describeError(error));
    }
    // The cache keeps its own stamps of what was read: these would stay until the last file is read (≈ 18 MB at 100k).
    stampsByIndex[index] = null;
    progress(index);
  };
  const turns = new EventLoopTurns(YIELD_EVERY_MS);
  // One big file at a time on the main thread: the workers take the others.
  let bigHere = 0;
  const foldOnMain = (): Promise<void[]> =>
    Promise.all(
      Array.from({ length: options.concurrency ?? 32 }, async () => {
        for (;;) {
          // Small files are read synchronously and settle as microtasks: without a turn of the event loop now and
          // then, the browser's timers (rows shown as they are indexed, keys) would wait for the whole scan.
          for (let wait = turns.maybeYield(); wait !== undefined; wait = turns.maybeYield()) await wait;
          const index = resumed.pop() ?? queue.takeOne(bigHere === 0);
          if (index === undefined) return;
          const big = (sizes[index] ?? 0) >= BIG_FILE_BYTES;
          if (big) bigHere++;
          await foldHere(index);
          if (big) bigHere--;
        }
      }),
    );
  if (workers > 0 && queue.size > 0) context.workerPools++;
  const pool =
    workers > 0 && queue.size > 0
      ? summarizeOnWorkers(groups, queue, {
          workers,
          saveFoldFrom: context.saveFoldFrom,
          names: context.allNames(),
          onProblem: context.report,
          onResult: ({ index, indexed, error, retry }) => {
            // A fold that needed another conversation's files is read here, where every group is known.
            if (retry) {
              context.workerRetries++;
              return queue.giveBack([index]);
            }
            context.workerReads++;
            if (error !== undefined || indexed === undefined) fail(index, error ?? 'no result');
            else found(index, acceptIndexed(groups[index]!, indexed, context, cache, stampsByIndex[index] ?? null));
            stampsByIndex[index] = null;
            progress(index);
          },
        }).catch(() => {
          // A worker could not start or died: what it left undone is back in the queue, read here.
        })
      : Promise.resolve();
  let poolDone = false;
  // Only beside big files (seconds left on the workers): beside the last batches of small ones it would only add heap.
  const idle = (): Promise<void> | undefined => (poolDone || onMainIdle === undefined || queue.bigBytes === 0 ? undefined : onMainIdle(out));
  await Promise.all([pool.then(() => (poolDone = true)), foldOnMain().then(idle)]);
  // What the workers gave back (or were still folding when the main thread ran out of work).
  await foldOnMain();
  return out;
}

/** The longest the indexing loop runs before it lets timers and input in (a frame). */
const YIELD_EVERY_MS = 16;

/**
 * Below this many files to read, summaries are read on the main thread: starting workers (~40 ms each) would
 * cost more than it saves, and a warm start (everything cached) reads almost nothing.
 */
const PARALLEL_MIN_FILES = 400;

/** Or this many bytes of big files (≈ 0.5 s of folding): one of them is folded beside the rest. */
const PARALLEL_MIN_BIG_BYTES = 64 * 1024 * 1024;

/**
 * Workers fold beside the main thread, one per other core (two summary workers that left the main thread idle
 * finished a cold 10k scan on 2 cores in 1.38 s against 1.44 s on the main thread alone: not worth it then).
 */
const PARALLEL_MIN_CORES = 2;

/** Names kept beside the sessions (Codex's session_index.jsonl), not in them: applied after (cached) summaries. */
export function applyNames(sessions: CatalogSession[], context: ScanContext): void {
  for (let i = 0; i < sessions.length; i++) sessions[i] = named(sessions[i]!, context);
}

/** The row with the name its root keeps for it, if any (the name is the title). */
export function named(session: CatalogSession, context: ScanContext): CatalogSession {
  if (ADAPTERS[session.agent].names === undefined) return session;
  const name = context.names(session.root).get(session.id);
  return name !== undefined && name !== session.name ? { ...session, name, title: name } : session;
}



/**
 * Stamps for a lookup in `cache`: with fingerprints of the first bytes only when the cache knows these files (a
 * cold index reads no file twice: the fold takes the fingerprint of the file it reads).
 */
function stampsFor(cache: CatalogCache, paths: readonly string[]): FileStamp[] {
  const stamps = stampsOf(paths, false);
  return cache.knows(stamps) ? stamps.map(([path, size, mtime]): FileStamp => [path, size, mtime, headFingerprint(path)]) : stamps;
}

/** The saved fold of a single-file session whose cache entry matches the file (it may have grown since), if any. */
export async function savedFold(cache: CatalogCache, paths: readonly string[]): Promise<FoldResume | undefined> {
  if (paths.length !== 1) return undefined;
  try {
    const candidate = cache.foldCandidate(stampsOf(paths, true));
    return candidate === undefined ? undefined : await cache.loadFold(candidate);
  } catch {
    return undefined;
  }
}

/**
 * Synchronous on purpose: a stat is ~5 µs, a promise-based one ~50 µs of overhead, and a warm scan is 10k of them.
 * The fingerprint of the first bytes (only needed with a cache) catches a file rewritten with the same size and mtime.
 */
export function stampsOf(paths: readonly string[], withFingerprint: boolean): FileStamp[] {
  return paths.map((path): FileStamp => {
    const info = statSync(path);
    if (!info.isFile()) throw new Error('not a regular file');
    return [path, info.size, info.mtimeMs, withFingerprint ? headFingerprint(path) : ''];
  });
}
