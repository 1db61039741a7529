// The native full-text search engine (native/search.c, built by `npm ci` when a C compiler is there): the same
// per-session search as the JS workers (grep-worker.ts), on threads of its own. Here: loading it, and the pool
// that feeds it sessions and turns what it finds into what grep's JS pool reports.
import { createRequire } from 'node:module';
import { ADAPTERS } from '../core/formats/index.js';
import type { Problem } from '../core/formats/types.js';
import { compileTextSearch } from '../core/io/contains.js';
import { cwdInHead } from '../core/io/heads.js';
import type { Agent } from '../core/model.js';
import type { GrepItem, GrepStamp } from './grep-worker.js';

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
    },
    onBatch: (results: readonly NativeResult[], silentDone: number, cwds: readonly Buffer[]) => void,
  ): NativeHandle;
  push(handle: NativeHandle, items: readonly (readonly [index: number, paths: readonly string[], flags: number, lineageKey: Buffer | null])[]): void;
  judged(handle: NativeHandle, token: number, accepted: number): void;
  close(handle: NativeHandle, abort: boolean): void;
}

declare const nativeHandle: unique symbol;
type NativeHandle = { readonly [nativeHandle]: true };

/**
 * One session's outcome: index, state (1 match, 2 none, 3 lines to judge), its files' stamps (size, mtimeMs,
 * fingerprint length and hash per file; null when not asked for or a file could not be stamped), the lineage lines
 * of its first head (undefined when not asked for, null when no head was read), cwd cuts to decode in file order,
 * problems ([file, message]), and for a judgement: its token and the openings of the lines with hits.
 */
type NativeResult = readonly [
  index: number,
  state: 1 | 2 | 3,
  stamps: Float64Array | null,
  lineage: Buffer | null | undefined,
  cwds: readonly Buffer[],
  problems: readonly (readonly [file: number, message: string])[],
  token?: number,
  openings?: readonly Buffer[],
];

const FILTER = 1;
const SNIFF_CWD = 2;
const SNIFF_LINEAGE = 4;
const FIRST = 8;

let addon: NativeSearchAddon | null | undefined;

/**
 * The native engine, or null when it was not built (no C compiler at install) or does not load. Its place is
 * fixed relative to this module: two folders down from the package root, in src/, dist/ and dist/bundle/ alike.
 */
export function nativeSearchAddon(): NativeSearchAddon | null {
  if (addon === undefined) {
    try {
      addon = createRequire(import.meta.url)('../../native/build/Release/sessions_search.node') as NativeSearchAddon;
    } catch {
      addon = null;
    }
  }
  return addon;
}

/** What the pool needs to know of the search (GrepWorkerData's fields the native engine does). */
export interface NativePoolData {
  readonly text: string;
  readonly ignoreCase: boolean;
  readonly stamps: boolean;
}

/** What grep's pools report (see GrepPool in grep.ts). */
export interface PoolEvents {
  readonly onMatch: (index: number, found: { readonly matches: number; readonly snippet: null }, stamps: readonly GrepStamp[] | null) => void;
  readonly onBatch: (cwds: readonly string[], lineages: readonly (readonly [number, string | null, readonly GrepStamp[] | null])[]) => Promise<GrepItem[]>;
  readonly onProblem: (problem: Problem) => void;
}

function stampsOf(stamps: Float64Array | null, count: number): GrepStamp[] | null {
  if (stamps === null || stamps.length !== count * 4) return null;
  const out: GrepStamp[] = [];
  for (let at = 0; at < stamps.length; at += 4) {
    const [size, mtimeMs, length, hash] = [stamps[at]!, stamps[at + 1]!, stamps[at + 2]!, stamps[at + 3]!];
    // fingerprintOf's spelling (src/core/io/lines.ts).
    out.push([size, mtimeMs, `${length.toString(16)}:${hash.toString(16).padStart(8, '0')}`]);
  }
  return out;
}

/**
 * The native engine as grep's pool: sessions are handed over as soon as the walks find them (the engine's threads
 * take Claude's first, then the others newest first), and what it finds comes back in batches on this thread.
 * Only the search of `fileContainsSync` (no counts, no snippets: those take the JS workers).
 */
