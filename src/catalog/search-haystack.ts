// Every document's folded text in one string, so that a word is looked for once in the catalog (one indexOf sweep,
// each occurrence mapped back to its document by offset) instead of once per document: at 100k sessions the first
// letters of a query each walked 80k documents, and a word absent from most of them read each one to its end.
import type { SearchDoc } from './search-doc.js';
import type { TermFacts } from './search-prefilter.js';

/**
 * The documents of one moment, each as `folded \n name \n cwd \n gitBranch \n id \n agent \n model \n`. A word of a
 * query holds no whitespace (the query is split on it), so no occurrence spans two fields or two documents, and the
 * first occurrence in a document's fields is in the name when the name has the word (it comes first). A document
 * changed or added since (not the object it was built from) is asked directly, so the answers follow the catalog
 * (see SearchIndex.setSessions, which builds a new haystack once enough has changed).
 */
export class SearchHaystack {
  /**
   * Documents of Latin-1 text, then the others: one string of both would be two bytes a character throughout (a
   * tenth of the real catalogs' sessions have some other character: twice the memory for all of them).
   */
  private readonly segments: readonly Segment[];
  /** The document each slot held when built. */
  private readonly built: readonly (SearchDoc | null)[];
  /** Per slot: where its document starts in its segment's text (-1: none). */
  private readonly starts: Int32Array;

  constructor(docs: readonly (SearchDoc | null)[]) {
    this.built = docs;
    this.starts = new Int32Array(docs.length).fill(-1);
    const narrow = new SegmentBuilder();
    const wide = new SegmentBuilder();
    docs.forEach((doc, slot) => {
      if (doc === null) return;
      const part = `${doc.folded}\n${doc.name}\n${doc.cwd}\n${doc.gitBranch}\n${doc.id}\n${doc.agent}\n${doc.model}\n`;
      this.starts[slot] = (WIDE.test(part) ? wide : narrow).add(slot, part);
    });
    this.segments = [narrow.done(), wide.done()];
  }

  /** Characters held. */
  get size(): number {
    return this.segments.reduce((sum, segment) => sum + segment.text.length, 0);
  }

  /** Where `token` (non-empty, no whitespace) occurs in each document of `pool` (slots of `docs`). */
  sweep(token: string, docs: readonly (SearchDoc | null)[], pool: readonly number[]): TermFacts {
    const foldedAt = new Int32Array(docs.length).fill(-1);
    const short = new Int8Array(docs.length).fill(-1);
    const { starts, built } = this;
    for (const { text, order, ends } of this.segments) {
      let k = 0;
      for (let at = text.indexOf(token); at !== -1; ) {
        while (ends[k]! <= at) k++;
        const slot = order[k]!;
        const doc = built[slot]!;
        const start = starts[slot]!;
        const shortStart = start + doc.folded.length + 1;
        let next: number;
        if (at < shortStart) {
          foldedAt[slot] = at - start;
          next = shortStart;
        } else {
          short[slot] = at < shortStart + doc.name.length ? 0 : 1;
          next = ends[k]!;
        }
        at = text.indexOf(token, next);
      }
    }
    // What changed since the haystack was built: asked directly (and a slot it holds another document for is reset).
    for (const slot of pool) {
      const doc = docs[slot];
      if (!doc || built[slot] === doc) continue;
      foldedAt[slot] = doc.folded.indexOf(token);
      short[slot] = doc.name.includes(token) ? 0 : doc.cwd.includes(token) || doc.gitBranch.includes(token) || doc.id.includes(token) || doc.agent.includes(token) || doc.model.includes(token) ? 1 : -1;
    }
    return { foldedAt, short, shared: new Map() };
  }
}

/** A character past Latin-1 (or a control character below tab: rare, and only a matter of which segment holds it). */
const WIDE = /[^\t-\u00ff]/;

interface Segment {
  readonly text: string;
  /** The slots in text order, and where each one's text ends. */
  readonly order: Int32Array;
  readonly ends: Int32Array;
}

class SegmentBuilder {
  private readonly parts: string[] = [];
  private readonly order: number[] = [];
  private readonly ends: number[] = [];
  private length = 0;

  /** Where the part starts. */
  add(slot: number, part: string): number {
    const start = this.length;
    this.length += part.length;
    this.parts.push(part);
    this.order.push(slot);
    this.ends.push(this.length);
    return start;
  }

  done(): Segment {
    return { text: this.parts.join(''), order: Int32Array.from(this.order), ends: Int32Array.from(this.ends) };
  }
}
