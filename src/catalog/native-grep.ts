// The native full-text search engine (native/search.c, built by `npm ci` when a C compiler is there): the same
// per-session search as the JS workers (grep-worker.ts), on threads of its own. Here: loading it, and the pool
// that feeds it sessions and turns what it finds into what grep's JS pool reports.
import { ADAPTERS } from '../core/formats/index.js';
import { nativeEngine } from '../core/native.js';
import { compileTextSearch } from '../core/io/contains.js';
import { cwdInHead } from '../core/io/heads.js';
import type { Agent } from '../core/model.js';
import type { Problem } from '../core/formats/types.js';
import type { GrepItem } from './grep-worker.js';
import { isHandedAgain, packedOnce, type PackedItems } from './packed-items.js';
import type { PoolEvents, SniffedLineage, SniffedStamps } from './grep-pool-events.js';
import { FIELDS, type HeldSessions, sniffedAt, stampsOf, T_CWDS, T_INDEX, T_NCWDS, T_NOPENINGS, T_NPROBLEMS, T_OPENINGS, T_PROBLEMS, T_STAMPS, T_STATE, T_TOKEN, type TableSession } from './native-held.js';
import type { TrigramMaps } from './trigram-maps.js';

export { nativeAnswersHold, nativeAnswersHoldLater } from './native-answers.js';
export { MAX_TRIGRAM_MAPS, pruneTrigramMaps, trigramMapsBeside, type TrigramMaps } from './trigram-maps.js';

/** The addon's functions (see native/search.c). */
interface NativeSearchAddon {
  create(
    config: {
      readonly threads: number;
      readonly probes: readonly { readonly bytes: Buffer; readonly spellings: readonly { readonly bytes: Buffer; readonly probeOffset: number }[] }[];
      readonly longest: number;
      readonly ignoreCase: boolean;
      readonly foldChunks: boolean;
      readonly stamps: boolean;
      /** The adapters' nonConversationNeedles, each agent's set named by its items' flags (NEEDLES_SHIFT). */
      readonly needles: readonly (readonly Buffer[])[];
      /** Where the trigram maps of big files are kept (see "trigram maps" in native/search.c); absent: none are used. */
      readonly trigramDir?: string;
      /** The least size of a file that gets a map (default 16 MiB). */
      readonly trigramMinBytes?: number;
    },
    onBatch: NativeBatch,
  ): NativeHandle;
  /** Item i: index, flags, counts[i] paths taken in order from `paths` (UTF-8, each followed by a NUL), lineage key keys[keyIndexes[i]] (-1: none). */
  push(handle: NativeHandle, indexes: Int32Array, flags: Int32Array, counts: Int32Array, paths: Buffer, keyIndexes: Int32Array, keys: readonly Buffer[]): void;
  judged(handle: NativeHandle, token: number, accepted: number): void;
  /**
   * The sessions whose lineage was sniffed that the engine finished with nothing else to say since the last call, as a
   * batch's table, stamps, spans and bytes (NativeBatch). Absent in an engine built before it held them (it reports
   * them in its batches).
   */
  held?(handle: NativeHandle): [table: Float64Array, stamps: Float64Array, spans: Float64Array, bytes: Buffer];
  close(handle: NativeHandle, abort: boolean): void;
  /** Whether every answer holds (see `nativeAnswersHold`). */
  answersHold(codes: Uint8Array, numbers: Float64Array, paths: Buffer, reals: Buffer): boolean;
  /** answersHold on one of libuv's threads (see `nativeAnswersHoldLater`). */
  answersHoldLater(codes: Uint8Array, numbers: Float64Array, paths: Buffer, reals: Buffer): Promise<boolean>;
}

declare const nativeHandle: unique symbol;
type NativeHandle = { readonly [nativeHandle]: true };

/**
 * What the engine found since its last call, packed (see call_js in native/search.c): `table` holds FIELDS numbers per
 * session (the T_ offsets below), stamps 4 numbers per file (size, mtimeMs, fingerprint length and hash), `spans`
 * start/end pairs into `bytes` (cuts of heads, openings of lines to judge), `problems` [file, message] pairs flat.
 * `silentDone` sessions finished with nothing to say; `cwdsFirst`/`cwdsCount`: the spans of new cwd cuts; `heldDone`
 * sessions whose lineage was sniffed finished with nothing else to say, held by the engine until `held` is called (an
 * engine built before it held them passes no such count).
 */
