import { performance } from 'node:perf_hooks';
import Fuse, { type FuseIndex, type FuseResult, type IFuseOptions } from 'fuse.js';
import type { CatalogSession } from './scan.js';

/** A session's identity in the catalog: ids are unique per agent only. */
export function sessionKey(session: Pick<CatalogSession, 'agent' | 'id'>): string {
  return `${session.agent}:${session.id}`;
}

/** Inclusive [start, end] character ranges, as fuse.js reports them. */
export type MatchRanges = readonly (readonly [number, number])[];

export type SearchField = 'title' | 'name' | 'prompts' | 'cwd' | 'gitBranch' | 'id';

export interface SearchHit {
  readonly key: string;
  /** fuse.js score: 0 is a perfect match. */
  readonly score: number;
  /** Matched characters per field (for prompts: the best-matching prompt's text and ranges). */
  readonly title?: MatchRanges;
  readonly name?: MatchRanges;
  readonly cwd?: MatchRanges;
  readonly gitBranch?: MatchRanges;
  readonly id?: MatchRanges;
  readonly prompt?: { readonly text: string; readonly ranges: MatchRanges };
}

interface SearchDoc {
  readonly key: string;
  readonly title: string;
  readonly name: string;
  readonly prompts: readonly string[];
  readonly cwd: string;
  readonly gitBranch: string;
  readonly id: string;
  /** Every field folded (lower case, no diacritics) and joined: the prefilter's haystack for substrings. */
  readonly folded: string;
  /** The short fields (title, name, cwd, branch, id) folded and joined. */
  readonly foldedShort: string;
  /** Title and name folded and joined: a substring here is the strongest prefilter tier. */
  readonly foldedTitle: string;
  /** Each short field folded on its own: a subsequence must fall inside one field, as fuse.js matches. */
  readonly foldedFields: readonly string[];
  /** Position in the catalog's order (newest first): breaks score ties. */
  order: number;
}

const SHORT_KEYS = [
  { name: 'title', weight: 3 },
  { name: 'name', weight: 3 },
  { name: 'cwd', weight: 1 },
  { name: 'gitBranch', weight: 1 },
  { name: 'id', weight: 1 },
];

const FUSE_OPTIONS: IFuseOptions<SearchDoc> = {
  keys: [...SHORT_KEYS, { name: 'prompts', weight: 1.5 }],
  includeMatches: true,
  includeScore: true,
  // Prompts are long: where in them a match sits must not matter.
  ignoreLocation: true,
  ignoreDiacritics: true,
  threshold: 0.3,
  minMatchCharLength: 1,
  shouldSort: false,
};

/** For a query that still matches most of the catalog (one or two letters), fuse.js reads the short fields only. */
const SHORT_OPTIONS: IFuseOptions<SearchDoc> = { ...FUSE_OPTIONS, keys: SHORT_KEYS };

/**
 * Above this many candidates a query is too broad for reading every prompt of every candidate to be worth
 * its cost (prompts are the bulk of the text): fuse.js then ranks by the short fields.
 */
export const BROAD_QUERY_CANDIDATES = 1500;

type FuseRecord = FuseIndex<SearchDoc>['records'][number];

/** Lower case without diacritics, so the prefilter agrees with fuse.js's `ignoreDiacritics`. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** True when every character of `needle` appears in `haystack` in order (both folded). */
export function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (const char of needle) {
    at = haystack.indexOf(char, at);
    if (at < 0) return false;
    at += char.length;
  }
  return true;
}

/**
 * Fuzzy search over the catalog. fuse.js decides what matches and the ranking; a cheap prefilter narrows the
 * candidates first: every word of the query must be a substring of the session's text, or a subsequence of
 * its short fields (so `apihlth` still finds `api-health`). The candidates of a query are reused when the next
 * query extends it (typing one more letter only ever narrows), so a keystroke costs far less than a full
 * fuse.js pass. Updates are incremental: one changed session re-indexes one document.
 */
