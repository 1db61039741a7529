import { performance } from 'node:perf_hooks';
import Fuse, { type Expression, type FuseIndex, type FuseResult, type IFuseOptions } from 'fuse.js';
import type { CatalogSession } from './scan.js';
import { narrows, parseQuery, toExpression, type ParsedQuery, type QueryTerm } from './search-query.js';
import { sessionKey } from '../core/model.js';

/** Inclusive [start, end] character ranges, as fuse.js reports them. */
export type MatchRanges = readonly (readonly [number, number])[];

export type SearchField = 'title' | 'name' | 'prompts' | 'cwd' | 'gitBranch' | 'id';

export interface SearchHit {
  readonly key: string;
  /** The session object the index holds for the key (the catalog's, as of the index's last setSessions). */
  readonly session?: CatalogSession;
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
  /** fuse.js reads the fields from here (see FIELD_KEYS): the document holds no copies of them. */
  readonly session: CatalogSession;
  /**
   * The title (unless it is the first prompt) and the prompts, folded (lower case, no diacritics) and joined
   * by '\n': the prefilter's haystack for substrings. One copy of the long text per session, nothing more.
   */
  readonly folded: string;
  /** Where the title ends in `folded` (a first occurrence before it is a title match). */
  readonly titleEnd: number;
  /** Where the prompts start in `folded` (0 when the title is the first prompt). */
  readonly promptsStart: number;
  /** The short fields folded: shared between sessions (cwds and branches repeat), or the field itself when folding changes nothing. */
  readonly name: string;
  readonly cwd: string;
  readonly gitBranch: string;
  readonly id: string;
  /** Position in the catalog's order (newest first): breaks score ties. */
  order: number;
  /** Its hit while not ranked yet (see unrankedHit). */
  unranked?: SearchHit;
  /** The last setSessions that saw this session. */
  generation: number;
}

/**
 * A fuse.js key read from the document, folded (its name is what a match reports). fuse.js gets the text folded
 * once, when a record is made, instead of lowering and stripping every field for every word of every search;
 * match positions are the same (folding keeps a text's length where fuse.js's own normalising does).
 */
function fuseKey(name: SearchField, weight: number, get: (doc: SearchDoc) => string | readonly string[]) {
  return { name, weight, getFn: get };
}

const SHORT_KEYS = [
  fuseKey('title', 3, (doc) => doc.folded.slice(0, doc.titleEnd)),
  fuseKey('name', 3, (doc) => doc.name),
  fuseKey('cwd', 1, (doc) => doc.cwd),
  fuseKey('gitBranch', 1, (doc) => doc.gitBranch),
  fuseKey('id', 1, (doc) => doc.id),
];

const FUSE_OPTIONS: IFuseOptions<SearchDoc> = {
  keys: [...SHORT_KEYS, fuseKey('prompts', 1.5, (doc) => rankedPrompts(doc.session.prompts).map(fold))],
  includeMatches: true,
  includeScore: true,
  // Prompts are long: where in them a match sits must not matter.
  ignoreLocation: true,
  // The fields and the words are folded already (see fuseKey).
  isCaseSensitive: true,
  ignoreDiacritics: false,
  // Each word of a query is a leaf of a logical query (see toExpression): `'exact`, `^prefix`, `suffix$`.
  useExtendedSearch: true,
  threshold: 0.3,
  minMatchCharLength: 1,
  shouldSort: false,
};

/**
 * fuse.js ranks by a session's first and last prompts only: a session of 30,000 turns would otherwise cost it
 * a bitap pass over every prompt for every word (hundreds of milliseconds for one candidate). A word found
 * exactly in a prompt it does not read still matches (see SearchRun.rank): it is ranked after fuse.js's hits.
 */
export const RANKED_PROMPTS = { first: 48, last: 16 };

function rankedPrompts(prompts: readonly string[]): readonly string[] {
  const { first, last } = RANKED_PROMPTS;
  return prompts.length <= first + last ? prompts : [...prompts.slice(0, first), ...prompts.slice(-last)];
}