type NativeBatch = (
  table: Float64Array,
  stamps: Float64Array,
  spans: Float64Array,
  bytes: Buffer,
  problems: readonly (number | string)[],
  silentDone: number,
  cwdsFirst: number,
  cwdsCount: number,
  heldDone?: number,
) => void;

const MATCH = 1;
const JUDGE = 3;

const FILTER = 1;
const SNIFF_CWD = 2;
/** Flags bits 8-15: 1 + the item's needle set (see create's `needles`). */
const NEEDLES_SHIFT = 8;
const SNIFF_LINEAGE = 4;
const FIRST = 8;
/** The item's lineage is its adapter's root uuid (FormatAdapter.lineageIsRootUuid): the engine reads it when it can. */
const LINEAGE_ROOT = 16;

/** A backlog this long is handed over at once, not at the end of the event loop's turn. */
const FLUSH_NOW = 1024;

/**
 * The native engine, or null when it was not built (no C compiler at install) or does not load. Its place is
 * fixed relative to this module: two folders down from the package root, in src/, dist/ and dist/bundle/ alike.
 */
export function nativeSearchAddon(): NativeSearchAddon | null {
  return nativeEngine() as NativeSearchAddon | null;
}

/** What the pool needs to know of the search (GrepWorkerData's fields the native engine does). */
export interface NativePoolData {
  readonly text: string;
  readonly ignoreCase: boolean;
  readonly stamps: boolean;
  /** See GrepOptions.trigrams. */
  readonly trigrams?: TrigramMaps;
}

/**
 * Sessions `first`, `first` + 1, … of one agent, their paths as the engine takes them (a root's groups read from a walk
 * memo: RootWalk.packed): handed over without an item each. `item` makes one's item when it is wanted (a match, a
 * lineage, a problem).
 */
export interface PackedSessions {
  readonly first: number;
  /** How many sessions. */
  readonly count: number;
  readonly agent: Agent;
  readonly sniffCwd: boolean;
  readonly sniffLineage: boolean;
  /** How many paths each session has (null: one each). */
  readonly counts: readonly number[] | null;
  /** Every path's UTF-8 bytes, each followed by a NUL: `bytes` from `start` to `end`. */
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
  readonly item: (index: number) => GrepItem;
}

/** A pool of JS workers (GrepPool in grep-pool.ts), as the native pool uses it for counts and snippets. */
export interface WorkerPool {
  expect(work: Promise<readonly GrepItem[]> | readonly GrepItem[]): void;
  abort(): void;
  run(events: PoolEvents): Promise<void>;
}

/**
 * The native engine as grep's pool: sessions are handed over as soon as the walks find them (the engine's threads
 * take Claude's first, then the others newest first), and what it finds comes back in batches on this thread.
 * It does the search of `fileContainsSync`; when counts or snippets are asked for, each matching session is handed to
 * JS workers (`counting`, booted at the first match) that read its files whole, as without the native engine: a
 * search that matches few sessions reads the others once, natively.
 */
export class NativeGrepPool {
  private readonly handle: NativeHandle;
  /** Sessions handed over, by index (for their paths and agents); those the engine reports done are dropped. */
  private readonly inFlight = new Map<number, GrepItem>();
  /** Sessions handed over packed (takePacked), by index, until the engine reports them done. */
  private readonly packedInFlight: (PackedSessions | undefined)[] = [];
  /** Packed sessions found and not handed over yet, and how many. */
  private packedBacklog: PackedSessions[] = [];
  private packedWaiting = 0;
  private handed = 0;
  private finished = 0;
  /** Sessions whose cwd was decoded from a cut of theirs (the first one that decodes counts, as in the worker). */
  private readonly cwdFound = new Set<number>();
  private readonly reportedCwds = new Set<string>();
  private readonly skipLine: Partial<Record<Agent, (opening: string) => boolean>> = {};
  /** The flag bits naming an agent's needle set (its line filter rejects no opening without one of them). */
  private readonly needleBits: Partial<Record<Agent, number>> = {};
  /** The adapters' lineage keys, and each agent's place among them. */
  private readonly lineageKeys: Buffer[] = [];
  private readonly lineageKeyOf: Partial<Record<Agent, number>> = {};
  /** The flags of an item whose lineage is sniffed, by agent (LINEAGE_ROOT where the engine may read the root uuid). */
  private readonly lineageFlags: Partial<Record<Agent, number>> = {};
  /** Sessions the engine holds (see NativeSearchAddon.held), and how many of them were taken. */
  private heldDone = 0;
  private heldTaken = 0;
  private pending = 0;
  private running = false;
  private closed = false;
  private failure: unknown = undefined;
  private events: PoolEvents | null = null;
  private done: ((error?: unknown) => void) | null = null;
  /** Found and not handed over yet. */
  private backlog: GrepItem[] = [];
  /** The backlog is a list given whole (see handedAgain): it is copied before it changes. */
  private backlogShared = false;
  private flushing = false;
  /** The workers that count and cut snippets of matching sessions, once one matched. */
  private counting: WorkerPool | null = null;
  private countingSettled = false;
  private releaseCounting: (() => void) | null = null;
  private readonly reportedProblems = new Set<string>();

