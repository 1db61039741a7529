// The browser's content search over the catalog it already holds: every listed session's files are handed to the
// search engine at once, as the rows name them (no folder walk on the browser's thread, no registry of file groups),
// and a match is reported as the row it was found for. `sessions grep` walks the folders instead (grep.ts): it has
// no catalog.
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { ADAPTERS, notConversationSources } from '../core/formats/index.js';
import { notConversationPattern } from '../core/io/snippet.js';
import type { InheritedBase, Problem, SessionFileGroup } from '../core/formats/types.js';
import { sessionKey } from '../core/model.js';
import { inheritedMatches } from './grep-inherited.js';
import { GrepPool } from './grep-pool.js';
import type { GrepFound } from './grep-pool-events.js';
import type { GrepItem, GrepWorkerData } from './grep-worker.js';
import { NativeGrepPool, nativeSearchAddon, type TrigramMaps } from './native-grep.js';
import { handedAgain } from './packed-items.js';
import { groupOf, type CatalogSession } from './scan.js';

/**
 * Sessions in the native engine's hands at once: enough that its threads never wait for the next ones (it reports
 * every 2,048 done), few enough that its items stay a few MB (100k at once held ~60 MB).
 */
const MAX_IN_FLIGHT = 8192;

/** Forks' inherited parts are read for at most this long at a time while the search runs. */
const BASES_SLICE_MS = 8;

export interface CatalogGrepOptions {
  /** Fold ASCII letters (the text and the files). */
  readonly ignoreCase: boolean;
  /** `native` (the default, when it was built) or `js` worker threads (see GrepOptions.engine). */
  readonly engine?: 'native' | 'js';
  /** Threads to search with (default: one per core). */
  readonly workers?: number;
  /** See GrepOptions.trigrams. */
  readonly trigrams?: TrigramMaps;
  /**
   * Characters each side of the match in the snippet of a fork that matches by the turns it inherits (its own files
   * do not hold the text, so the browser's snippet reader would find none); other matches come without a snippet.
   */
  readonly context?: number;
  readonly signal?: AbortSignal;
  /** Each matching session, once, as soon as it is known to match. */
  readonly onFound: (session: CatalogSession, found: GrepFound) => void;
  /** A file that could not be read. */
  readonly onProblem?: (problem: Problem) => void;
}

export interface CatalogGrep {
  /**
   * Search these sessions too, whole (rows the watcher re-read or found while the search runs: a file that grew or
   * appeared), unless one of them already matched; the search is not done before the promise of them resolves. False
   * once the search is done (nothing is searched then).
   */
  add(sessions: readonly CatalogSession[] | Promise<readonly CatalogSession[]>): boolean;
  /** How many sessions matched, and the engine that searched. */
  readonly done: Promise<{ readonly matched: number; readonly engine: 'native' | 'js' }>;
}

/**
 * Search `text` in every file of `sessions` (rows of this machine; a store's conversations, whose files hold many, are
 * not searched here: `grepLocations` reads their text out of the store): the same engine, line rules and literal
 * spellings as `sessions grep`, whose files-only search (`onFiles`) finds the sessions this reports. Forks that hold
 * their early turns in the parent's file match by those turns too, as in grep.
 */
