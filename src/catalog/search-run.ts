// One query's search in progress: the prefilter's walk over the catalog in tiers, then fuse.js's ranking in slices.
import Fuse, { type Expression, type FuseIndex, type FuseResult, type IFuseOptions } from 'fuse.js';
import { fold, type FuseRecord, type MatchRanges, type SearchDoc, type SearchField, type SearchHit } from './search-doc.js';
import { fuseKeeps } from './search-membership.js';
import type { SearchHaystack } from './search-haystack.js';
import { matchTier, NEVER, UNSURE, type TermFacts } from './search-prefilter.js';
import { wordOf } from './search-word.js';
import { ListView, type ReadonlyList } from '../core/list-view.js';
import { toExpression, type ParsedQuery, type QueryTerm } from './search-query.js';

/** Candidates fuse.js ranks before `begin` returns: more than a screen of rows. */
export const FIRST_PAGE = 150;

interface RunParts {
  readonly query: ParsedQuery;
  /** Slots to consider, in catalog order. */
  readonly pool: ArrayLike<number>;
  readonly docs: readonly (SearchDoc | null)[];
  readonly recordOf: (slot: number) => FuseRecord;
  /** fuse.js reads the short fields only (a one- or two-letter query over a big pool). */
  readonly broad: boolean;
  /** The clock the time budgets are measured on. */
  readonly now: () => number;
  readonly options: IFuseOptions<SearchDoc>;
  readonly keys: FuseIndex<SearchDoc>['keys'];
  readonly onScanned: (candidates: Int32Array) => void;
  /** The catalog's text in one string: a pool of a good part of the catalog is swept once per word (see sweep). */
  readonly haystack?: SearchHaystack;
}

/** One query's search in progress (see SearchIndex.begin). */
export class SearchRun {
  private ranked: FuseResult<SearchDoc>[] = [];
  /**
   * Everything that passed the prefilter, in catalog order (the first `passedCount`), and how many sure candidates
   * each tier holds (a sure candidate's tier is in its flags). Typed arrays of the pool's size, not arrays grown by
   * push: a one-letter query passes 86k slots at 100k sessions, and its growing arrays (~3 MB a keystroke) outlived
   * the young generation, so the first keys of a query brought on the old generation's full collections.
   */
  private readonly passed: Int32Array;
  private passedCount = 0;
  private readonly tierCounts = [0, 0, 0, 0];
  private scanned = 0;
  /** What the haystack says of the query's words (see sweep); undefined until the walk starts. */
  private swept: Map<QueryTerm, TermFacts> | undefined;
  /**
   * Per slot: RANKED_FIRST (in the first page), SCORED (handed to fuse.js), SURE (a match) and its tier (TIER_SHIFT).
   * Typed flags, not sets: 80k lookups a keystroke.
   */
  private readonly flags: Uint8Array;
  private rankedFirstCount = 0;
  /** After the walk: the candidates not ranked yet, in tier order. */
  private queue: Int32Array | null = null;
  private queued = 0;
  private expression: Expression | null = null;
  /** Candidates that match: those fuse.js keeps whatever it scores (see matchTier), and the unsure ones it keeps (see fuseKeeps). */
  private sure = 0;
  private readonly hitOf = new WeakMap<FuseResult<SearchDoc>, SearchHit>();

  constructor(
    readonly query: string,
    private readonly parts: RunParts,
  ) {
    this.flags = new Uint8Array(parts.docs.length);
    this.passed = new Int32Array(parts.pool.length);
  }

  /** Walk until a page of title matches is found (or briefly), and rank a first page. */
  start(): void {
    if (this.parts.query.groups.length === 0 && this.parts.query.excluded.length === 0) return;
    this.scan(this.parts.now() + FIRST_SCAN_MS, FIRST_PAGE);
    const first = this.inTierOrder(FIRST_PAGE, 0);
    for (const slot of first) this.flags[slot]! |= RANKED_FIRST;
    this.rankedFirstCount = first.length;
    this.rank(first);
  }

  get done(): boolean {
    return this.scanned >= this.parts.pool.length && this.remaining().length <= this.queued;
  }