  constructor(
    private readonly native: NativeSearchAddon,
    threads: number,
    data: NativePoolData,
    /** Workers for counts and snippets (null: none asked for). */
    private readonly makeCounting: (() => WorkerPool) | null = null,
    /**
     * Sessions handed to the engine and not done yet, at most (the rest wait here, the newest queued first): a search
     * handed 100k sessions at once would hold 100k of the engine's items (~60 MB). Default: no bound.
     */
    private readonly maxInFlight = Number.POSITIVE_INFINITY,
  ) {
    const needles: Buffer[][] = [];
    for (const adapter of Object.values(ADAPTERS)) {
      if (adapter.isNonConversationLine) this.skipLine[adapter.agent] = adapter.isNonConversationLine.bind(adapter);
      if (adapter.isNonConversationLine && adapter.nonConversationNeedles !== undefined) {
        this.needleBits[adapter.agent] = needles.push(adapter.nonConversationNeedles.map((needle) => Buffer.from(needle, 'latin1'))) << NEEDLES_SHIFT;
      }
      if (adapter.lineageLineKey !== undefined) this.lineageKeyOf[adapter.agent] = this.lineageKeys.push(Buffer.from(adapter.lineageLineKey)) - 1;
      this.lineageFlags[adapter.agent] = SNIFF_LINEAGE | FIRST | (adapter.lineageIsRootUuid === true ? LINEAGE_ROOT : 0);
    }
    const search = compileTextSearch(data.text, { ignoreCase: data.ignoreCase });
    this.handle = native.create(
      {
        threads,
        probes: search.probes.map((probe) => ({ bytes: probe.bytes, spellings: probe.spellings.map((s) => ({ bytes: s.bytes, probeOffset: s.probeOffset })) })),
        longest: search.longest,
        ignoreCase: search.ignoreCase,
        foldChunks: search.foldChunks,
        stamps: data.stamps,
        needles,
        ...(data.trigrams === undefined ? {} : { trigramDir: data.trigrams.dir, ...(data.trigrams.minBytes === undefined ? {} : { trigramMinBytes: data.trigrams.minBytes }) }),
      },
      (...batch) => this.onResults(...batch),
    );
  }

