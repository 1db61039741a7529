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
  /** The short fields (title, name, cwd, branch, id) folded and joined: the haystack for subsequences. */
  readonly foldedShort: string;
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
        this.records[slot] = recordFor(FUSE_OPTIONS, doc, slot);
        this.shortRecords[slot] = recordFor(SHORT_OPTIONS, doc, slot);
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
    if (fresh.length > 0) {
      const start = this.docs.length;
      const built = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], fresh).records;
      const builtShort = Fuse.createIndex(SHORT_KEYS, fresh).records;
      fresh.forEach((doc, i) => {
        this.slots.set(doc.key, start + i);
        this.docs.push(doc);
        built[i]!.i = start + i;
        builtShort[i]!.i = start + i;
        this.records.push(built[i]!);
        this.shortRecords.push(builtShort[i]!);
      });
    }
    if (this.docs.length > 2 * this.slots.size + 64) this.compact();
    this.last = null;
  }

  /** Sessions matching `query`, best first (ties: catalog order); an empty query matches nothing. */
  search(query: string): SearchHit[] {
    const trimmed = query.trim();
    if (trimmed === '') return [];
    const candidates = this.candidates(trimmed);
    if (candidates.length === 0) return [];
    const broad = candidates.length > BROAD_QUERY_CANDIDATES;
    const records = broad ? this.shortRecords : this.records;
    const index = Fuse.parseIndex<SearchDoc>({
      keys: (broad ? this.shortKeysTemplate : this.keysTemplate).keys,
      records: candidates.map((slot) => records[slot]!),
    });
    const fuse = new Fuse(this.docs as SearchDoc[], broad ? SHORT_OPTIONS : FUSE_OPTIONS, index);
    const results = fuse.search(trimmed);
    results.sort((a, b) => (a.score ?? 0) - (b.score ?? 0) || a.item.order - b.item.order);
    return results.map(toHit);
  }

  private candidates(query: string): readonly number[] {
    const tokens = fold(query).split(/\s+/).filter(Boolean);
    const previous = this.last && query.startsWith(this.last.query) ? this.last.candidates : null;
    const pool = previous ?? [...this.slots.values()];
    const out: number[] = [];
    for (const slot of pool) {
      const doc = this.docs[slot];
      if (doc && tokens.every((token) => doc.folded.includes(token) || isSubsequence(token, doc.foldedShort))) out.push(slot);
    }
    this.last = { query, candidates: out };
    return out;
  }


  private compact(): void {
    const docs = this.docs.filter((doc): doc is SearchDoc => doc !== null);
    const records = this.records.filter((record) => record !== null);
    const shortRecords = this.shortRecords.filter((record) => record !== null);
    this.slots.clear();
    docs.forEach((doc, i) => {
      this.slots.set(doc.key, i);
      records[i]!.i = i;
      shortRecords[i]!.i = i;
    });
    this.docs = docs;
    this.records = records;
    this.shortRecords = shortRecords;
  }
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
  const foldedShort = fold([fields.title, fields.name, fields.cwd, fields.gitBranch, fields.id].join('\n'));
  const folded = `${foldedShort}\n${fold(fields.prompts.join('\n'))}`;
  return { key, ...fields, folded, foldedShort, order };
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
