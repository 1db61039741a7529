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
  /** Every field folded (lower case, no diacritics) and joined: the cheap prefilter's haystack. */
  readonly folded: string;
  /** Position in the catalog's order (newest first): breaks score ties. */
  order: number;
}

const FUSE_OPTIONS: IFuseOptions<SearchDoc> = {
  keys: [
    { name: 'title', weight: 3 },
    { name: 'name', weight: 3 },
    { name: 'prompts', weight: 1.5 },
    { name: 'cwd', weight: 1 },
    { name: 'gitBranch', weight: 1 },
    { name: 'id', weight: 1 },
  ],
  includeMatches: true,
  includeScore: true,
  // Prompts are long: where in them a match sits must not matter.
  ignoreLocation: true,
  ignoreDiacritics: true,
  threshold: 0.3,
  minMatchCharLength: 1,
  shouldSort: false,
};

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
 * Fuzzy search over the catalog. fuse.js decides what matches and the ranking; a cheap subsequence test over
 * each session's folded text narrows the candidates first, and the candidates of a query are reused when the
 * next query extends it (typing one more letter only ever narrows), so a keystroke costs far less than a full
 * fuse.js pass. Updates are incremental: one changed session re-indexes one document.
 */
export class SearchIndex {
  private docs: (SearchDoc | null)[] = [];
  private records: (FuseIndex<SearchDoc>['records'][number] | null)[] = [];
  private readonly slots = new Map<string, number>();
  private readonly sessions = new Map<string, CatalogSession>();
  private keysTemplate = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], [] as SearchDoc[]);
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
        this.records[slot] = this.recordFor(doc, slot);
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
    }
    if (fresh.length > 0) {
      const start = this.docs.length;
      const built = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], fresh).records;
      fresh.forEach((doc, i) => {
        this.slots.set(doc.key, start + i);
        this.docs.push(doc);
        const record = built[i]!;
        record.i = start + i;
        this.records.push(record);
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
    const index = Fuse.parseIndex<SearchDoc>({
      keys: this.keysTemplate.keys,
      records: candidates.map((slot) => this.records[slot]!),
    });
    const fuse = new Fuse(this.docs as SearchDoc[], FUSE_OPTIONS, index);
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
      if (doc && tokens.every((token) => isSubsequence(token, doc.folded))) out.push(slot);
    }
    this.last = { query, candidates: out };
    return out;
  }

  private recordFor(doc: SearchDoc, slot: number): FuseIndex<SearchDoc>['records'][number] {
    const record = Fuse.createIndex(FUSE_OPTIONS.keys ?? [], [doc]).records[0]!;
    record.i = slot;
    return record;
  }

  private compact(): void {
    const docs = this.docs.filter((doc): doc is SearchDoc => doc !== null);
    const records = this.records.filter((record) => record !== null);
    this.slots.clear();
    docs.forEach((doc, i) => {
      this.slots.set(doc.key, i);
      records[i]!.i = i;
    });
    this.docs = docs;
    this.records = records;
  }
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
  const folded = fold([fields.title, fields.name, ...fields.prompts, fields.cwd, fields.gitBranch, fields.id].join('\n'));
  return { key, ...fields, folded, order };
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