export class SearchIndex {
  private docs: (SearchDoc | null)[] = [];
  private records: (FuseRecord | null)[] = [];
  private shortRecords: (FuseRecord | null)[] = [];
  private readonly slots = new Map<string, number>();
  private readonly sessions = new Map<string, CatalogSession>();
  private readonly keysTemplate = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], [] as SearchDoc[]);
  private readonly shortKeysTemplate = Fuse.createIndex(SHORT_KEYS, [] as SearchDoc[]);
  private last: { readonly query: string; readonly candidates: readonly number[] } | null = null;

  constructor(sessions: readonly CatalogSession[] = []) {
    this.setSessions(sessions);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Replace the indexed set: only sessions whose object changed are re-indexed. */
  setSessions(sessions: readonly CatalogSession[]): void {
    const seen = new Set<string>();
    const fresh: SearchDoc[] = [];
    sessions.forEach((session, order) => {
      const key = sessionKey(session);
      seen.add(key);
      const slot = this.slots.get(key);
      if (slot !== undefined && this.sessions.get(key) === session) {
        this.docs[slot]!.order = order;
        return;
      }
      this.sessions.set(key, session);
      const doc = toDoc(session, key, order);
      if (slot !== undefined) {
        this.docs[slot] = doc;
        this.records[slot] = null;
        this.shortRecords[slot] = null;
      } else {
        fresh.push(doc);
      }
    });
    for (const [key, slot] of this.slots) {
      if (seen.has(key)) continue;
      this.slots.delete(key);
      this.sessions.delete(key);
      this.docs[slot] = null;
      this.records[slot] = null;
      this.shortRecords[slot] = null;
    }
    for (const doc of fresh) {
      this.slots.set(doc.key, this.docs.length);
      this.docs.push(doc);
      this.records.push(null);
      this.shortRecords.push(null);
    }
    if (this.docs.length > 2 * this.slots.size + 64) this.compact();
    this.last = null;
  }

  /** Sessions matching `query`, fully ranked by fuse.js, best first (ties: catalog order); an empty query matches nothing. */
  search(query: string): SearchHit[] {
    const run = this.begin(query);
    while (!run.step(Number.POSITIVE_INFINITY));
    return run.hits();
  }

  /**
   * Start a search: the prefilter finds the candidates and orders them by how strongly they match (title,
   * then other short fields, then prompts, then subsequences; newest first within each), and fuse.js ranks the
   * first page of them at once. `step` ranks the rest in slices, so no keystroke waits for the whole catalog.
   */
  begin(query: string): SearchRun {
    const trimmed = query.trim();
    const candidates = trimmed === '' ? [] : this.candidates(trimmed);
    const broad = candidates.length > BROAD_QUERY_CANDIDATES;
    const run = new SearchRun(trimmed, candidates, this.docs, (slot) => this.recordOf(slot, broad), broad ? SHORT_OPTIONS : FUSE_OPTIONS, (broad ? this.shortKeysTemplate : this.keysTemplate).keys);
    run.rank(FIRST_PAGE);
    return run;
  }

  private candidates(query: string): readonly number[] {
    const tokens = fold(query).split(/\s+/).filter(Boolean);
    const previous = this.last && query.startsWith(this.last.query) ? this.last.candidates : null;
    const pool = previous ?? [...this.slots.values()];
    const tiers: number[][] = [[], [], [], []];
    for (const slot of pool) {
      const doc = this.docs[slot];
      if (!doc) continue;
      const tier = matchTier(doc, tokens);
      if (tier >= 0) tiers[tier]!.push(slot);
    }
    const byOrder = (a: number, b: number): number => this.docs[a]!.order - this.docs[b]!.order;
    const out = tiers.flatMap((tier) => tier.sort(byOrder));
    this.last = { query, candidates: out };
    return out;
  }

  /**
   * fuse.js's record of a document (its fields split and normed), made the first time a search ranks it:
   * most documents of a big catalog are never ranked, and a record is several times the text it indexes.
   */
  private recordOf(slot: number, short: boolean): FuseRecord {
    const records = short ? this.shortRecords : this.records;
    let record = records[slot];
    if (!record) {
      record = recordFor(short ? SHORT_OPTIONS : FUSE_OPTIONS, this.docs[slot]!, slot);
      records[slot] = record;
    }
    return record;
  }

  private compact(): void {
    const docs = this.docs.filter((doc): doc is SearchDoc => doc !== null);
    this.slots.clear();
    docs.forEach((doc, i) => this.slots.set(doc.key, i));
    this.docs = docs;
    // Records carry their slot: let them be made again.
    this.records = docs.map(() => null);
    this.shortRecords = docs.map(() => null);
  }
}

/** Candidates fuse.js ranks before `begin` returns: more than a screen of rows. */
export const FIRST_PAGE = 150;

