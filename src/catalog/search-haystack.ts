// Every document's folded text in one string, so that a word is looked for once in the catalog (one indexOf sweep,
// each occurrence mapped back to its document by offset) instead of once per document: at 100k sessions the first
// letters of a query each walked 80k documents, and a word absent from most of them read each one to its end.
import type { SearchDoc } from './search-doc.js';

/**
 * The documents of one moment, each as its `folded` text and a line break. A word of a query holds no whitespace (the
 * query is split on it), so no occurrence spans two documents. The documents' `folded` become slices of the haystack's
 * text (no second copy of the catalog's text). A document changed or added since (not the object it was built from)
 * is asked directly, so the answers follow the catalog (see SearchIndex.setSessions, which builds a new haystack
 * once enough has changed).
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
    const segmentOf: SegmentBuilder[] = [];
    docs.forEach((doc, slot) => {
      if (doc === null) return;
      const builder = WIDE.test(doc.folded) ? wide : narrow;
      this.starts[slot] = builder.add(slot, doc.folded);
      segmentOf[slot] = builder;
    });
    const texts = new Map<SegmentBuilder, Segment>([
      [narrow, narrow.done()],
      [wide, wide.done()],
    ]);
    this.segments = [...texts.values()];
    // Each document's text is now read from the haystack's (a slice shares its characters).
    docs.forEach((doc, slot) => {
      if (doc === null) return;
      const start = this.starts[slot]!;
      doc.folded = texts.get(segmentOf[slot]!)!.text.slice(start, start + doc.folded.length);
    });
  }

  /** Characters held. */
  get size(): number {
    return this.segments.reduce((sum, segment) => sum + segment.text.length, 0);
  }

  /** Where `token` (non-empty, no whitespace) first occurs in the `folded` of each document of `pool` (slots of `docs`), or -1. */
  sweep(token: string, docs: readonly (SearchDoc | null)[], pool: ArrayLike<number>): Int32Array {
    const foldedAt = new Int32Array(docs.length).fill(-1);
    const { starts, built } = this;
    for (const { text, order, ends } of this.segments) {
      let k = 0;
      for (let at = text.indexOf(token); at !== -1; at = text.indexOf(token, ends[k]!)) {
        while (ends[k]! <= at) k++;
        const slot = order[k]!;
        foldedAt[slot] = at - starts[slot]!;
      }
    }
    // What changed since the haystack was built: asked directly (and a slot it holds another document for is reset).
    for (let i = 0; i < pool.length; i++) {
      const slot = pool[i]!;
      const doc = docs[slot];
      if (doc && built[slot] !== doc) foldedAt[slot] = doc.folded.indexOf(token);
    }
    return foldedAt;
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
  add(slot: number, folded: string): number {
    const start = this.length;
    this.length += folded.length + 1;
    this.parts.push(folded, '\n');
    this.order.push(slot);
    this.ends.push(this.length);
    return start;
  }

  done(): Segment {
    return { text: this.parts.join(''), order: Int32Array.from(this.order), ends: Int32Array.from(this.ends) };
  }
}
