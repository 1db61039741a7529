import { walkFs, whileWalkingSynchronously } from '../core/io/walk-fs.js';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { notConversationSources } from '../core/formats/index.js';
import type { FormatAdapter, Problem, SessionFileGroup } from '../core/formats/types.js';
import type { Agent } from '../core/model.js';
import type { CatalogCache } from './cache.js';
import { GrepPool } from './grep-pool.js';
import { MatchRows, ReportedRows } from './grep-rows.js';
import type { GrepItem, GrepStamp, GrepWorkerData } from './grep-worker.js';
import type { Locations } from './locations.js';
import { candidateRoots, discoverRoot, isStoreGroup, ScanContext, selectedAdapters, type CatalogSession } from './scan.js';
import { newestFirst } from './merge-rows.js';
import { type PackedPaths, type RootWalk, WalkMemo, walkMemoKey } from './walk-memo.js';
import { nativeAnswersHold, nativeAnswersHoldLater, NativeGrepPool, nativeSearchAddon, pruneTrigramMaps, type TrigramMaps } from './native-grep.js';
import { notConversationPattern } from '../core/io/snippet.js';
import { gatedEvents, type GrepFound, type PoolEvents, type SniffedLineage, type SniffedStamps } from './grep-pool-events.js';
import { inheritedMatches } from './grep-inherited.js';
import { searchStores } from './grep-stores.js';
import { LineageVerdicts, lineageVerdictsPath } from './lineage-verdicts.js';
import { PrintedRows, printedRowsPath, type PrintedRow } from './printed-rows.js';

export type { GrepFound } from './grep-pool-events.js';
export type { PrintedRow } from './printed-rows.js';
export { gatedEvents } from './grep-pool-events.js';
export { GrepPool } from './grep-pool.js';

export interface GrepOptions {
  /** Fold ASCII letters (the text and the files). */
  readonly ignoreCase?: boolean;
  /** Only these agents' sessions (default: all). */
  readonly agents?: readonly Agent[];
  /** Only report sessions this accepts (it sees the row, e.g. to keep one cwd's sessions). */
  readonly accept?: (session: CatalogSession) => boolean;
  /** Count the matches of each matching session (its files are then read to the end). */
  readonly count?: boolean;
  /** Characters each side of a session's first match to show in a snippet (default: no snippet). */
  readonly context?: number;
  /**
   * false: the native engine's matches are reported as it finds them, without a snippet (the browser reads those of
   * the rows it shows: SnippetReader); matches found in inherited turns still carry theirs. Default true.
   */
  readonly readSnippets?: boolean;
  /** Stops the search: no more matches are reported, the workers are stopped. */
  readonly signal?: AbortSignal;
  /** Called as soon as a session is known to match (see `grepLocations` for the order). */
  readonly onMatch: (session: CatalogSession, found: GrepFound) => void;
  /**
   * Instead of rows: each matching session as its printed line (`onLine`, in `onMatch`'s order; `accept` judges it, not
   * `GrepOptions.accept`). With a walk memo, the lines printed are kept beside it (PrintedRows) for the files whose row
   * is alone, and a later search takes them for the same files unchanged instead of making their rows.
   */
  readonly printed?: {
    /** The home the lines are made for (they name it ~), and the lines' format (another when `lineOf` changes). */
    readonly home: string;
    readonly format: string;
    readonly lineOf: (row: CatalogSession) => string;
    readonly onLine: (row: PrintedRow, found: GrepFound) => void;
    readonly accept?: (row: PrintedRow) => boolean;
  };
  /**
   * Instead of rows: each matching file group as soon as a worker finds it, not summarised (the browser has
   * every row already; summarising thousands of matches would take its thread). `onMatch` and `accept` are not used.
   */
  readonly onFiles?: (group: SessionFileGroup, found: GrepFound) => void;
  /** A file that could not be read (reported as it happens). */
  readonly onProblem?: (problem: Problem) => void;
  /** Threads to search with (default: one per core). */
  readonly workers?: number;
  /**
   * Which search engine reads the files: `native` (native/search.c, built at install when a C compiler is there; the
   * default when it loads) or `js` (worker threads). With counts or snippets (`count`, `context`), the native engine
   * finds the matching sessions and JS workers read those whole. Default: `native` when it was built, else `js`.
   */
  readonly engine?: 'native' | 'js';
  /**
   * The catalog cache, loaded when the first match is summarised (a search that matches nothing never pays for
   * it): a matching session whose files did not change since `list` or the browser indexed them gets its cached
   * row instead of a read of every line.
   */
  readonly cache?: () => Promise<CatalogCache | undefined>;
  /**
   * Walk the folders with synchronous calls (see `whileWalkingSynchronously`): for a process that does nothing else
   * meanwhile (the CLI), not for the browser, whose event loop must stay free.
   */
  readonly walkSynchronously?: boolean;
  /**
   * Where the folder walks' findings are kept between runs (`WalkMemo`): while every file system answer they rested
   * on holds, the files are searched without walking; when one does not, the walks run and their answers are recorded.
   */
  readonly walkMemo?: string;
  /**
   * Trigram maps of big files (native engine only): a file of `minBytes` or more gets one when a search reads it to its
   * end, and a later search for text it cannot hold reads only what was appended since. None when absent.
   */
  readonly trigrams?: TrigramMaps;
}