/** For a query that still matches most of the catalog (one or two letters), fuse.js reads the short fields only. */
const SHORT_OPTIONS: IFuseOptions<SearchDoc> = { ...FUSE_OPTIONS, keys: SHORT_KEYS };

/**
 * Above this many candidates a query is too broad for reading every prompt of every candidate to be worth
 * its cost (prompts are the bulk of the text): fuse.js then ranks by the short fields.
 */
export const BROAD_QUERY_CANDIDATES = 1500;

type FuseRecord = FuseIndex<SearchDoc>['records'][number];

/** Lower case without diacritics: what the prefilter compares and what fuse.js reads (see fuseKey). */
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
 * True when `needle` is a subsequence of `haystack` within a window of at most twice its length (plus two):
 * `apihlth` in `api-health`, but not `rate` strewn over a long path — fuse.js would not match that either.
 */
export function isCompactSubsequence(needle: string, haystack: string): boolean {
  const maxSpan = needle.length * 2 + 2;
  const first = needle[0]!;
  for (let start = haystack.indexOf(first); start !== -1; start = haystack.indexOf(first, start + 1)) {
    let at = start + 1;
    let ok = true;
    for (let i = 1; i < needle.length; i++) {
      at = haystack.indexOf(needle[i]!, at);
      if (at === -1) return false; // no later start can succeed either
      if (at - start >= maxSpan) {
        ok = false;
        break;
      }
      at++;
    }
    if (ok) return true;
  }
  return false;
}

/**
 * Fuzzy search over the catalog, fzf style: each word of the query matches on its own, in any field, with fzf's
 * extended syntax (search-query.ts). fuse.js decides what matches and the ranking; a cheap prefilter narrows the
 * candidates first: every fuzzy word must be a substring of the session's text, or a subsequence of one of
 * its short fields (so `apihlth` still finds `api-health`); excluded words (`!wip`) are decided by it alone. The
 * candidates of a query are reused when the next query narrows it (typing one more letter of a word), so a
 * keystroke costs far less than a full fuse.js pass. Updates are incremental: one changed session re-indexes one
 * document.
 */