export class NativeGrepPool {
  private readonly handle: NativeHandle;
  /** Sessions handed over, by index (for their paths and agents); those the engine reports done are dropped. */
  private readonly inFlight = new Map<number, GrepItem>();
  private handed = 0;
  private finished = 0;
  /** Sessions whose cwd was decoded from a cut of theirs (the first one that decodes counts, as in the worker). */
  private readonly cwdFound = new Set<number>();
  private readonly reportedCwds = new Set<string>();
  private readonly skipLine: Partial<Record<Agent, (opening: string) => boolean>> = {};
  private readonly lineageKeys: Partial<Record<Agent, Buffer>> = {};
  private pending = 0;
  private running = false;
  private closed = false;
  private failure: unknown = undefined;
  private events: PoolEvents | null = null;
  private done: ((error?: unknown) => void) | null = null;
  private backlog: GrepItem[] = [];

  constructor(
    private readonly native: NativeSearchAddon,
    threads: number,
    data: NativePoolData,
  ) {
    for (const adapter of Object.values(ADAPTERS)) {
      if (adapter.isNonConversationLine) this.skipLine[adapter.agent] = adapter.isNonConversationLine.bind(adapter);
      if (adapter.lineageLineKey !== undefined) this.lineageKeys[adapter.agent] = Buffer.from(adapter.lineageLineKey);
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
      },
      (results, silentDone, cwds) => this.onResults(results, silentDone, cwds),
    );
  }

  /** Queue the items `work` resolves to when it resolves. */
  expect(work: Promise<readonly GrepItem[]>): void {
    this.pending++;
    work
      .then((items) => {
        if (this.closed) return;
        if (this.running) this.push(items);
        else this.backlog.push(...items);
      })
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.pending--;
        this.check();
      });
  }

  /** End the search now: what is queued is dropped, the threads stop after the chunk they are reading. */
  abort(): void {
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
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(String(error)));
      };
      this.running = true;
      const backlog = this.backlog;
      this.backlog = [];
      this.push(backlog);
      this.check();
    });
  }

  private push(items: readonly GrepItem[]): void {
    if (items.length === 0) return;
    for (const item of items) this.inFlight.set(item.index, item);
    this.handed += items.length;
    this.native.push(
      this.handle,
      items.map((item) => [
        item.index,
        item.paths,
        (this.skipLine[item.agent] ? FILTER : 0) | (item.sniffCwd ? SNIFF_CWD : 0) | (item.sniffLineage ? SNIFF_LINEAGE | FIRST : 0),
        item.sniffLineage ? (this.lineageKeys[item.agent] ?? null) : null,
      ]),
    );
  }

  private onResults(results: readonly NativeResult[], silentDone: number, cutCwds: readonly Buffer[]): void {
    const events = this.events;
    if (events === null || this.done === null) return;
    // Sessions done with nothing to say (searched, no match, nothing new in their heads): which ones does not matter.
    this.finished += silentDone;
    const cwds: string[] = [];
    const newCwd = (cwd: string | null): boolean => {
      if (cwd === null) return false;
      if (!this.reportedCwds.has(cwd)) {
        this.reportedCwds.add(cwd);
        cwds.push(cwd);
      }
      return true;
    };
    for (const cut of cutCwds) newCwd(cwdInHead(cut));
    const lineages: [number, string | null, GrepStamp[] | null][] = [];
    for (const [index, state, rawStamps, lineage, itemCwds, problems, token, openings] of results) {
      const item = this.inFlight.get(index);
      if (item === undefined) continue;
      for (const [file, message] of problems) events.onProblem({ path: item.paths[file]!, message });
      if (!this.cwdFound.has(index)) for (const cut of itemCwds) if (newCwd(cwdInHead(cut))) { this.cwdFound.add(index); break; }
      if (state === 3) {
        // Lines with hits, in file order: the first one its adapter does not reject is a match.
        const skip = this.skipLine[item.agent];
        const accepted = openings!.findIndex((opening) => !skip?.(opening.toString('utf8')));
        this.native.judged(this.handle, token!, accepted);
        continue;
      }
      this.inFlight.delete(index);
      this.cwdFound.delete(index);
      this.finished++;
      const stamps = stampsOf(rawStamps, item.paths.length);
      if (state === 1) events.onMatch(index, { matches: 0, snippet: null }, stamps);
      if (item.sniffLineage) lineages.push([index, lineage ? (ADAPTERS[item.agent].lineageInHead?.(lineage) ?? null) : null, stamps]);
    }
    if (cwds.length > 0 || lineages.length > 0) this.expect(events.onBatch(cwds, lineages));
    this.check();
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
    if (this.pending === 0 && this.finished === this.handed) this.done();
  }
}