  /** Walk and rank more for about `budgetMs`; true when every candidate has been scored. */
  step(budgetMs: number): boolean {
    const until = this.parts.now() + budgetMs;
    while (!this.done && this.parts.now() < until) {
      if (this.scanned < this.parts.pool.length) {
        this.scan(until, Number.POSITIVE_INFINITY);
      } else {
        this.rank(this.remaining().subarray(this.queued, this.queued + STEP_SLICE));
        this.queued += STEP_SLICE;
      }
    }
    return this.done;
  }

  /**
   * How many sessions match, once known: when the walk is over (every candidate's membership is decided as it is
   * walked, long before fuse.js has ranked them). Null until then.
   */
  get count(): number | null {
    return this.scanned < this.parts.pool.length ? null : this.sure;
  }

  /**
   * The sure candidates fuse.js has not scored yet, after the ranked hits, in tier and catalog order and without
   * match ranges: with hits() they are every match once `count` is known, so a list can show all of them (its
   * visible top is ranked: the first page is) before the ranking of the rest is over.
   */
  unrankedHits(): SearchHit[] {
    const { docs } = this.parts;
    return Array.from(this.inTierOrder(Number.POSITIVE_INFINITY, SCORED), (slot) => unrankedHit(docs[slot]!));
  }

  /**
   * Every match as the list shows it, once `count` is known: hits() then unrankedHits(), the same hits in the same
   * order, but the unranked ones made only when read (a list of 80k matches shows a screenful). Before the count is
   * known, hits() alone. The view is a snapshot: later ranking does not change it.
   */
  matches(): ReadonlyList<SearchHit> {
    const ranked = this.hits();
    if (this.count === null || this.done) return ranked;
    // The candidates not in the first page, in tier order, are ranked in that order (see step): the unranked ones
    // are the queue past what was handed to fuse.js.
    const queue = this.remaining();
    const from = Math.min(this.queued, queue.length);
    const { docs } = this.parts;
    return new ListView(ranked.length + queue.length - from, (i) => (i < ranked.length ? ranked[i]! : unrankedHit(docs[queue[from + i - ranked.length]!]!)));
  }

  /** Candidates not scored yet (those still to be walked count as one each). */
  get pending(): number {
    const unwalked = this.parts.pool.length - this.scanned;
    return unwalked + (this.queue ? Math.max(0, this.queue.length - this.queued) : this.passedCount - this.rankedFirstCount);
  }

  /** The hits ranked so far, best first (the same hit objects from call to call: a list re-renders only what moved). */
  hits(): SearchHit[] {
    return this.ranked.map((result) => {
      let hit = this.hitOf.get(result);
      if (hit === undefined) {
        hit = toHit(result);
        this.hitOf.set(result, hit);
      }
      return hit;
    });
  }

  private scan(until: number, titleTarget: number): void {
    const { pool, docs, query } = this.parts;
    let i = this.scanned;
    const { broad } = this.parts;
    const { passed, flags, tierCounts } = this;
    const swept = (this.swept ??= this.sweep());
    while (i < pool.length) {
      const slot = pool[i++]!;
      const doc = docs[slot]!;
      let tier = matchTier(doc, query, broad, slot, swept);
      if (tier >= NEVER) {
        passed[this.passedCount++] = slot;
      } else if (tier >= 0) {
        // An unsure candidate is decided now, as fuse.js would decide it: no scoring waits for the count.
        if (tier >= UNSURE) tier = fuseKeeps(doc, query, broad) ? tier - UNSURE : -1;
        if (tier >= 0) {
          this.sure++;
          tierCounts[tier]!++;
          flags[slot]! |= SURE | (tier << TIER_SHIFT);
        }
        passed[this.passedCount++] = slot;
      }
      if ((i & 255) === 0 && (tierCounts[0]! >= titleTarget || this.parts.now() >= until)) break;
    }
    this.scanned = i;
    if (i >= pool.length) this.parts.onScanned(passed.subarray(0, this.passedCount));
  }