  /** Queue the items `work` resolves to when it resolves (a list: now, and a running pool hands them over at once). */
  expect(work: Promise<readonly GrepItem[]> | readonly GrepItem[]): void {
    if (!(work instanceof Promise)) {
      this.take(work);
      return;
    }
    this.pending++;
    work
      .then((items) => this.take(items))
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.pending--;
        this.check();
      });
  }

  /** Whether takePacked may be used (not by a pool that bounds what it hands over: it hands over items). */
  get takesPacked(): boolean {
    return this.maxInFlight === Number.POSITIVE_INFINITY;
  }

  /** Queue packed sessions (see PackedSessions), as `expect` queues a list of items. */
  takePacked(sessions: PackedSessions): void {
    if (this.closed || sessions.count === 0) return;
    this.packedBacklog.push(sessions);
    this.packedWaiting += sessions.count;
    this.queued();
  }

  private take(items: readonly GrepItem[]): void {
    if (this.closed) return;
    if (this.backlog.length === 0 && isHandedAgain(items)) {
      this.backlog = items as GrepItem[];
      this.backlogShared = true;
    } else {
      this.ownBacklog();
      for (const item of items) this.backlog.push(item);
    }
    this.queued();
  }

  /** Something was queued: handed over now when much waits, else at the end of this turn of the event loop. */
  private queued(): void {
    // An agent's whole store from a walk memo (thousands of sessions) goes at once: the threads start on it while
    // this thread is still resolving the memo's other roots.
    if (this.running && this.backlog.length + this.packedWaiting >= FLUSH_NOW) {
      this.flush();
      return;
    }
    // The walks of one turn of the event loop (hundreds of roots, from a walk memo) are handed over in one call.
    if (this.running && !this.flushing) {
      this.flushing = true;
      setImmediate(() => {
        this.flushing = false;
        this.flush();
      });
    }
  }

  /** Hand what was found over now, not at the end of this turn of the event loop (before this thread gets busy). */
  handOver(): void {
    if (this.running) this.flush();
  }

  /** End the search now: what is queued is dropped, the threads stop after the chunk they are reading. */
  abort(): void {
    this.counting?.abort();
    if (!this.closed) {
      this.closed = true;
      this.native.close(this.handle, true);
    }
    this.done?.();
  }

  run(events: PoolEvents): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.events = events;
      this.done = (error?: unknown): void => {
        if (this.done === null) return;
        this.done = null;
        if (!this.closed) {
          this.closed = true;
          this.native.close(this.handle, error !== undefined);
        }
        if (error !== undefined) this.counting?.abort();
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(String(error)));
      };
      this.running = true;
      this.flush();
      this.check();
    });
  }

  private flush(): void {
    if (this.closed) return;
    const lists = this.packedBacklog;
    if (lists.length > 0) {
      // (Only in an unbounded pool: see takesPacked.)
      this.packedBacklog = [];
      this.packedWaiting = 0;
      const items = this.backlog;
      this.backlog = [];
      this.backlogShared = false;
      this.pushPacked(lists, items);
      return;
    }
    if (this.backlog.length === 0) return;
    const room = this.maxInFlight - (this.handed - this.finished);
    if (room <= 0) return;
    let items = this.backlog;
    if (items.length <= room) {
      this.backlog = [];
      this.backlogShared = false;
    } else {
      // Bounded: the items queued last go first (the engine takes its queue from the end too).
      this.ownBacklog();
      items = this.backlog.splice(this.backlog.length - room);
    }
    for (const item of items) this.inFlight.set(item.index, item);
    this.handed += items.length;
    const packed = this.packedItems(items);
    this.native.push(this.handle, packed.indexes, packed.flags, packed.counts, packed.paths, packed.keyIndexes, this.lineageKeys);
  }

  private packedItems(items: readonly GrepItem[]): PackedItems {
    return packedOnce(items, (item) => this.flagsOf(item), (item) => this.keyIndexOf(item));
  }

  /** The engine's index of an item's lineage key among `lineageKeys` (or of every session of a packed list); -1: none. */
  private keyIndexOf(item: Pick<GrepItem, 'agent' | 'sniffLineage'>): number {
    return item.sniffLineage ? (this.lineageKeyOf[item.agent] ?? -1) : -1;
  }

  /** The engine's flags of an item (or of every session of a packed list). */
  private flagsOf(item: Pick<GrepItem, 'agent' | 'sniffCwd' | 'sniffLineage'>): number {
    return (
      (this.skipLine[item.agent] ? FILTER | (this.needleBits[item.agent] ?? 0) : 0) |
      (item.sniffCwd ? SNIFF_CWD : 0) |
      (item.sniffLineage ? (this.lineageFlags[item.agent] ?? 0) : 0)
    );
  }

  /** Packed sessions and items handed over in one call: their arrays joined, their paths' bytes copied once. */
  private pushPacked(lists: readonly PackedSessions[], items: readonly GrepItem[]): void {
    const fromItems = items.length > 0 ? this.packedItems(items) : null;
    let count = items.length;
    let bytes = fromItems?.paths.length ?? 0;
    // Lists of one memo, each after the last (as they are found): one cut of its bytes.
    let adjacent = fromItems === null;
    for (const [at, list] of lists.entries()) {
      count += list.count;
      bytes += list.end - list.start;
      if (at > 0 && (list.bytes !== lists[at - 1]!.bytes || list.start !== lists[at - 1]!.end)) adjacent = false;
    }
    const indexes = new Int32Array(count);
    const flags = new Int32Array(count);
    const counts = new Int32Array(count).fill(1);
    const keyIndexes = new Int32Array(count);
    const paths = adjacent ? lists[0]!.bytes.subarray(lists[0]!.start, lists.at(-1)!.end) : Buffer.allocUnsafe(bytes);
    let at = 0;
    let pathsAt = 0;
    for (const list of lists) {
      const n = list.count;
      for (let k = 0; k < n; k++) {
        indexes[at + k] = list.first + k;
        this.packedInFlight[list.first + k] = list;
      }
      flags.fill(this.flagsOf(list), at, at + n);
      keyIndexes.fill(this.keyIndexOf(list), at, at + n);
      if (list.counts !== null) counts.set(list.counts, at);
      if (!adjacent) pathsAt += list.bytes.copy(paths, pathsAt, list.start, list.end);
      at += n;
    }
    if (fromItems !== null) {
      for (const item of items) this.inFlight.set(item.index, item);
      indexes.set(fromItems.indexes, at);
      flags.set(fromItems.flags, at);
      counts.set(fromItems.counts, at);
      keyIndexes.set(fromItems.keyIndexes, at);
      fromItems.paths.copy(paths, pathsAt);
    }
    this.handed += count;
    this.native.push(this.handle, indexes, flags, counts, paths, keyIndexes, this.lineageKeys);
  }

  /** A session handed over and not reported done yet, or undefined. */
  private inFlightAt(index: number): GrepItem | undefined {
    return this.inFlight.get(index) ?? this.packedInFlight[index]?.item(index);
  }

  /** A session the engine reported done. */
  private landed(index: number): void {
    this.inFlight.delete(index);
    this.packedInFlight[index] = undefined;
  }

  /** The backlog made this pool's own (not a list given whole), before it changes. */
  private ownBacklog(): void {
    if (!this.backlogShared) return;
    this.backlog = this.backlog.slice();
    this.backlogShared = false;
  }

  private onResults(
    table: Float64Array,
    stampTable: Float64Array,
    spans: Float64Array,
    bytes: Buffer,
    problems: readonly (number | string)[],
    silentDone: number,
    cwdsFirst: number,
    cwdsCount: number,
    heldDone = 0,
  ): void {
    const events = this.events;
    if (events === null || this.done === null) return;
    // Sessions done with nothing to say (searched, no match, nothing new in their heads): which ones does not matter.
    // Nor, yet, which ones the engine holds: their lineages are read only if a row is linked to its family.
    this.finished += silentDone + heldDone;
    this.heldDone += heldDone;
    const span = (at: number): Buffer => bytes.subarray(spans[2 * at]!, spans[2 * at + 1]!);
    const cwds: string[] = [];
    const newCwd = (cwd: string | null): boolean => {
      if (cwd === null) return false;
      if (!this.reportedCwds.has(cwd)) {
        this.reportedCwds.add(cwd);
        cwds.push(cwd);
      }
      return true;
    };
    for (let at = cwdsFirst; at < cwdsFirst + cwdsCount; at++) newCwd(cwdInHead(span(at)));
    const packed = { table, stamps: stampTable, spans, bytes };
    const lineages: [number, SniffedLineage, SniffedStamps][] = [];
    const toCount: GrepItem[] = [];
    for (let row = 0; row < table.length; row += FIELDS) {
      const index = table[row + T_INDEX]!;
      const item = this.inFlightAt(index);
      if (item === undefined) continue;
      for (let at = table[row + T_PROBLEMS]!, end = at + table[row + T_NPROBLEMS]!; at < end; at++) {
        this.problem({ path: item.paths[problems[2 * at] as number]!, message: problems[2 * at + 1] as string });
      }
      if (!this.cwdFound.has(index)) {
        for (let at = table[row + T_CWDS]!, end = at + table[row + T_NCWDS]!; at < end; at++) {
          if (!newCwd(cwdInHead(span(at)))) continue;
          this.cwdFound.add(index);
          break;
        }
      }
      if (table[row + T_STATE] === JUDGE) {
        // Lines with hits, in file order: the first one its adapter does not reject is a match.
        const skip = this.skipLine[item.agent];
        let accepted = -1;
        for (let k = 0; k < table[row + T_NOPENINGS]! && accepted === -1; k++) {
          if (!skip?.(span(table[row + T_OPENINGS]! + k).toString('utf8'))) accepted = k;
        }
        this.native.judged(this.handle, table[row + T_TOKEN]!, accepted);
        continue;
      }
      this.landed(index);
      this.cwdFound.delete(index);
      this.finished++;
      const stampsAt = table[row + T_STAMPS]!;
      if (table[row + T_STATE] === MATCH && this.makeCounting !== null) {
        // Its count and snippet come from a worker, with its stamps and (asked again) its lineage: reported together,
        // so its row is known before every lineage was seen.
        toCount.push({ ...item, sniffCwd: false });
        continue;
      }
      const matchStamps = table[row + T_STATE] === MATCH ? stampsOf(stampTable, stampsAt, item.paths.length) : null;
      if (table[row + T_STATE] === MATCH) events.onMatch(index, { matches: 0, snippet: null }, matchStamps);
      if (item.sniffLineage) lineages.push([index, ...sniffedAt(packed, row, { agent: item.agent, count: item.paths.length }, matchStamps)]);
    }
    if (toCount.length > 0) this.countingPool().expect(Promise.resolve(toCount));
    if (cwds.length > 0 || lineages.length > 0 || heldDone > 0) this.expect(events.onBatch(cwds, lineages, heldDone));
    // Room was made for what waits (a bounded search): handed over once half the bound is free, in one call.
    if (this.running && this.backlog.length > 0 && this.handed - this.finished <= this.maxInFlight / 2) this.flush();
    this.check();
  }

  /** Sessions the engine finished so far (matching or not). */
  get searched(): number {
    return this.finished;
  }

  /**
   * The sessions the engine held since the last call (searched, no match: see `heldDone`), added to `into`: what it
   * gives back (those whose lineage JS reads) is returned. Nothing is asked of the engine when it holds none.
   */
  takeHeld(into: HeldSessions): [number, SniffedLineage, SniffedStamps][] {
    if (this.heldTaken === this.heldDone || this.native.held === undefined) return [];
    const [table, stamps, spans, bytes] = this.native.held(this.handle);
    this.heldTaken += table.length / FIELDS;
    return into.add({ table, stamps, spans, bytes }, (index) => this.heldSession(index));
  }

  /** A held session's agent and file count, and it is done (undefined: not one handed over and waited for). */
  private heldSession(index: number): TableSession | undefined {
    const item = this.inFlight.get(index);
    const list = item === undefined ? this.packedInFlight[index] : undefined;
    if (item === undefined && list === undefined) return undefined;
    this.landed(index);
    return item !== undefined ? { agent: item.agent, count: item.paths.length } : { agent: list!.agent, count: list!.counts?.[index - list!.first] ?? 1 };
  }

  private problem(problem: Problem): void {
    // A file the engine could not read, the counting workers cannot either: reported once.
    const key = `${problem.path}\0${problem.message}`;
    if (this.reportedProblems.has(key)) return;
    this.reportedProblems.add(key);
    this.events?.onProblem(problem);
  }

  private countingPool(): WorkerPool {
    if (this.counting !== null) return this.counting;
    const pool = this.makeCounting!();
    this.counting = pool;
    const events = this.events!;
    // Kept running until the engine is done: no more matches can come then.
    pool.expect(new Promise<GrepItem[]>((resolve) => (this.releaseCounting = () => resolve([]))));
    pool.run({ onMatch: events.onMatch, onBatch: events.onBatch, onProblem: (problem) => this.problem(problem) }).then(
      () => {
        this.countingSettled = true;
        this.check();
      },
      (error: unknown) => {
        this.countingSettled = true;
        this.failure ??= error;
        this.check();
      },
    );
    return pool;
  }

  private check(): void {
    if (!this.running || this.done === null) return;
    if (this.closed) {
      this.done();
      return;
    }
    if (this.failure !== undefined) {
      this.done(this.failure);
      return;
    }
    // Done once nothing more is being found, what was found is handed over, all of it was searched, and the matches
    // were counted.
    if (this.pending !== 0 || this.backlog.length !== 0 || this.packedBacklog.length !== 0 || this.finished !== this.handed) return;
    this.releaseCounting?.();
    this.releaseCounting = null;
    if (this.counting === null || this.countingSettled) this.done();
  }
}