export function grepCatalog(sessions: readonly CatalogSession[], text: string, options: CatalogGrepOptions): CatalogGrep {
  const native = options.engine === 'js' ? null : nativeSearchAddon();
  const threads = Math.max(1, options.workers ?? availableParallelism());
  const data: GrepWorkerData = {
    text,
    ignoreCase: options.ignoreCase,
    count: false,
    context: null,
    notConversation: notConversationSources(),
    stamps: false,
  };
  const pool =
    native !== null
      ? new NativeGrepPool(native, threads, options.trigrams === undefined ? data : { ...data, trigrams: options.trigrams }, null, MAX_IN_FLIGHT)
      : new GrepPool(threads, data);
  const { signal } = options;
  signal?.addEventListener('abort', () => pool.abort(), { once: true });

  /** The catalog's items, made by an earlier search of the same rows or by this one (as the engine reads the first). */
  const known = catalogWork.get(sessions);
  /** Every session searched, by the index its items carry: the catalog's, then those added. */
  const searched: CatalogSession[] = known === undefined ? [] : known.searched.slice();
  const matched = new Set<string>();
  /** Matches of sessions whose forks may inherit their turns (for the last step). */
  const ownMatches = new Map<number, GrepFound>();
  let open = true;
  /** Sessions were added (and took indexes) while the catalog's items were being made: those are not kept. */
  let addedMeanwhile = false;
  /** Items for `list` (the catalog's, then each list added: those skip sessions that matched already). */
  const itemsOf = (list: readonly CatalogSession[], added: boolean): GrepItem[] => {
    const items: GrepItem[] = [];
    // Oldest first: the engine takes its queue from the end, so the newest sessions are searched first.
    for (let at = list.length - 1; at >= 0; at--) {
      const session = list[at]!;
      if (ADAPTERS[session.agent].store !== undefined || session.host !== undefined) continue;
      if (added && matched.has(sessionKey(session))) continue;
      items.push({ index: searched.push(session) - 1, agent: session.agent, paths: session.paths, sniffCwd: false, sniffLineage: false });
    }
    return items;
  };
  const report = (index: number, found: GrepFound): void => {
    if (signal?.aborted) return;
    const session = searched[index]!;
    const key = sessionKey(session);
    if (matched.has(key)) return;
    matched.add(key);
    options.onFound(session, found);
  };
  let forks: readonly CatalogSession[] | null = known?.forks ?? null;
  if (known !== undefined) {
    // Handed over as they were made: the engine's pool packs each list once (packed-items.ts), and its threads
    // start on the first as the pool runs (below), before the browser's thread does anything else.
    pool.expect(known.first);
  } else {
    // The newest sessions first, at once; the rest's items are made while the engine reads those, a slice per turn of
    // the event loop (all of them in one turn held the first match's row back ~17 ms at 100k sessions), handed over
    // together; then kept for the next search of these rows.
    const first = Math.min(sessions.length, MAX_IN_FLIGHT);
    const firstItems = itemsOf(sessions.slice(0, first), false);
    handedAgain(firstItems);
    pool.expect(firstItems);
    const keep = (rest: GrepItem[]): GrepItem[] => {
      if (addedMeanwhile) return rest;
      handedAgain(rest);
      catalogWork.set(sessions, { searched: searched.slice(), first: firstItems, rest, forks });
      return rest;
    };
    if (first === sessions.length) keep([]);
    else {
      pool.expect(
        new Promise<readonly GrepItem[]>((resolve) => {
          // Made oldest first (as itemsOf orders them), so the slices go from the end of the list to `first`.
          const slices: GrepItem[][] = [];
          let end = sessions.length;
          const next = (): void => {
            if (!open || signal?.aborted) {
              resolve([]);
              return;
            }
            const start = Math.max(first, end - MAX_IN_FLIGHT);
            slices.push(itemsOf(sessions.slice(start, end), false));
            end = start;
            if (end > first) setImmediate(next);
            else resolve(keep(slices.flat()));
          };
          setImmediate(next);
        }),
      );
    }
  }

  // Forks' inherited parts are read while the engine searches (a slice at a time: the browser's thread stays free):
  // the last step then reads none (~3,000 Codex forks' headers at 100k sessions took 0.5 s after the search). Which
  // rows are forks is found there too, not before the engine starts (a pass over 80k rows: 9–17 ms).
  const bases = new Map<CatalogSession, InheritedBase | null | Error>();
  let readBases = 0;
  const readSomeBases = (): void => {
    if (forks === null) {
      forks = forksOf(sessions);
      const work = catalogWork.get(sessions);
      if (work !== undefined) work.forks ??= forks;
    }
    const until = performance.now() + BASES_SLICE_MS;
    while (readBases < forks.length && open && !signal?.aborted && performance.now() < until) {
      const fork = forks[readBases++]!;
      bases.set(fork, knownBaseOf(fork));
    }
    if (readBases < forks.length && open && !signal?.aborted) setImmediate(readSomeBases);
  };
  setImmediate(readSomeBases);

  const done = (async () => {
    try {
      await pool.run({
        onMatch: (index, found) => {
          if (ADAPTERS[searched[index]!.agent].inheritedHistory !== undefined) ownMatches.set(index, found);
          report(index, found);
        },
        // Nothing is sniffed from heads: the rows are known.
        onBatch: () => Promise.resolve([]),
        onProblem: (problem) => options.onProblem?.(problem),
      });
    } finally {
      open = false;
    }
    if (!signal?.aborted) {
      for (const { index, found } of await inheritedOnly(searched, ownMatches, text, options, bases)) report(index, found);
    }
    return { matched: matched.size, engine: native !== null ? ('native' as const) : ('js' as const) };
  })();
  // The rest once the first went to the engine (so that the first is handed over as it was packed).
  if (known !== undefined && known.rest.length > 0) pool.expect(known.rest);
  return {
    add(list) {
      if (!open || signal?.aborted) return false;
      addedMeanwhile = true;
      pool.expect(Promise.resolve(list).then((rows) => itemsOf(rows, true)));
      return true;
    },
    done,
  };
}