export class SearchIndex {
  private docs: (SearchDoc | null)[] = [];
  /** fuse.js records by slot, made when first ranked and kept for the most recent few thousand (see recordOf). */
  private readonly records = new Map<number, FuseRecord>();
  private readonly shortRecords = new Map<number, FuseRecord>();
  private readonly slots = new Map<string, number>();
  /** The slot of each indexed session object (a slot may have been given to a newer object since: check it). */
  private slotOf = new WeakMap<CatalogSession, number>();
  /** Bumped by each setSessions: documents not marked with the current one are gone from the catalog. */
  private generation = 0;
  /** Folded cwds and branches, shared by the sessions that have them. */
  private readonly foldedShort = new Map<string, string>();
  private readonly keysTemplate = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], [] as SearchDoc[]);
  private readonly shortKeysTemplate = Fuse.createIndex(SHORT_KEYS, [] as SearchDoc[]);
  /** The last query's candidates, in catalog order: a query that extends it only narrows them. */
  private last: { readonly query: string; readonly candidates: readonly number[] } | null = null;
  /** Every live slot in catalog order (newest first); rebuilt when the catalog changes, not per keystroke. */
  private ordered: number[] = [];

  /** `now` is the clock the time budgets of `begin` and `step` are measured on (milliseconds). */
  constructor(
    sessions: readonly CatalogSession[] = [],
    private readonly now: () => number = () => performance.now(),
  ) {
    this.setSessions(sessions);
  }

  get size(): number {
    return this.slots.size;
  }

  /**
   * Replace the indexed set: only sessions whose object changed are re-indexed. Runs on every catalog change
   * (a batch of refined turn counts at 100k sessions): an unchanged session is found by its object, so no key
   * string or set of keys is built for the whole catalog each time.
   */
  setSessions(sessions: readonly CatalogSession[]): void {
    const generation = ++this.generation;
    const fresh: SearchDoc[] = [];
    sessions.forEach((session, order) => {
      const known = this.slotOf.get(session);
      const knownDoc = known === undefined ? null : this.docs[known];
      if (knownDoc && knownDoc.session === session) {
        knownDoc.order = order;
        knownDoc.generation = generation;
        return;
      }
      const key = sessionKey(session);
      const slot = this.slots.get(key);
      const doc = toDoc(session, key, order, this.foldedShort);
      doc.generation = generation;
      if (slot !== undefined) {
        this.docs[slot] = doc;
        this.slotOf.set(session, slot);
        this.records.delete(slot);
        this.shortRecords.delete(slot);
      } else {
        fresh.push(doc);
      }
    });
    for (const [key, slot] of this.slots) {
      if (this.docs[slot]!.generation === generation) continue;
      this.slots.delete(key);
      this.docs[slot] = null;
      this.records.delete(slot);
      this.shortRecords.delete(slot);
    }
    for (const doc of fresh) {
      this.slots.set(doc.key, this.docs.length);
      this.slotOf.set(doc.session, this.docs.length);
      this.docs.push(doc);
    }
    if (this.docs.length > 2 * this.slots.size + 64) this.compact();
    this.ordered = [...this.slots.values()].sort((a, b) => this.docs[a]!.order - this.docs[b]!.order);
    this.last = null;
  }

  /** Sessions matching `query`, fully ranked by fuse.js, best first (ties: catalog order); an empty query matches nothing. */
  search(query: string): SearchHit[] {
    const run = this.begin(query);
    while (!run.step(Number.POSITIVE_INFINITY));
    return run.hits();
  }

  /**
   * Start a search (fzf's extended syntax: see parseQuery). The prefilter walks the catalog newest first and sorts what passes into tiers by how
   * strongly it matches (title, other short fields, prompts, compact subsequences); fuse.js ranks a first
   * page of the strongest at once (the walk stops early once it has a page of title matches, or after a few
   * milliseconds). `step` finishes the walk and ranks the rest in slices, so no keystroke waits for the
   * whole catalog, however big.
   */
  begin(query: string): SearchRun {
    const trimmed = query.trim();
    const parsed = parseQuery(trimmed, fold);
    const empty = parsed.groups.length === 0 && parsed.excluded.length === 0;
    const pool = empty ? [] : this.last && narrows(this.last.query, trimmed) ? this.last.candidates : this.ordered;
    // One or two letters match most of a big catalog: rank those by the short fields, not every prompt.
    const broad = parsed.positiveLength <= 2 && pool.length > BROAD_QUERY_CANDIDATES;
    const run = new SearchRun(trimmed, {
      query: parsed,
      pool,
      docs: this.docs,
      recordOf: (slot) => this.recordOf(slot, broad),
      broad,
      now: this.now,
      options: broad ? SHORT_OPTIONS : FUSE_OPTIONS,
      keys: (broad ? this.shortKeysTemplate : this.keysTemplate).keys,
      // The complete candidate list (catalog order) narrows the next, longer query.
      onScanned: (candidates) => {
        this.last = { query: trimmed, candidates };
      },
    });
    run.start();
    return run;
  }

  /**
   * fuse.js's record of a document (its fields split and normed), made when a search ranks it. Records are
   * several times the text they index: only the most recently used few thousand are kept (a first page is
   * then free on the next keystroke), so ranking a whole 100k catalog in the background does not keep
   * 100k of them alive.
   */
  private recordOf(slot: number, short: boolean): FuseRecord {
    const records = short ? this.shortRecords : this.records;
    let record = records.get(slot);
    if (record) {
      records.delete(slot); // re-inserted below: most recent last
    } else {
      record = recordFor(short ? SHORT_OPTIONS : FUSE_OPTIONS, this.docs[slot]!, slot);
      if (records.size >= KEPT_RECORDS) records.delete(records.keys().next().value!);
    }
    records.set(slot, record);
    return record;
  }

  private compact(): void {
    const docs = this.docs.filter((doc): doc is SearchDoc => doc !== null);
    this.slots.clear();
    this.slotOf = new WeakMap();
    docs.forEach((doc, i) => {
      this.slots.set(doc.key, i);
      this.slotOf.set(doc.session, i);
    });
    this.docs = docs;
    // Records carry their slot: let them be made again.
    this.records.clear();
    this.shortRecords.clear();
  }
}