export interface GrepResult {
  /** How many sessions matched (and were accepted). */
  readonly matched: number;
  /** What discovery and the summaries of matching sessions ran into. */
  readonly problems: readonly Problem[];
  /** The engine that searched the files (see GrepOptions.engine). */
  readonly engine: 'native' | 'js';
}

/**
 * Full-text search over whole transcripts: every file of every session in the locations, for the literal
 * `text` (as written in JSON: raw, escaped, or \u-escaped). The catalog is not scanned first: files are searched
 * on worker threads as soon as a folder walk finds them, and only the sessions that match are summarised (the
 * rows are the ones `list` prints). Rows are reported as they are found, except those of agents whose forks are
 * found by lineage (Claude Code's): their files are searched first and their rows reported together, newest first,
 * once every such file was seen (a fork made by Claude's --fork-session is linked to its lineage root only then).
 */
export function grepLocations(locations: Locations, text: string, options: GrepOptions): Promise<GrepResult> {
  const memoPath = options.walkMemo;
  const run = async (): Promise<GrepResult> => {
    if (memoPath === undefined) return (await grepIn(locations, text, options, null, null, {})) as GrepResult;
    const key = walkMemoKey(locations, selectedAdapters(options.agents).map((adapter) => adapter.agent));
    // Beside the memo: what the cache told of the lineages heads do not show, by their files' stamps; the lines printed.
    const verdicts = new LineageVerdicts(lineageVerdictsPath(memoPath), key);
    const printed = options.printed && new PrintedRows(printedRowsPath(memoPath), key, options.printed.home, options.printed.format);
    const kept = { verdicts, ...(printed === undefined ? {} : { printed }) };
    // The memo's files are searched at once, while its answers are checked (see grepIn's `verify`); when one no
    // longer holds, that search is dropped unreported and the walks run.
    let memo = new WalkMemo(memoPath, key);
    memo.startRecording();
    try {
      const known = memo;
      // The native engine checks the memo's answers too, when it searches: on another thread, begun as soon as they are
      // read (the rest of the memo is parsed meanwhile).
      const native = searchEngine(options) === 'native';
      const check = native ? nativeAnswersHold : undefined;
      let result = known.read(native ? nativeAnswersHoldLater : undefined) ? await grepIn(locations, text, options, known, () => known.verify(check), kept) : STALE;
      if (result === STALE) {
        memo.stopRecording();
        memo = new WalkMemo(memoPath, key);
        memo.startRecording();
        result = await grepIn(locations, text, options, memo, null, kept);
      }
      memo.save();
      verdicts.save();
      return result as GrepResult;
    } finally {
      memo.stopRecording();
    }
  };
  return options.walkSynchronously ? whileWalkingSynchronously(run) : run();
}

/** What discovery found of a root: its groups, and their paths packed when a walk memo gave them (see RootWalk). */
interface Found {
  readonly groups: readonly SessionFileGroup[];
  readonly packed?: PackedPaths | undefined;
}

const NOTHING_FOUND: Found = { groups: [] };

/** Rows made at a time while they stream out (see `rowQueue` in grepIn). */
const ROW_WINDOW = 64;

/** A search from a walk memo whose answers did not all hold: nothing of it was reported. */
const STALE = Symbol('stale walk memo');