  /**
   * What the walk knows of each plain word (fuzzy or `'exact`): where it is in every document of the pool, from one
   * sweep of the haystack per word, when the pool is a good part of the catalog (the first keys of a query: one
   * letter narrows nothing); a narrowed pool is cheaper asked document by document (foldedAt null).
   */
  private sweep(): Map<QueryTerm, TermFacts> {
    const { haystack, pool, docs, query } = this.parts;
    const sweeps = haystack !== undefined && pool.length * SWEEP_SHARE >= docs.length;
    const swept = new Map<QueryTerm, TermFacts>();
    for (const term of [...query.groups.flat(), ...query.excluded]) {
      if ((term.kind !== 'fuzzy' && term.kind !== 'include') || swept.has(term)) continue;
      // A word of one or two letters is in nearly every document, found near its start: the sweep would stop in
      // each document twice and gain nothing over asking it.
      const foldedAt = sweeps && term.text.length >= SWEEP_MIN_LENGTH ? haystack.sweep(term.text, docs, pool) : null;
      swept.set(term, { foldedAt, word: wordOf(term) });
    }
    return swept;
  }

  /** Only once the walk is over: the candidates the first page did not rank, in tier order. */
  private remaining(): Int32Array {
    return (this.queue ??= this.inTierOrder(Number.POSITIVE_INFINITY, RANKED_FIRST));
  }

  /** Up to `limit` of the sure candidates walked so far without any of the `without` flags: by tier, then in catalog order. */
  private inTierOrder(limit: number, without: number): Int32Array {
    const { flags, passed, passedCount, tierCounts } = this;
    let size = 0;
    for (const count of tierCounts) size += count;
    if (without === RANKED_FIRST) size -= this.rankedFirstCount;
    const out = new Int32Array(Math.min(limit, size));
    let n = 0;
    for (let tier = 0; tier < tierCounts.length && n < out.length; tier++) {
      if (tierCounts[tier] === 0) continue;
      const wanted = SURE | (tier << TIER_SHIFT);
      for (let i = 0; i < passedCount && n < out.length; i++) {
        const slot = passed[i]!;
        const flag = flags[slot]!;
        if ((flag & (SURE | TIER_MASK | without)) === wanted) out[n++] = slot;
      }
    }
    return n === out.length ? out : out.subarray(0, n);
  }

  /** Let fuse.js score these candidates and merge them into the ranking. */
  private rank(slots: ArrayLike<number>): void {
    if (slots.length === 0) return;
    const { docs, options, keys, recordOf, query } = this.parts;
    for (let i = 0; i < slots.length; i++) this.flags[slots[i]!]! |= SCORED;
    let results: FuseResult<SearchDoc>[];
    if (query.groups.length === 0) {
      // Only excluded words (`!wip`): everything the prefilter kept matches equally, newest first.
      results = Array.from(slots, (slot) => ({ item: docs[slot]!, refIndex: slot, score: 0, matches: [] }));
    } else {
      this.expression ??= toExpression(query);
      const index = Fuse.parseIndex<SearchDoc>({ keys, records: Array.from(slots, recordOf) });
      results = new Fuse(docs as SearchDoc[], options, index).search(this.expression);
      // A candidate is a match whatever fuse.js scored (its word is in a prompt fuse.js does not read):
      // ranked after every scored hit, showing the first prompt that has the word.
      if (results.length < slots.length) {
        const kept = new Set(results.map((result) => result.refIndex));
        for (let i = 0; i < slots.length; i++) if (!kept.has(slots[i]!)) results.push(exactPromptMatch(docs[slots[i]!]!, slots[i]!, query));
      }
      results.sort(byScore);
    }
    this.ranked = mergeSorted(this.ranked, results);
  }
}

const RANKED_FIRST = 1;
const SCORED = 2;
const SURE = 4;
/** A sure candidate's tier (0–3), in its flags' bits 3–4. */
const TIER_SHIFT = 3;
const TIER_MASK = 3 << TIER_SHIFT;