/**
 * What a search of a catalog hands the engine, made once per catalog (its rows' array: a new one when a row changes):
 * the sessions searched, by their items' indexes; their items, the newest MAX_IN_FLIGHT's (handed over first) apart
 * from the rest's; and its forks. A search of 80k rows spent ~40 ms of the browser's thread on them (their making, their
 * packing for the engine, the collection of what that left) before the engine had the first.
 */
interface CatalogWork {
  readonly searched: readonly CatalogSession[];
  readonly first: readonly GrepItem[];
  readonly rest: readonly GrepItem[];
  /** Found by the first search's first slice of fork headers read. */
  forks: readonly CatalogSession[] | null;
}

const catalogWork = new WeakMap<readonly CatalogSession[], CatalogWork>();

/** The rows whose inherited turns (in their parent's file) can match. */
function forksOf(sessions: readonly CatalogSession[]): CatalogSession[] {
  return sessions.filter((session) => session.forkedFrom !== null && ADAPTERS[session.agent].inheritedHistory !== undefined && session.host === undefined);
}

/**
 * Forks that match only by the turns they inherit from their parent's file (`inheritedMatches`), found among the
 * catalog's forks: a row says whether it is one (no head is read), and only forks and sessions that matched can take
 * part in a match by inheritance. Indexes are `searched`'s.
 */
async function inheritedOnly(
  searched: readonly CatalogSession[],
  ownMatches: ReadonlyMap<number, GrepFound>,
  text: string,
  options: CatalogGrepOptions,
  bases: ReadonlyMap<CatalogSession, InheritedBase | null | Error>,
): Promise<{ readonly index: number; readonly found: GrepFound }[]> {
  if (ownMatches.size === 0) return [];
  const at: number[] = [];
  for (let index = 0; index < searched.length; index++) {
    const session = searched[index]!;
    if (ADAPTERS[session.agent].inheritedHistory !== undefined && (session.forkedFrom !== null || ownMatches.has(index))) at.push(index);
  }
  const groups: SessionFileGroup[] = at.map((index) => groupOf(searched[index]!));
  const matches = new Map<number, GrepFound>();
  at.forEach((index, local) => {
    const found = ownMatches.get(index);
    if (found !== undefined) matches.set(local, found);
  });
  // A snippet prefers a match in conversation text (the adapters' `notConversation` patterns), as grep's does.
  const notConversation = notConversationPattern(notConversationSources());
  const search = { text, ignoreCase: options.ignoreCase, count: false, context: options.context ?? null, notConversation };
  const knownBase = (local: number): InheritedBase | null => {
    const session = searched[at[local]!]!;
    if (session.forkedFrom === null) return null;
    const base = bases.has(session) ? bases.get(session)! : knownBaseOf(session);
    // Thrown here, it is reported as inheritedMatches reports a base it cannot read.
    if (base instanceof Error) throw base;
    return base;
  };
  const found = await inheritedMatches(groups, matches, search, undefined, (problem) => options.onProblem?.(problem), knownBase);
  return found.map(({ index, found: what }) => ({ index: at[index]!, found: what }));
}

/**
 * Bases read by earlier searches, by row: a fork's header names them and does not change as the file grows, and a row
 * re-read by the watcher is a new object (a search of 10k sessions read ~300 headers again each time: 25–100 ms).
 */
const basesRead = new WeakMap<CatalogSession, InheritedBase | null>();

/** `baseOf`, kept for the row when it could be read. */
function knownBaseOf(session: CatalogSession): InheritedBase | null | Error {
  if (basesRead.has(session)) return basesRead.get(session)!;
  const base = baseOf(session);
  if (!(base instanceof Error)) basesRead.set(session, base);
  return base;
}

/** The part of its parent's file a fork inherits (null: none), or why it could not be read. */
function baseOf(session: CatalogSession): InheritedBase | null | Error {
  try {
    return ADAPTERS[session.agent].inheritedHistory?.base(groupOf(session)) ?? null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