/**
 * One search. With `verify` (a memo `read` but not checked): the memo's files are searched at once, and the answers
 * are checked meanwhile (on another thread when the native engine began it as the memo was read, else on this one;
 * the search runs on others); nothing is reported until they hold, and when one does not the search stops and
 * resolves to STALE. `kept.verdicts`: what an earlier grep was told of the lineages heads do not show (MatchRows);
 * `kept.printed`: the lines an earlier grep printed (with `options.printed`), written again when this one made others.
 */
async function grepIn(
  locations: Locations,
  text: string,
  options: GrepOptions,
  memo: WalkMemo | null,
  verify: (() => boolean | Promise<boolean>) | null,
  kept: { readonly verdicts?: LineageVerdicts; readonly printed?: PrintedRows },
): Promise<GrepResult | typeof STALE> {
  const adapters = selectedAdapters(options.agents);
  const context = new ScanContext();
  /** What the walks meet is reported as usual; a memo of walks that met problems is not kept (a replay would not report them). */
  const walkReport = (problem: Problem): void => {
    memo?.spoil();
    context.report(problem);
  };
  const { pool, native, trigrams } = startEngine(text, options);
  // A memo's answers are checked while its files are searched: a stale one stops the search.
  let stale = false;
  const verified = verifyWhileSearching(pool, verify, () => (stale = true));
  const { signal } = options;
  signal?.addEventListener('abort', () => pool.abort(), { once: true });
  const groups: SessionFileGroup[] = [];
  // Some agents keep sessions in project folders (claw): those other agents' sessions ran in are searched too (like `list`).
  const fromCwds = adapters.filter((adapter) => adapter.discovery?.rootsFromCwds);
  const sniffCwds = fromCwds.length > 0 && locations.rootsFromCwds !== false;
  /** Agents whose forks record no parent (Claude's --fork-session): rows link to their lineage once all their files were seen. */
  const byLineage = new Set(adapters.filter((adapter) => adapter.lineageInHead !== undefined).map((adapter) => adapter.agent));
  /** Whether this agent's heads are read for their lineage: lineages link rows; a search that reports files (the browser's) makes none. */
  const linksByLineage = (agent: Agent): boolean => byLineage.has(agent) && options.onFiles === undefined;

  // `list` links such a fork to the earliest session of its lineage (the root id they share), so these rows wait until
  // every such file's head was seen.
  // Loaded once, for the rows and for the forks that inherit their parents' turns.
  let cacheLoaded: Promise<CatalogCache | undefined> | null = null;
  const load = options.cache;
  const loadCache = load === undefined ? undefined : (): Promise<CatalogCache | undefined> => (cacheLoaded ??= load().catch(() => undefined));
  // It holds the lineage of each such file, or how to read it from what the search cut out of its head (read when a row needs it).
  // The lineages the native engine holds (of sessions that matched nothing) are read only when a row needs its family.
  const printing = options.printed;
  const printedLines =
    printing === undefined
      ? undefined
      : { ...(kept.printed === undefined ? {} : { rows: kept.printed }), lineOf: printing.lineOf, ...(pool instanceof NativeGrepPool ? { searched: () => pool.searched } : {}) };
  const rows = new MatchRows(groups, context, loadCache, pool instanceof NativeGrepPool ? (into) => pool.takeHeld(into) : undefined, kept.verdicts, printedLines);
  /** The groups of agents whose forks inherit their parents' turns that matched in their own files. */
  const inheritable = new Set(adapters.filter((adapter) => adapter.inheritedHistory !== undefined).map((adapter) => adapter.agent));
  const ownMatches = new Map<number, GrepFound>();
  let lineageUnseen = 0;
  const lineageSeen = new Latch();

  // Registering every group for the summaries' lookups waits until the walks are done: the main thread's time
  // goes to feeding the workers first.
  let unregistered: SessionFileGroup[] | null = [];
  /** Stores of many conversations (opencode's database): their adapter gives each conversation's text. */
  const stores: SessionFileGroup[] = [];
  /** A group found: known to the rows, and its index among them. */
  const note = (group: SessionFileGroup): number => {
    if (unregistered === null) context.register(group);
    else unregistered.push(group);
    if (linksByLineage(group.agent)) lineageUnseen++;
    return groups.push(group) - 1;
  };
  const sniffs = (agent: Agent): { readonly sniffCwd: boolean; readonly sniffLineage: boolean } => ({
    sniffCwd: sniffCwds && !fromCwds.some((adapter) => adapter.agent === agent),
    sniffLineage: linksByLineage(agent),
  });
  const add = (found: readonly SessionFileGroup[], packed?: PackedPaths): GrepItem[] => {
    // A root's groups read from a walk memo (one agent's) go to the native engine as the memo holds their paths: no
    // item per file is made (10k at 10k sessions), nor its paths encoded again.
    const agent = found[0]?.agent;
    if (packed !== undefined && agent !== undefined && pool instanceof NativeGrepPool && pool.takesPacked && !found.some(isStoreGroup)) {
      const first = groups.length;
      for (const group of found) note(group);
      const { sniffCwd, sniffLineage } = sniffs(agent);
      pool.takePacked({ first, count: found.length, agent, sniffCwd, sniffLineage, ...packed, item: (index) => ({ index, agent, paths: groups[index]!.paths, sniffCwd, sniffLineage }) });
      return [];
    }
    return found.flatMap((group) => {
      if (isStoreGroup(group)) {
        stores.push(group);
        return [];
      }
      return [{ index: note(group), agent: group.agent, paths: group.paths, ...sniffs(group.agent) }];
    });
  };

  /** The names of the roots met so far being read (rows wait for them; the search does not). */
  const namesLoaded: Promise<void>[] = [];
  let namesReady: { readonly count: number; readonly ready: Promise<unknown> } | null = null;
  /** Every name read so far done (one promise for every row that waits, until another root's names are read). */
  const namesRead = (): Promise<unknown> => {
    if (namesReady?.count !== namesLoaded.length) namesReady = { count: namesLoaded.length, ready: Promise.all(namesLoaded) };
    return namesReady.ready;
  };
  // Each root once: by its spelling, then by its real path (a folder reached through a symlink and through its real
  // path is searched once, under the first spelling met), and only when it is one of the agent's roots.
  const seenRoots = new Map<Agent, Set<string>>();
  /** A root's groups: at once (no promise) when the walk memo knows them (the engine starts on the first root's while the memo's others are made: MemoRoot), else by a walk. */
  const discoverOnce = (adapter: FormatAdapter, root: string): Found | Promise<Found> => {
    let seen = seenRoots.get(adapter.agent);
    if (seen === undefined) seenRoots.set(adapter.agent, (seen = new Set()));
    if (seen.has(root)) return NOTHING_FOUND;
    seen.add(root);
    const known = memo?.rootWalk(adapter.agent, root);
    if (known === undefined || (known.isRoot && known.real !== null && known.groups === undefined)) return discoverWalked(adapter, root, seen, known);
    const real = known.isRoot ? known.real : null;
    if (real === null || seen.has(`\0${real}`)) return NOTHING_FOUND;
    seen.add(`\0${real}`);
    // Names (Codex's session_index.jsonl) are only for rows: the root's files are searched without waiting for them.
    namesLoaded.push(context.loadNames(adapter, root));
    return { groups: known.groups!, packed: known.packed };
  };
  const discoverWalked = async (adapter: FormatAdapter, root: string, seen: Set<string>, known: RootWalk | undefined): Promise<Found> => {
    const isRoot = known?.isRoot ?? (await (adapter.discovery?.isRoot ?? isDirectory)(root));
    const real = !isRoot ? null : known !== undefined ? known.real : await walkFs.realpath(root).catch(() => null);
    if (real === null || seen.has(`\0${real}`)) {
      if (known === undefined) memo?.rememberRoot(adapter.agent, root, { isRoot, real });
      return NOTHING_FOUND;
    }
    seen.add(`\0${real}`);
    // Names (Codex's session_index.jsonl) are only for rows: the root's files are searched without waiting for them.
    namesLoaded.push(context.loadNames(adapter, root));
    const found = await discoverRoot(adapter, root, walkReport);
    memo?.rememberRoot(adapter.agent, root, { isRoot, real, groups: found });
    return { groups: found };
  };

  // Each root's files are queued as soon as its walk ends: the first reads start before the slowest walk is done.
  const walks: Promise<SessionFileGroup[]>[] = [];
  const candidateWalks: Promise<unknown>[] = [];
  for (const adapter of adapters) {
    const known = memo?.candidatesOf(adapter.agent);
    const candidates =
      known !== undefined
        ? Promise.resolve([...known])
        : candidateRoots(adapter, locations, walkReport).then((roots) => {
            memo?.rememberCandidates(adapter.agent, roots);
            return roots;
          });
    // The roots are known only when the candidates are: the pool waits for them (an empty item list) meanwhile. A root
    // the walk memo knows goes to the search at once.
    const rootWalks = candidates.then((roots) =>
      Promise.all(
        roots.map((root) => {
          const walk = discoverOnce(adapter, root);
          if (!(walk instanceof Promise)) {
            pool.expect(add(walk.groups, walk.packed));
            return walk.groups;
          }
          pool.expect(walk.then((found) => add(found.groups, found.packed)));
          return walk.then((found) => found.groups);
        }),
      ),
    );
    pool.expect(rootWalks.then(() => []));
    walks.push(rootWalks.then((found) => found.flat()));
    if (adapter.discovery?.rootsFromCwds) candidateWalks.push(rootWalks);
  }
  // Roots found through cwds come after the configured ones (the first path to a root names it, as in `list`).
  const candidatesWalked = Promise.all(candidateWalks);
  // Rows are built once every walk is done: a conversation's other files (same id) must be known.
  const walked = Promise.all([Promise.all(walks), verified]).then(([, ok]) => {
    // A stale memo's search reports nothing: what waits for the walks waits for ever (and is dropped with it).
    if (!ok) return new Promise<void>(() => {});
    context.registerAll(unregistered ?? []);
    unregistered = null;
    if (lineageUnseen === 0) lineageSeen.open();
  });

  let matched = 0;
  const emitted = new ReportedRows();
  /** A row made (of group `index`; `linked` to its lineage's family), reported as a row or as its printed line. */
  const emit = (row: CatalogSession, what: GrepFound, index: number, linked: boolean): void => {
    if (signal?.aborted || emitted.has(row) || (options.accept && !options.accept(row))) return;
    emitted.add(row);
    matched++;
    if (printing === undefined) options.onMatch(row, what);
    else printing.onLine(rows.printedRow(index, row, linked), what);
  };
  /** A row told by the lines an earlier grep printed (MatchRows.printedNow). */
  const emitPrinted = (row: PrintedRow, what: GrepFound): void => {
    if (signal?.aborted || emitted.has(row) || (printing!.accept && !printing!.accept(row))) return;
    emitted.add(row);
    matched++;
    printing!.onLine(row, what);
  };
  /**
   * Rows that go out as soon as they are made (every agent's but those linked by lineage), a window at a time after the
   * batch of matches that found them (the engine is handed its next files first), in the matches' order: each made at
   * once when it can be (`rowNow`: no promise), else through `row`. A promise chain per row moved all of a common
   * word's thousands of rows through each step together, so the first one went out only when the last one's cached
   * entry was decoded.
   */
  const rowQueue: (readonly [number, GrepFound])[] = [];
  let rowsRunning: Promise<void> | null = null;
  const runRows = async (): Promise<void> => {
    await walked;
    while (rowQueue.length > 0) {
      await namesRead();
      const window = rowQueue.splice(0, ROW_WINDOW);
      // What the search held meanwhile (a fork matched by its inherited turns is one), taken once for the window.
      rows.takeHeld();
      // A stopped search summarises nothing more (a common word matches thousands of sessions).
      const made = window.map(([index]): PrintedRow | CatalogSession | null | Promise<CatalogSession | null> => {
        if (signal?.aborted) return null;
        const printed = rows.printedNow(index, false);
        if (printed !== undefined) return printed;
        const now = rows.rowNow(index);
        return now === undefined ? rows.row(index) : now;
      });
      const ready = made.some((row) => row instanceof Promise) ? await Promise.all(made) : (made as (PrintedRow | CatalogSession | null)[]);
      for (let at = 0; at < window.length; at++) {
        const [index, what] = window[at]!;
        const row = ready[at]!;
        if (row === null) continue;
        if (isPrinted(row)) emitPrinted(row, what);
        else emit(row, what, index, false);
      }
    }
    rowsRunning = null;
  };
  /** Lineage-linked rows to make once every lineage was seen: each match's group and counts. */
  const lineageJobs: (readonly [number, GrepFound])[] = [];
  const onMatch = (index: number, what: GrepFound, stamps: readonly GrepStamp[] | null = null): void => {
    if (signal?.aborted) return;
    rows.noteStamps(index, stamps);
    const group = groups[index]!;
    if (inheritable.has(group.agent) && what.inherited !== true) ownMatches.set(index, what);
    if (options.onFiles) {
      matched++;
      options.onFiles(group, what);
      return;
    }
    rows.noteMatch();
    if (!byLineage.has(group.agent)) {
      rowQueue.push([index, what]);
      rowsRunning ??= runRows();
      return;
    }
    // A row that waits for every lineage is made only then: made while the search goes on, a common word's 37k Claude
    // rows were held beside the Codex rows being made (100k: peak RSS 672 -> 850-998 MB) for no gain in wall time at 10k.
    lineageJobs.push([index, what]);
  };
  /**
   * The lineage-linked rows of these matches, made a window at a time (as `rowQueue`): made all at once, a common word's
   * 37k rows at 100k were each halfway through their promise chain together, and what each held survived the young
   * generation's collections (most of a second of GC).
   */
  const lineageRowsOf = async (jobs: readonly (readonly [number, GrepFound])[]): Promise<(readonly [CatalogSession | PrintedRow, GrepFound, number])[]> => {
    // No match, no family to gather (wantFamilies loads the cache and reads every lineage: ~1 s of CPU at 100k).
    if (jobs.length === 0) return [];
    await walked;
    await namesRead();
    rows.wantFamilies();
    // In the matches' order (the sort below keeps it among equals): each made at once when it can be (rowNow, then
    // withLineageNow), else a window of them at a time.
    const made: (readonly [CatalogSession | PrintedRow, GrepFound, number] | null)[] = [];
    let waiting: Promise<void>[] = [];
    for (const [index, what] of jobs) {
      if (signal?.aborted) break;
      const at = made.push(null) - 1;
      const printed = rows.printedNow(index, true);
      if (printed === null) continue;
      if (printed !== undefined) {
        made[at] = [printed, what, index];
        continue;
      }
      const own = rows.rowNow(index);
      if (own === null) continue;
      const linked = own === undefined ? undefined : rows.withLineageNow(own);
      if (linked !== undefined) {
        made[at] = [linked, what, index];
        continue;
      }
      const later = async (): Promise<void> => {
        const row = own ?? (await rows.row(index));
        if (row === null || signal?.aborted) return;
        made[at] = [await rows.withLineage(row), what, index];
      };
      waiting.push(later());
      if (waiting.length < ROW_WINDOW) continue;
      await Promise.all(waiting);
      waiting = [];
    }
    await Promise.all(waiting);
    return made.filter((row): row is readonly [CatalogSession | PrintedRow, GrepFound, number] => row !== null);
  };
  const onBatch = async (cwds: readonly string[], seen: readonly (readonly [number, SniffedLineage, SniffedStamps])[], held = 0): Promise<GrepItem[]> => {
    for (const [index, lineage, stamps] of seen) {
      rows.noteStamps(index, stamps);
      rows.noteLineage(index, lineage);
    }
    lineageUnseen -= seen.length + held;
    if (lineageUnseen === 0) void walked.then(() => lineageUnseen === 0 && lineageSeen.open());
    if (cwds.length === 0 || !sniffCwds) return [];
    await candidatesWalked;
    return add((await Promise.all(fromCwds.flatMap((adapter) => cwds.map((cwd) => discoverOnce(adapter, cwd))))).flatMap((found) => found.groups));
  };
  // Rows found by lineage go out together, newest first, once every file of their agents was seen.
  const lineageDone = lineageSeen.wait.then(async () => {
    // The matches noted so far (as a Promise.all of their rows took them here before).
    for (const [row, what, index] of (await lineageRowsOf(lineageJobs.slice())).sort(([a], [b]) => newestFirst(a, b))) {
      if (isPrinted(row)) emitPrinted(row, what);
      else emit(row, what, index, true);
    }
  });
  // A store's conversations are searched in the text their adapter reads out of it, not in the file's bytes.
  const storesDone = walked.then(() =>
    searchStores(stores, text, options, context, (group, what) => {
      groups.push(group);
      onMatch(groups.length - 1, what);
    }),
  );
  try {
    const events: PoolEvents = { onMatch, onBatch, onProblem: (problem) => options.onProblem?.(problem) };
    await pool.run(verify === null ? events : gatedEvents(verified, events));
    if (stale || !(await verified)) return STALE;
    await storesDone;
    // Step 5: forks matched by the turns they inherit (their parents' files are known to match by now).
    const inheritedSearch = { text, ignoreCase: options.ignoreCase ?? false, count: options.count ?? false, context: options.context ?? null, notConversation: notConversationPattern(notConversationSources()) };
    for (const { index, found } of await inheritedMatches(groups, ownMatches, inheritedSearch, loadCache, (problem) => context.report(problem))) onMatch(index, found);
  } finally {
    lineageSeen.open();
  }
  await lineageDone;
  for (let running = rowsRunning; running !== null; running = rowsRunning) await running;
  if (trigrams !== undefined) await pruneTrigramMaps(trigrams.dir);
  // The search's single files: the lines kept of any other file are dropped (gone, or of several now).
  kept.printed?.save(() => new Set(groups.flatMap((group) => (group.paths.length === 1 ? [group.paths[0]!] : []))));
  return { matched, problems: context.problems, engine: native !== null ? 'native' : 'js' };
}