/** fuse.js records kept per kind (full and short keys). */
const KEPT_RECORDS = 4096;

/** Candidates fuse.js ranks before `begin` returns: more than a screen of rows. */
export const FIRST_PAGE = 150;

/** Added to a tier when fuse.js may still reject the candidate (see matchTier). */
const UNSURE = 4;
/** Returned for a candidate fuse.js cannot keep: kept to narrow the next query, never ranked nor counted. */
const NEVER = 8;

/**
 * How a document passes the prefilter, or -1: the weakest of its groups' tiers (a group: the best of its words),
 * or -1 when a group does not match or an excluded word does. fuse.js has the last word on the positive words;
 * excluded words are decided here (fuse.js would let one field without the word pass).
 *
 * Plus UNSURE when fuse.js may still reject it, or NEVER when it cannot keep it. A word found exactly in a field
 * fuse.js reads is a match fuse.js always keeps (an exact substring scores 0; `'word`, `^word`, `word$`,
 * `^word$` are exact tests of the same folded fields); a compact subsequence or a prompt's line start or end
 * (fuse.js tests whole prompts) may be rejected. fuse.js allows errors/length ≤ 0.3 (threshold, no location),
 * so a word of three letters or fewer matches exactly or not at all: its subsequences never match, nor do
 * prompts when fuse.js reads the short fields only (`broad`). Sure candidates are counted at once, so the number
 * of matches is known as soon as the walk is over and the few unsure ones are scored.
 */
function matchTier(doc: SearchDoc, query: ParsedQuery, broad: boolean): number {
  for (const term of query.excluded) if (termTier(doc, term) >= 0) return -1;
  let tier = 0;
  let status = SURE_TERM;
  for (const group of query.groups) {
    let best = -1;
    let groupStatus = NEVER_TERM;
    for (const term of group) {
      const one = termTier(doc, term);
      if (one < 0) continue;
      if (best < 0 || one < best) best = one;
      let oneStatus = termStatus(one, term, broad);
      if (oneStatus === MAYBE_TERM && !broad && term.kind === 'fuzzy' && withinOneDeletion(doc, term.text)) oneStatus = SURE_TERM;
      groupStatus = Math.min(groupStatus, oneStatus);
      if (best === 0) break;
    }
    if (best < 0) return -1;
    tier = Math.max(tier, best);
    status = Math.max(status, groupStatus);
  }
  return status === SURE_TERM ? tier : status === MAYBE_TERM ? tier + UNSURE : tier + NEVER;
}

const SURE_TERM = 0;
const MAYBE_TERM = 1;
const NEVER_TERM = 2;

/** Whether fuse.js keeps a word matched at this tier (see matchTier). */
function termStatus(tier: number, term: QueryTerm, broad: boolean): number {
  if (tier <= 1) return SURE_TERM;
  const exactOnly = term.text.length <= 3;
  if (tier === 2) {
    if (broad) return exactOnly ? NEVER_TERM : MAYBE_TERM;
    return term.kind === 'fuzzy' || term.kind === 'include' ? SURE_TERM : MAYBE_TERM;
  }
  return exactOnly ? NEVER_TERM : MAYBE_TERM;
}

/**
 * Whether a fuzzy word of four letters or more, missing one of its letters, is found exactly in a field fuse.js
 * reads: one error in four or more letters is within fuse.js's threshold (errors / length ≤ 0.3, location
 * ignored), so fuse.js keeps the document whatever else it scores. An unsure candidate (a compact subsequence)
 * that passes is counted at once instead of waiting for fuse.js to score it: `plea` over 100k sessions had 67k
 * such candidates (`ple`, `pla` are everywhere), and its count took seconds. Only when fuse.js reads every
 * prompt (see RANKED_PROMPTS); patterns longer than fuse.js's 32-letter chunks are left to fuse.js.
 */