/** A document's hit before it is ranked, made once: a count of 80k matches hands over 80k of them per keystroke. */
function unrankedHit(doc: SearchDoc): SearchHit {
  return (doc.unranked ??= { key: doc.key, session: doc.session, score: 1 });
}

/** The score of a match fuse.js did not score (see exactPromptMatch): after every hit it scored (1 is its worst). */
const UNSCORED = 1;

/** A sure candidate fuse.js did not keep, as a result: its first prompt holding a word of the query, exactly. */
function exactPromptMatch(doc: SearchDoc, slot: number, query: ParsedQuery): FuseResult<SearchDoc> {
  const { prompts } = doc.session;
  const words = query.groups.flat().map((term) => term.text);
  for (let i = 0; i < prompts.length; i++) {
    const folded = fold(prompts[i]!);
    const ranges: [number, number][] = [];
    for (const word of words) {
      const at = folded.indexOf(word);
      if (at !== -1) ranges.push([at, at + word.length - 1]);
    }
    if (ranges.length > 0) return { item: doc, refIndex: slot, score: UNSCORED, matches: [{ key: 'prompts', refIndex: i, indices: ranges, value: folded }] };
  }
  return { item: doc, refIndex: slot, score: UNSCORED, matches: [] };
}

/** How long the first walk may take before the first page is ranked from what it found. */
const FIRST_SCAN_MS = 6;

const STEP_SLICE = 100;

/** A pool of at least 1/SWEEP_SHARE of the catalog is swept (see SearchRun.sweep), for its words of SWEEP_MIN_LENGTH letters or more. */
const SWEEP_SHARE = 4;
const SWEEP_MIN_LENGTH = 3;

/** fuse.js score first (0 is best), then catalog order (newest first). */
function byScore(a: FuseResult<SearchDoc>, b: FuseResult<SearchDoc>): number {
  return (a.score ?? 0) - (b.score ?? 0) || a.item.order - b.item.order;
}

function mergeSorted(a: readonly FuseResult<SearchDoc>[], b: readonly FuseResult<SearchDoc>[]): FuseResult<SearchDoc>[] {
  const out: FuseResult<SearchDoc>[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(byScore(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

function toHit(result: FuseResult<SearchDoc>): SearchHit {
  const hit: { -readonly [K in keyof SearchHit]: SearchHit[K] } = { key: result.item.key, session: result.item.session, score: result.score ?? 0 };
  // Each word of a query is its own leaf: one field can be matched by several (`request server` in one prompt).
  const prompts = new Map<number, { text: string; ranges: [number, number][] }>();
  for (const match of result.matches ?? []) {
    const ranges = match.indices as MatchRanges;
    const field = match.key as SearchField;
    if (field === 'prompts') {
      const which = match.refIndex ?? -1;
      const prompt = prompts.get(which);
      // The prompt as written (fuse.js saw it folded, of the same length).
      if (prompt) prompt.ranges.push(...ranges.map(([a, b]): [number, number] => [a, b]));
      else prompts.set(which, { text: result.item.session.prompts[which] ?? match.value ?? '', ranges: ranges.map(([a, b]): [number, number] => [a, b]) });
    } else if (field === 'title' || field === 'name' || field === 'cwd' || field === 'gitBranch' || field === 'id' || field === 'agent' || field === 'model') {
      hit[field] = hit[field] ? mergeRanges([...hit[field], ...ranges]) : ranges;
    }
  }
  let bestPrompt: { text: string; ranges: MatchRanges; length: number } | null = null;
  for (const { text, ranges } of prompts.values()) {
    const merged = mergeRanges(ranges);
    const length = matchedLength(merged);
    if (!bestPrompt || length > bestPrompt.length) bestPrompt = { text, ranges: merged, length };
  }
  if (bestPrompt) hit.prompt = { text: bestPrompt.text, ranges: bestPrompt.ranges };
  return hit;
}

/** Sorted, overlapping or touching ranges joined. */
function mergeRanges(ranges: MatchRanges): MatchRanges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

function matchedLength(ranges: MatchRanges): number {
  let total = 0;
  for (const [start, end] of ranges) total += end - start + 1;
  return total;
}