/** Whether a reported row is a printed line told by an earlier grep's (MatchRows.printedNow), not a made row. */
function isPrinted(row: CatalogSession | PrintedRow): row is PrintedRow {
  return (row as Partial<PrintedRow>).line !== undefined;
}

/** Step 1: the search engine, started while the folders are walked (the native engine's threads, or JS workers). */
function startEngine(text: string, options: GrepOptions): { pool: GrepPool | NativeGrepPool; native: ReturnType<typeof nativeSearchAddon>; trigrams: TrigramMaps | undefined } {
  const threads = Math.max(1, options.workers ?? availableParallelism());
  // A cache lookup needs each file's stamp: the workers take it as they open the file, not the main thread again.
  const stamps = options.cache !== undefined && options.onFiles === undefined;
  const native = searchEngine(options) === 'native' ? nativeSearchAddon() : null;
  // The workers boot (tens of ms) while the folders are walked; the native engine's threads start at once.
  const workerData: GrepWorkerData = {
    text,
    ignoreCase: options.ignoreCase ?? false,
    count: options.count ?? false,
    context: options.context ?? null,
    notConversation: notConversationSources(),
    stamps,
  };
  // Counts and snippets: the native engine finds the matching sessions, JS workers read those whole.
  const counts = workerData.count || (workerData.context !== null && options.readSnippets !== false);
  const trigrams = native !== null && options.trigrams !== undefined && trigramDirReady(options.trigrams.dir) ? options.trigrams : undefined;
  const pool =
    native !== null
      ? new NativeGrepPool(native, threads, trigrams === undefined ? workerData : { ...workerData, trigrams }, counts ? () => new GrepPool(threads, workerData) : null)
      : new GrepPool(threads, workerData);
  return { pool, native, trigrams };
}

/**
 * With `verify` (a walk memo read but not checked): checked once the memo's files were handed to the search
 * (setImmediate runs after the microtasks that queue them; what the pool holds back for a later hand-over goes first:
 * the threads search while this one checks). A stale memo aborts the search and calls `onStale`.
 */
function verifyWhileSearching(pool: GrepPool | NativeGrepPool, verify: (() => boolean | Promise<boolean>) | null, onStale: () => void): Promise<boolean> {
  const verified =
    verify === null
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) =>
          setImmediate(() => {
            pool.handOver();
            resolve(verify());
          }),
        );
  void verified.then((ok) => {
    if (ok) return;
    onStale();
    pool.abort();
  });
  return verified;
}

/** The engine a search takes (see GrepOptions.engine). */
function searchEngine(options: GrepOptions): 'native' | 'js' {
  return options.engine ?? 'native';
}

/** Whether the trigram maps' folder is there (made when missing); a search without it reads big files whole. */
function trigramDirReady(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await walkFs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** A promise opened once, from outside. */
class Latch {
  private release: () => void = () => {};
  readonly wait = new Promise<void>((resolve) => (this.release = resolve));
  open(): void {
    this.release();
  }
}