function withinOneDeletion(doc: SearchDoc, token: string): boolean {
  if (token.length < 4 || token.length > 32) return false;
  if (doc.session.prompts.length > RANKED_PROMPTS.first + RANKED_PROMPTS.last) return false;
  for (let i = 0; i < token.length; i++) {
    if (i > 0 && token[i] === token[i - 1]) continue; // the same variant as the one before
    const variant = token.slice(0, i) + token.slice(i + 1);
    if (doc.folded.includes(variant) || doc.name.includes(variant) || doc.cwd.includes(variant) || doc.gitBranch.includes(variant) || doc.id.includes(variant)) return true;
  }
  return false;
}

/**
 * How one word matches: 0 in the title or name, 1 in another short field, 2 in the prompts, 3 (fuzzy words
 * only) as a compact subsequence of a short field; -1 not at all.
 */
function termTier(doc: SearchDoc, term: QueryTerm): number {
  if (term.kind === 'fuzzy' || term.kind === 'include') {
    const token = term.text;
    // `folded` is the title then the prompts: where the first occurrence falls tells which.
    const at = doc.folded.indexOf(token);
    if (at !== -1 && at < doc.titleEnd) return 0;
    if (doc.name.includes(token)) return 0;
    if (doc.cwd.includes(token) || doc.gitBranch.includes(token) || doc.id.includes(token)) return 1;
    if (at !== -1) return 2;
    // Gaps in a one- or two-letter token find nearly anything: only longer tokens may be subsequences.
    if (term.kind === 'fuzzy' && token.length > 2 && shortFields(doc).some((field) => isCompactSubsequence(token, field))) return 3;
    return -1;
  }
  const short = (field: string): boolean => field !== '' && fieldMatches(term, field);
  if (titleMatches(doc, term) || short(doc.name)) return 0;
  if (short(doc.cwd) || short(doc.gitBranch) || short(doc.id)) return 1;
  return promptsMatch(doc, term) ? 2 : -1;
}

function fieldMatches(term: QueryTerm, field: string): boolean {
  switch (term.kind) {
    case 'prefix':
      return field.startsWith(term.text);
    case 'suffix':
      return field.endsWith(term.text);
    case 'equal':
      return field === term.text;
    default:
      return field.includes(term.text);
  }
}

/** The title is `folded`'s first `titleEnd` characters. */
function titleMatches(doc: SearchDoc, term: QueryTerm): boolean {
  const { folded, titleEnd } = doc;
  const { text } = term;
  if (text.length > titleEnd) return false;
  if (term.kind === 'prefix') return folded.startsWith(text);
  if (term.kind === 'suffix') return folded.startsWith(text, titleEnd - text.length);
  return titleEnd === text.length && folded.startsWith(text);
}

/**
 * A prompt starts or ends with the word (or is it): the prompts are joined by `\n` in `folded`. A prompt's own
 * line breaks count as starts and ends too: more candidates than fuse.js keeps, never fewer.
 */
function promptsMatch(doc: SearchDoc, term: QueryTerm): boolean {
  const { folded, promptsStart } = doc;
  if (promptsStart >= folded.length) return false;
  const starts = (): boolean => folded.startsWith(term.text, promptsStart) || folded.indexOf(term.lineStart, promptsStart) !== -1;
  const ends = (): boolean => folded.endsWith(term.text) || folded.indexOf(term.lineEnd, promptsStart) !== -1;
  if (term.kind === 'prefix') return starts();
  if (term.kind === 'suffix') return ends();
  return starts() && ends();
}

/** The short fields, folded, for the subsequence test (the title is cut from `folded` only when needed). */
function shortFields(doc: SearchDoc): string[] {
  return [doc.folded.slice(0, doc.titleEnd), doc.name, doc.cwd, doc.gitBranch, doc.id];
}

