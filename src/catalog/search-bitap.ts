// fuse.js's tests of one field for one word of a query (its extended search), as yes or no: for a fuzzy word, its
// own bitap recurrence, asked only "is there a match" (no score, no match ranges).
import type { QueryTerm } from './search-query.js';

/** fuse.js's threshold (FUSE_OPTIONS): a fuzzy word matches with errors / length ≤ this. */
const THRESHOLD = 0.3;
/** fuse.js's bitap reads a pattern in chunks of at most this many characters. */
const CHUNK = 32;

const tests = new WeakMap<QueryTerm, (text: string) => boolean>();

/** fuse.js's extended-search matcher of a term (search-query.ts's fusePattern), as a test of one field. */
export function fuseTest(term: QueryTerm): (text: string) => boolean {
  let test = tests.get(term);
  if (test === undefined) {
    const { text: pattern } = term;
    switch (term.kind) {
      case 'include':
        test = (text) => text.includes(pattern);
        break;
      case 'prefix':
        test = (text) => text.startsWith(pattern);
        break;
      case 'suffix':
        test = (text) => text.endsWith(pattern);
        break;
      case 'equal':
        test = (text) => text === pattern;
        break;
      case 'fuzzy':
        test = fuzzyTest(pattern);
        break;
    }
    tests.set(term, test);
  }
  return test;
}

/**
 * fuse.js's BitapSearch.searchIn as a yes/no (ignoreLocation, threshold 0.3): the field is the pattern, or one of
 * the pattern's chunks of 32 characters (the last one ending at the pattern's end) matches it.
 */
export function fuzzyTest(pattern: string): (text: string) => boolean {
  const chunks: Chunk[] = [];
  if (pattern.length > CHUNK) {
    const remainder = pattern.length % CHUNK;
    for (let at = 0; at < pattern.length - remainder; at += CHUNK) chunks.push(chunkOf(pattern.slice(at, at + CHUNK)));
    if (remainder) chunks.push(chunkOf(pattern.slice(pattern.length - CHUNK)));
  } else if (pattern.length > 0) {
    chunks.push(chunkOf(pattern));
  }
  return (text) => text === pattern || chunks.some((chunk) => chunkMatches(chunk, text));
}

interface Chunk {
  readonly pattern: string;
  /** Each character's bits: bit (length − 1 − i) for the pattern's character i (createPatternAlphabet). */
  readonly alphabet: ReadonlyMap<string, number>;
  /** The same for the character codes below 256, read by code (a Map look-up per character of every text was most of a pass). */
  readonly low: Int32Array;
  /** The most errors fuse.js accepts: the largest e with e / length ≤ the threshold. */
  readonly errors: number;
  /**
   * errors + 1 pieces of the pattern, end to end: a text within that many edits of the pattern holds one of them
   * unchanged (an edit changes one piece at most), so a text with none is no match and needs no bitap pass.
   */
  readonly pieces: readonly string[];
}

/** The most errors fuse.js accepts in a chunk of this length: the largest e with e / length ≤ the threshold. */
function errorsWithin(length: number): number {
  let errors = 0;
  while (errors + 1 < length && (errors + 1) / length <= THRESHOLD) errors++;
  return errors;
}

/** The most errors a fuzzy word of this length may match with, or null past one chunk (each chunk is tested on its own). */
export function fuzzyErrors(length: number): number | null {
  return length > CHUNK ? null : errorsWithin(length);
}

function chunkOf(pattern: string): Chunk {
  const alphabet = new Map<string, number>();
  const low = new Int32Array(256);
  const length = pattern.length;
  for (let i = 0; i < length; i++) {
    const char = pattern.charAt(i);
    alphabet.set(char, (alphabet.get(char) ?? 0) | (1 << (length - i - 1)));
  }
  for (const [char, bits] of alphabet) if (char.charCodeAt(0) < 256) low[char.charCodeAt(0)] = bits;
  const errors = errorsWithin(length);
  const pieces: string[] = [];
  for (let k = 0; k <= errors; k++) pieces.push(pattern.slice(Math.floor((k * length) / (errors + 1)), Math.floor(((k + 1) * length) / (errors + 1))));
  return { pattern, alphabet, low, errors, pieces };
}

/** Row registers of the bitap pass (one per error count), reused from call to call. */
let rows = new Int32Array(16);
let next = new Int32Array(16);

/**
 * Whether fuse.js's bitap `search` (fuse.js/src/search/bitap/search.ts, location ignored) finds the chunk in `text`
 * with at most `errors` errors. A match is at most length + errors characters of the text with one of the pieces
 * among them unchanged, and bitap finds one in a text exactly when one is within that many edits of a part of it:
 * in a long text, only the text around each occurrence of a piece is read (prompts hold the pieces of a short word
 * now and then, not everywhere).
 */
function chunkMatches(chunk: Chunk, text: string): boolean {
  const { pattern, errors, pieces } = chunk;
  if (text.includes(pattern)) return true;
  if (errors === 0) return false;
  const reach = pattern.length + errors;
  if (text.length <= reach * WHOLE_TEXT_REACHES) return pieces.some((piece) => text.includes(piece)) && bitap(chunk, text, 0, text.length);
  for (const piece of pieces) {
    // Windows of one piece's occurrences, joined where they overlap.
    let from = -1;
    let to = -1;
    for (let at = text.indexOf(piece); at !== -1; at = text.indexOf(piece, at + 1)) {
      const start = Math.max(0, at + piece.length - reach);
      if (from !== -1 && start > to) {
        if (bitap(chunk, text, from, to)) return true;
        from = -1;
      }
      if (from === -1) from = start;
      to = Math.min(text.length, at + reach);
    }
    if (from !== -1 && bitap(chunk, text, from, to)) return true;
  }
  return false;
}

/** A text up to this many times a match's longest is read whole (one bitap pass), not around its pieces. */
const WHOLE_TEXT_REACHES = 4;

/**
 * fuse.js's bitap over `text`'s characters from `from` to `to`, as a text of its own: its recurrence, column by column
 * from the end (as it scans), every error row at once, stopping at the first match; the same columns (the text and
 * `length` more past its end) and starting state.
 */
function bitap(chunk: Chunk, text: string, from: number, to: number): boolean {
  const { pattern, alphabet, low, errors } = chunk;
  const length = pattern.length;
  const mask = 1 << (length - 1);
  if (rows.length <= errors) {
    rows = new Int32Array(errors + 1);
    next = new Int32Array(errors + 1);
  }
  // Column finish + 1: fuse.js's bitArr[finish + 1] = (1 << i) - 1 for row i.
  for (let i = 0; i <= errors; i++) rows[i] = (1 << i) - 1;
  for (let j = to + length; j > from; j--) {
    const code = j - 1 < to ? text.charCodeAt(j - 1) : -1;
    const char = code < 0 ? 0 : code < 256 ? low[code]! : (alphabet.get(text.charAt(j - 1)) ?? 0);
    let value = ((rows[0]! << 1) | 1) & char;
    next[0] = value;
    if (value & mask) return true;
    for (let i = 1; i <= errors; i++) {
      value = (((rows[i]! << 1) | 1) & char) | (((rows[i - 1]! | next[i - 1]!) << 1) | 1 | rows[i - 1]!);
      next[i] = value;
      if (value & mask) return true;
    }
    const swap = rows;
    rows = next;
    next = swap;
  }
  return false;
}
