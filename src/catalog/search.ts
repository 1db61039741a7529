import { performance } from 'node:perf_hooks';
import Fuse from 'fuse.js';
import type { CatalogSession } from './scan.js';
import { FUSE_OPTIONS, fold, recordFor, SharedFolds, SHORT_KEYS, SHORT_OPTIONS, toDoc, type FuseRecord, type SearchDoc, type SearchHit } from './search-doc.js';
import { narrows, parseQuery } from './search-query.js';
import { SearchHaystack } from './search-haystack.js';
import { SearchRun } from './search-run.js';
import { sessionKey } from '../core/model.js';

export { fold, RANKED_PROMPTS, type MatchRanges, type SearchField, type SearchHit } from './search-doc.js';
export { isCompactSubsequence, isSubsequence } from './search-prefilter.js';
export { FIRST_PAGE, SearchRun } from './search-run.js';

/**
 * Above this many candidates a query is too broad for reading every prompt of every candidate to be worth
 * its cost (prompts are the bulk of the text): fuse.js then ranks by the short fields.
 */
export const BROAD_QUERY_CANDIDATES = 1500;

/**
 * Fuzzy search over the catalog, fzf style: each word of the query matches on its own, in any field, with fzf's
 * extended syntax (search-query.ts). What matches is what fuse.js keeps, decided without it as the catalog is walked
 * (a prefilter, then fuse.js's own tests for the candidates it leaves unsure: search-membership.ts), so the count is
 * known at once; fuse.js ranks, the first page at once and the rest in slices. Every fuzzy word must be a substring
 * of the session's text, or a subsequence of one of its short fields (so `apihlth` still finds `api-health`);
 * excluded words (`!wip`) are decided by the prefilter alone. The
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
  private readonly foldedShort = new SharedFolds();
  private readonly keysTemplate = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], [] as SearchDoc[]);
  private readonly shortKeysTemplate = Fuse.createIndex(SHORT_KEYS, [] as SearchDoc[]);
  /** The last query's candidates, in catalog order: a query that extends it only narrows them. */
  private last: { readonly query: string; readonly candidates: Int32Array } | null = null;
  /** Every live slot in catalog order (newest first); rebuilt when the catalog changes, not per keystroke. */
  private ordered: number[] = [];
  /** Every document's text in one string (search-haystack.ts), and how many documents changed since it was built. */
  private haystack: SearchHaystack | null = null;
  private outdated = 0;

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
    // A new array, not this one changed: a search begun before, and the matches it handed out (see
    // SearchRun.matches), keep reading the documents they were made from.
    this.docs = this.docs.slice();
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
      this.outdated++;
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
      this.outdated++;
      this.records.delete(slot);
      this.shortRecords.delete(slot);
    }
    for (const doc of fresh) {
      this.slots.set(doc.key, this.docs.length);
      this.slotOf.set(doc.session, this.docs.length);
      this.docs.push(doc);
    }
    if (this.docs.length > 2 * this.slots.size + 64) this.compact();
    // What changed since the haystack was built is asked document by document (SearchHaystack.sweep): a new one is
    // built once that is a good part of the catalog, not for every appended turn.
    if (this.haystack === null || this.outdated > HAYSTACK_REBUILD_MIN + this.slots.size / HAYSTACK_REBUILD_SHARE) {
      this.haystack = this.slots.size === 0 ? null : new SearchHaystack(this.docs);
      this.outdated = 0;
      // Records read the documents' text, now the new haystack's: those made before would keep the old one.
      this.records.clear();
      this.shortRecords.clear();
    }
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
    const pool = empty ? [] : this.last && narrows(this.last.query, trimmed, fold) ? this.last.candidates : this.ordered;
    // One or two letters match most of a big catalog: rank those by the short fields, not every prompt.
    const broad = parsed.positiveLength <= 2 && pool.length > BROAD_QUERY_CANDIDATES;
    const run = new SearchRun(trimmed, {
      query: parsed,
      pool,
      docs: this.docs,
      recordOf: (slot) => this.recordOf(slot, broad),
      broad,
      now: this.now,
      haystack: this.haystack ?? undefined,
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
    // Slots moved: the haystack is built again (see setSessions).
    this.haystack = null;
    // Records carry their slot: let them be made again.
    this.records.clear();
    this.shortRecords.clear();
  }
}

/** The haystack is built again once more than HAYSTACK_REBUILD_MIN + 1/HAYSTACK_REBUILD_SHARE of the documents changed, came or went. */
const HAYSTACK_REBUILD_MIN = 256;
const HAYSTACK_REBUILD_SHARE = 8;

/** fuse.js records kept per kind (full and short keys). */
const KEPT_RECORDS = 4096;