interface RunParts {
  readonly query: ParsedQuery;
  /** Slots to consider, in catalog order. */
  readonly pool: readonly number[];
  readonly docs: readonly (SearchDoc | null)[];
  readonly recordOf: (slot: number) => FuseRecord;
  /** fuse.js reads the short fields only (a one- or two-letter query over a big pool). */
  readonly broad: boolean;
  /** The clock the time budgets are measured on. */
  readonly now: () => number;
  readonly options: IFuseOptions<SearchDoc>;
  readonly keys: FuseIndex<SearchDoc>['keys'];
  readonly onScanned: (candidates: readonly number[]) => void;
}

/** One query's search in progress (see SearchIndex.begin). */
export class SearchRun {
  private ranked: FuseResult<SearchDoc>[] = [];
  private readonly tiers: number[][] = [[], [], [], []];
  /** Everything that passed the prefilter, in catalog order. */
  private readonly passed: number[] = [];
  private scanned = 0;
  private readonly rankedFirst = new Set<number>();
  /** After the walk: the candidates not ranked yet, in tier order (the unsure ones first: they decide the count). */
  private queue: number[] | null = null;
  private queued = 0;
  private expression: Expression | null = null;
  /** Candidates fuse.js will keep whatever it scores (see matchTier), and the unsure ones, by slot. */
  private sure = 0;
  private readonly unsure = new Set<number>();
  /** Unsure candidates scored so far, and how many of them fuse.js kept. */
  private unsureScored = 0;
  private unsureKept = 0;
  /** Every slot handed to fuse.js so far. */
  private readonly scored = new Set<number>();
  private readonly hitOf = new WeakMap<FuseResult<SearchDoc>, SearchHit>();

  constructor(
    readonly query: string,
    private readonly parts: RunParts,
  ) {}