/**
 * How a document passes the prefilter, or -1: 0 every word in the title or name, 1 every word in a short field,
 * 2 every word somewhere (prompts included), 3 only as subsequences of single short fields.
 */
function matchTier(doc: SearchDoc, tokens: readonly string[]): number {
  let tier = 0;
  for (const token of tokens) {
    if (doc.foldedTitle.includes(token)) continue;
    if (doc.foldedShort.includes(token)) tier = Math.max(tier, 1);
    else if (doc.folded.includes(token)) tier = Math.max(tier, 2);
    else if (doc.foldedFields.some((field) => isSubsequence(token, field))) tier = 3;
    else return -1;
  }
  return tier;
}

/** One query's ranking in progress (see SearchIndex.begin). */
export class SearchRun {
  private ranked: FuseResult<SearchDoc>[] = [];
  private next = 0;

  constructor(
    readonly query: string,
    private readonly candidates: readonly number[],
    private readonly docs: readonly (SearchDoc | null)[],
    private readonly recordOf: (slot: number) => FuseRecord,
    private readonly options: IFuseOptions<SearchDoc>,
    private readonly keys: FuseIndex<SearchDoc>['keys'],
  ) {}

  get done(): boolean {
    return this.next >= this.candidates.length;
  }

  /** Let fuse.js score the next `count` candidates. */
  rank(count: number): void {
    const slice = this.candidates.slice(this.next, this.next + count);
    this.next += slice.length;
    if (slice.length === 0) return;
    const index = Fuse.parseIndex<SearchDoc>({ keys: this.keys, records: slice.map(this.recordOf) });
    const results = new Fuse(this.docs as SearchDoc[], this.options, index).search(this.query).sort(byScore);
    this.ranked = mergeSorted(this.ranked, results);
  }

  /** Rank more for about `budgetMs`; true when every candidate has been scored. */
  step(budgetMs: number): boolean {
    const until = performance.now() + budgetMs;
    while (!this.done && performance.now() < until) this.rank(STEP_SLICE);
    return this.done;
  }

  /** Candidates fuse.js has not scored yet. */
  get pending(): number {
    return this.candidates.length - this.next;
  }

  /** The hits ranked so far, best first. */
  hits(): SearchHit[] {
    return this.ranked.map(toHit);
  }
}

const STEP_SLICE = 100;

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

function recordFor(options: IFuseOptions<SearchDoc>, doc: SearchDoc, slot: number): FuseRecord {
  const record = Fuse.createIndex(options.keys ?? [], [doc]).records[0]!;
  record.i = slot;
  return record;
}

function toDoc(session: CatalogSession, key: string, order: number): SearchDoc {
  const fields = {
    title: session.title,
    name: session.name ?? '',
    prompts: session.prompts,
    cwd: session.cwd ?? '',
    gitBranch: session.gitBranch ?? '',
    id: session.id,
  };
  const foldedFields = [fields.title, fields.name, fields.cwd, fields.gitBranch, fields.id].map(fold);
  const foldedShort = foldedFields.join('\n');
  const foldedTitle = `${foldedFields[0]}\n${foldedFields[1]}`;
  const folded = `${foldedShort}\n${fold(fields.prompts.join('\n'))}`;
  return { key, ...fields, folded, foldedShort, foldedTitle, foldedFields, order };
}

function toHit(result: FuseResult<SearchDoc>): SearchHit {
  const hit: { -readonly [K in keyof SearchHit]: SearchHit[K] } = { key: result.item.key, score: result.score ?? 0 };
  let bestPrompt: { text: string; ranges: MatchRanges; length: number } | null = null;
  for (const match of result.matches ?? []) {
    const ranges = match.indices as MatchRanges;
    const field = match.key as SearchField;
    if (field === 'prompts') {
      const length = matchedLength(ranges);
      if (!bestPrompt || length > bestPrompt.length) bestPrompt = { text: match.value ?? '', ranges, length };
    } else if (field === 'title' || field === 'name' || field === 'cwd' || field === 'gitBranch' || field === 'id') {
      hit[field] = ranges;
    }
  }
  if (bestPrompt) hit.prompt = { text: bestPrompt.text, ranges: bestPrompt.ranges };
  return hit;
}

function matchedLength(ranges: MatchRanges): number {
  let total = 0;
  for (const [start, end] of ranges) total += end - start + 1;
  return total;
}