  /** Walk until a page of title matches is found (or briefly), and rank a first page. */
  start(): void {
    if (this.parts.query.groups.length === 0 && this.parts.query.excluded.length === 0) return;
    this.scan(this.parts.now() + FIRST_SCAN_MS, FIRST_PAGE);
    const first = this.tiers.flat().slice(0, FIRST_PAGE);
    for (const slot of first) this.rankedFirst.add(slot);
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
        this.rank(this.remaining().slice(this.queued, this.queued + STEP_SLICE));
        this.queued += STEP_SLICE;
      }
    }
    return this.done;
  }

  /**
   * How many sessions match, once known: after the walk, when every unsure candidate has been scored (usually
   * long before the ranking of the rest is done). Null until then.
   */
  get count(): number | null {
    if (this.scanned < this.parts.pool.length || this.unsureScored < this.unsure.size) return null;
    return this.sure + this.unsureKept;
  }

  /**
   * The sure candidates fuse.js has not scored yet, after the ranked hits, in tier and catalog order and without
   * match ranges: with hits() they are every match once `count` is known, so a list can show all of them (its
   * visible top is ranked: the first page is) before the ranking of the rest is over.
   */
  unrankedHits(): SearchHit[] {
    const out: SearchHit[] = [];
    for (const tier of this.tiers) for (const slot of tier) if (!this.scored.has(slot) && !this.unsure.has(slot)) out.push(unrankedHit(this.parts.docs[slot]!));
    return out;
  }

  /** Candidates not scored yet (those still to be walked count as one each). */
  get pending(): number {
    const unwalked = this.parts.pool.length - this.scanned;
    return unwalked + (this.queue ? Math.max(0, this.queue.length - this.queued) : this.passed.length - this.rankedFirst.size);
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
    while (i < pool.length) {
      const slot = pool[i++]!;
      let tier = matchTier(docs[slot]!, query, broad);
      if (tier >= NEVER) {
        this.passed.push(slot);
      } else if (tier >= 0) {
        if (tier >= UNSURE) {
          tier -= UNSURE;
          this.unsure.add(slot);
        } else {
          this.sure++;
        }
        this.tiers[tier]!.push(slot);
        this.passed.push(slot);
      }
      if ((i & 255) === 0 && (this.tiers[0]!.length >= titleTarget || this.parts.now() >= until)) break;
    }
    this.scanned = i;
    if (i >= pool.length) this.parts.onScanned(this.passed);
  }

  /** Only once the walk is over: the candidates the first page did not rank, in tier order. */
  private remaining(): number[] {
    if (this.queue === null) {
      const left = this.tiers.flat().filter((slot) => !this.rankedFirst.has(slot));
      this.queue = [...left.filter((slot) => this.unsure.has(slot)), ...left.filter((slot) => !this.unsure.has(slot))];
    }
    return this.queue;
  }

  /** Let fuse.js score these candidates and merge them into the ranking. */
  private rank(slots: readonly number[]): void {
    if (slots.length === 0) return;
    const { docs, options, keys, recordOf, query } = this.parts;
    for (const slot of slots) {
      this.scored.add(slot);
      if (this.unsure.has(slot)) this.unsureScored++;
    }
    let results: FuseResult<SearchDoc>[];
    if (query.groups.length === 0) {
      // Only excluded words (`!wip`): everything the prefilter kept matches equally, newest first.
      results = slots.map((slot) => ({ item: docs[slot]!, refIndex: slot, score: 0, matches: [] }));
    } else {
      this.expression ??= toExpression(query);
      const index = Fuse.parseIndex<SearchDoc>({ keys, records: slots.map(recordOf) });
      results = new Fuse(docs as SearchDoc[], options, index).search(this.expression);
      // A sure candidate is a match whatever fuse.js scored (its word is in a prompt fuse.js does not read):
      // ranked after every scored hit, showing the first prompt that has the word.
      if (results.length < slots.length) {
        const kept = new Set(results.map((result) => result.refIndex));
        for (const slot of slots) if (!kept.has(slot) && !this.unsure.has(slot)) results.push(exactPromptMatch(docs[slot]!, slot, query));
      }
      results.sort(byScore);
    }
    for (const result of results) if (this.unsure.has(result.refIndex)) this.unsureKept++;
    this.ranked = mergeSorted(this.ranked, results);
  }
}

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

function toDoc(session: CatalogSession, key: string, order: number, shared: Map<string, string>): SearchDoc {
  const foldShared = (text: string | null): string => {
    if (!text) return '';
    let folded = shared.get(text);
    if (folded === undefined) {
      folded = foldOrSame(text);
      shared.set(text, folded);
    }
    return folded;
  };
  const { title, prompts } = session;
  // A title that is the first prompt (most are) is not stored twice: it is the start of the folded prompts.
  const titleIsPrompt = prompts.length > 0 && prompts[0] === title;
  const foldedPrompts = fold(prompts.join('\n'));
  const titleEnd = titleIsPrompt ? fold(title).length : 0;
  const folded = titleIsPrompt ? foldedPrompts : `${fold(title)}\n${foldedPrompts}`;
  return {
    key,
    session,
    folded,
    titleEnd: titleIsPrompt ? titleEnd : folded.length - foldedPrompts.length - 1,
    promptsStart: titleIsPrompt ? 0 : folded.length - foldedPrompts.length,
    name: session.name ? foldOrSame(session.name) : '',
    // Another machine's rows are found by its name too (`devbox`), as the row shows it: host:cwd.
    cwd: foldShared(session.host === undefined ? session.cwd : `${session.host}:${session.cwd ?? ''}`),
    gitBranch: foldShared(session.gitBranch),
    id: foldOrSame(session.id),
    order,
    generation: 0,
  };
}

/** `fold(text)`, or `text` itself when folding does not change it (no second copy of an id that is already lower case). */
function foldOrSame(text: string): string {
  const folded = fold(text);
  return folded === text ? text : folded;
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
    } else if (field === 'title' || field === 'name' || field === 'cwd' || field === 'gitBranch' || field === 'id') {
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
