import { closeSync, readSync, type Stats } from 'node:fs';
import { openRegularWithStatsSync } from './regular.js';

/** Bytes per read: a chunk that stays in the CPU cache between the read and the search is searched fastest. */
const CHUNK = 256 * 1024;

/**
 * Printable ASCII bytes from most to least common in real agent transcripts (byte counts over the Codex,
 * Claude Code and claw files of the shared corpus). Bytes not listed are rarer still.
 */
const COMMON_BYTES = ' etn\\soa"rilducp:m,_hfg-.y0)(12bkwv{}4x5/63S879;`*TC=E|[>]IAqR#P&!ODjLM<NU\'BW';

/**
 * Node's Buffer#indexOf switches from memchr on the pattern's first byte to Boyer-Moore-Horspool at 8 bytes;
 * on JSON transcripts memchr on a rare byte is several times faster, so probes are at most 7 bytes long.
 */
const MAX_PROBE = 7;

/**
 * The byte patterns to look for so that `text` is found in JSONL written by any of the agents: as is
 * (raw UTF-8), JSON-escaped (quotes, backslashes, newlines), and with non-ASCII as \uXXXX escapes.
 */
export function jsonNeedles(text: string): Buffer[] {
  return [...new Set(spellings(text))].filter((needle) => needle.length > 0).map((needle) => Buffer.from(needle, 'utf8'));
}

function spellings(text: string): [raw: string, escaped: string, asciiEscaped: string] {
  const escaped = JSON.stringify(text).slice(1, -1);
  return [text, escaped, escaped.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)];
}

/** One spelling of the text and where the probe sits inside it. */
interface Spelling {
  readonly bytes: Buffer;
  readonly probeOffset: number;
}

/** A short pattern searched with memchr speed; each hit is checked against the full spellings around it. */
interface Probe {
  readonly bytes: Buffer;
  readonly spellings: readonly Spelling[];
}

/** A compiled literal search: probes that together find every JSON spelling of the text. */
export interface TextSearch {
  readonly probes: readonly Probe[];
  /** The longest spelling: chunks overlap by one byte less, so a match across two reads is found. */
  readonly longest: number;
  readonly ignoreCase: boolean;
  /** Lower each chunk before searching it (ignoring case with probes that contain letters). */
  readonly foldChunks: boolean;
}

/** Lower-case the ASCII letters of a string (what `ignoreCase` folds, in the text and in the files). */
function lowerAsciiText(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** A byte's rarity in transcripts: higher is rarer. */
function rarity(byte: number): number {
  const index = COMMON_BYTES.indexOf(String.fromCharCode(byte));
  return byte < 0x20 || byte >= 0x7f || index === -1 ? COMMON_BYTES.length : index;
}

/** The best probe inside `bytes[from, to)`: the rarest first byte, then the longest. */
interface ProbeWindow {
  readonly start: number;
  readonly length: number;
  readonly score: number;
}

function bestWindow(bytes: Buffer, from: number, to: number): ProbeWindow | null {
  let best: ProbeWindow | null = null;
  const minLength = Math.min(3, to - from);
  for (let start = from; start + minLength <= to; start++) {
    const length = Math.min(MAX_PROBE, to - start);
    const score = rarity(bytes[start]!) * 16 + length;
    if (best === null || score > best.score) best = { start, length, score };
  }
  return best;
}

/** Windows of 3+ bytes beat shorter ones (fewer false hits to check), then the rarer first byte wins. */
function isBetterWindow(a: ProbeWindow, b: ProbeWindow | null): boolean {
  if (b === null) return true;
  const [aLong, bLong] = [Math.min(a.length, 3), Math.min(b.length, 3)];
  return aLong !== bLong ? aLong > bLong : a.score > b.score;
}

/** A JSON-safe character: spelled the same raw, JSON-escaped and \u-escaped. */
function isSafe(code: number): boolean {
  return code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c;
}

/**
 * Compile a literal search for `text` in JSONL files. When the text has a run of characters that every
 * spelling writes the same way (plain ASCII), one probe from that run finds all spellings in one pass;
 * otherwise each spelling gets its own probe.
 */
export function compileTextSearch(text: string, options: { readonly ignoreCase?: boolean } = {}): TextSearch {
  const ignoreCase = options.ignoreCase ?? false;
  const folded = ignoreCase ? lowerAsciiText(text) : text;
  const all = spellings(folded);
  const distinct = [...new Set(all)].filter((spelling) => spelling.length > 0);
  const longest = Math.max(0, ...distinct.map((spelling) => Buffer.byteLength(spelling)));
  if (distinct.length === 0) return { probes: [], longest, ignoreCase, foldChunks: false };

  // Ignoring case, a probe without letters finds every casing as is (hits are compared folded): no chunk is lowered.
  if (ignoreCase) {
    const letterFree = sharedWindow(folded, (code) => isSafe(code) && !isAsciiLetter(code));
    if (letterFree !== null && letterFree.length >= 3 && rarity(Buffer.from(folded)[letterFree.start]!) >= RARE_RANK) {
      return { probes: [sharedProbe(folded, all, letterFree)], longest, ignoreCase, foldChunks: false };
    }
  }
  const shared = sharedWindow(folded, isSafe);
  const perSpelling = distinct.map((spelling): Probe & { readonly rarity: number } => {
    const bytes = Buffer.from(spelling, 'utf8');
    const window = bestWindow(bytes, 0, bytes.length)!;
    return {
      bytes: Buffer.from(bytes.subarray(window.start, window.start + window.length)),
      spellings: [{ bytes, probeOffset: window.start }],
      rarity: rarity(bytes[window.start]!),
    };
  });
  // One pass with a shared probe, unless every spelling has a rarer byte of its own (e.g. a non-ASCII letter).
  if (shared !== null && rarity(Buffer.from(folded)[shared.start]!) >= Math.min(...perSpelling.map((probe) => probe.rarity))) {
    return { probes: [sharedProbe(folded, all, shared)], longest, ignoreCase, foldChunks: ignoreCase };
  }
  return { probes: perSpelling.map(({ bytes, spellings }): Probe => ({ bytes, spellings })), longest, ignoreCase, foldChunks: ignoreCase };
}

/** Bytes at least this far down COMMON_BYTES (rarer than about 1 % of transcript bytes) make a probe worth it. */
const RARE_RANK = COMMON_BYTES.indexOf('-');

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * The best window over the runs of `text` whose characters pass `keep` (safe characters, which every spelling
 * writes the same way), as a byte range of its UTF-8 bytes.
 */
function sharedWindow(text: string, keep: (code: number) => boolean): ProbeWindow | null {
  const raw = Buffer.from(text, 'utf8');
  let shared: ProbeWindow | null = null;
  let runStart = -1;
  for (let i = 0; i <= text.length; i++) {
    const kept = i < text.length && keep(text.charCodeAt(i));
    if (kept && runStart === -1) runStart = i;
    if (!kept && runStart !== -1) {
      // Safe characters are one UTF-8 byte each: the run's bytes start at the UTF-8 length of what precedes it.
      const byteStart = Buffer.byteLength(text.slice(0, runStart));
      const window = bestWindow(raw, byteStart, byteStart + (i - runStart));
      if (window && isBetterWindow(window, shared)) shared = window;
      runStart = -1;
    }
  }
  return shared;
}

/** One probe for every spelling: the window sits at a computable offset in each (escaping is per character). */
function sharedProbe(text: string, all: readonly string[], window: ProbeWindow): Probe {
  const raw = Buffer.from(text, 'utf8');
  const prefix = spellings(raw.subarray(0, window.start).toString('utf8'));
  const seen = new Set<string>();
  const withOffsets: Spelling[] = [];
  all.forEach((spelling, k) => {
    if (seen.has(spelling) || spelling.length === 0) return;
    seen.add(spelling);
    withOffsets.push({ bytes: Buffer.from(spelling, 'utf8'), probeOffset: Buffer.byteLength(prefix[k]!) });
  });
  return { bytes: Buffer.from(raw.subarray(window.start, window.start + window.length)), spellings: withOffsets };
}

/** True when `view` holds one of the search's spellings. */
export function bufferContains(search: TextSearch, view: Buffer): boolean {
  for (const probe of search.probes) {
    for (let hit = view.indexOf(probe.bytes); hit !== -1; hit = view.indexOf(probe.bytes, hit + 1)) {
      for (const spelling of probe.spellings) {
        const start = hit - spelling.probeOffset;
        const end = start + spelling.bytes.length;
        if (start < 0 || end > view.length) continue;
        if (search.ignoreCase && !search.foldChunks ? equalsFolded(view, start, spelling.bytes) : view.compare(spelling.bytes, 0, spelling.bytes.length, start, end) === 0) return true;
      }
    }
  }
  return false;
}

/** Where the first match starting at or after `from` begins in `view`, or -1. */
function firstMatch(search: TextSearch, view: Buffer, from: number): number {
  let best = -1;
  for (const probe of search.probes) {
    for (let hit = view.indexOf(probe.bytes, from); hit !== -1; hit = view.indexOf(probe.bytes, hit + 1)) {
      if (best !== -1 && hit >= best + search.longest) break;
      for (const spelling of probe.spellings) {
        const start = hit - spelling.probeOffset;
        const end = start + spelling.bytes.length;
        if (start < from || end > view.length || (best !== -1 && start >= best)) continue;
        if (search.ignoreCase && !search.foldChunks ? equalsFolded(view, start, spelling.bytes) : view.compare(spelling.bytes, 0, spelling.bytes.length, start, end) === 0) best = start;
      }
    }
  }
  return best;
}

/**
 * Every match of the search in `view` whose end lies past `after` (matches ending at or before it were counted in
 * the previous chunk): calls `found(start, length)` in no particular order, once per position.
 */
function eachMatch(search: TextSearch, view: Buffer, after: number, found: (start: number, length: number) => void): void {
  const seen = search.probes.length > 1 ? new Set<number>() : null;
  for (const probe of search.probes) {
    for (let hit = view.indexOf(probe.bytes); hit !== -1; hit = view.indexOf(probe.bytes, hit + 1)) {
      for (const spelling of probe.spellings) {
        const start = hit - spelling.probeOffset;
        const end = start + spelling.bytes.length;
        if (start < 0 || end > view.length || end <= after) continue;
        const equal = search.ignoreCase && !search.foldChunks ? equalsFolded(view, start, spelling.bytes) : view.compare(spelling.bytes, 0, spelling.bytes.length, start, end) === 0;
        if (!equal || seen?.has(start)) continue;
        seen?.add(start);
        found(start, spelling.bytes.length);
        break;
      }
    }
  }
}

/** `view[start…]` equals the (lower-case) `bytes` once its ASCII letters are lowered. */
function equalsFolded(view: Buffer, start: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    let byte = view[start + i]!;
    if (byte >= 0x41 && byte <= 0x5a) byte |= 0x20;
    if (byte !== bytes[i]) return false;
  }
  return true;
}

/**
 * Lower-case the ASCII letters of `buffer[from, to)` in place, four bytes at a time (a byte loop is 4x slower):
 * per byte, 0x20 is set where the byte is ASCII, >= 'A' and < '['.
 */
function lowerAscii(buffer: Buffer, from: number, to: number): void {
  let i = from;
  for (; i < to && (buffer.byteOffset + i) % 4 !== 0; i++) lowerByte(buffer, i);
  const words = new Int32Array(buffer.buffer, buffer.byteOffset + i, (to - i) >> 2);
  for (let w = 0; w < words.length; w++) {
    const word = words[w]!;
    const low7 = word & 0x7f7f7f7f;
    words[w] = word | ((((low7 + 0x3f3f3f3f) & ~(low7 + 0x25252525) & ~word) & 0x80808080) >>> 2);
  }
  for (i += words.length * 4; i < to; i++) lowerByte(buffer, i);
}

function lowerByte(buffer: Buffer, i: number): void {
  const byte = buffer[i]!;
  if (byte >= 0x41 && byte <= 0x5a) buffer[i] = byte | 0x20;
}

/** A reusable read buffer for `fileContainsSync` (one per thread: big reads into the same memory). */
export function searchBuffer(search: TextSearch): Buffer {
  return Buffer.allocUnsafe(CHUNK + Math.max(0, search.longest - 1));
}

/**
 * Called with the first chunk of a file (at most 256 KiB; empty for an empty file), e.g. to pick a field out of the
 * file's head, and what fstat said of the file when it was opened.
 */
export type HeadVisitor = (head: Buffer, stats: Stats) => void;

/** Judges a line by its opening (at most LINE_OPENING_BYTES, decoded as UTF-8): true when a match in it does not count. */
export type LineFilter = (opening: string) => boolean;

/** How much of a line's start a `LineFilter` sees. */
export const LINE_OPENING_BYTES = 512;

/**
 * True when the file contains the text. Reads the file in 256 KiB chunks (any size) into `buffer`, keeping
 * an overlap so a match across two chunks is found; stops at the first match. Synchronous on purpose: for
 * thousands of files, promise-based reads cost more than the reading (callers run it on worker threads).
 * With `skipLine`, a match counts only outside the lines it rejects (their openings are read only on a hit).
 */
export function fileContainsSync(path: string, search: TextSearch, buffer: Buffer = searchBuffer(search), onHead?: HeadVisitor, skipLine?: LineFilter): boolean {
  const overlap = Math.max(0, search.longest - 1);
  const chunk = buffer.length - overlap;
  if (chunk <= 0) throw new RangeError('search buffer too small');
  const { fd, stats } = openRegularWithStatsSync(path);
  try {
    let carried = 0;
    let position = 0;
    /** Where the line holding the view's first byte starts (a view with no newline before a hit is inside it). */
    let lineStart = 0;
    const verdicts = new Map<number, boolean>();
    const skipped = (start: number): boolean => {
      let verdict = verdicts.get(start);
      if (verdict === undefined) {
        const opening = Buffer.alloc(LINE_OPENING_BYTES);
        const read = readSync(fd, opening, 0, LINE_OPENING_BYTES, start);
        const end = opening.subarray(0, read).indexOf(0x0a);
        verdict = skipLine!(opening.subarray(0, end === -1 ? read : end).toString('utf8'));
        verdicts.set(start, verdict);
      }
      return verdict;
    };
    for (;;) {
      const bytesRead = readSync(fd, buffer, carried, chunk, position);
      if (position === 0 && onHead) onHead(buffer.subarray(0, bytesRead), stats);
      if (bytesRead === 0) return false;
      const length = carried + bytesRead;
      if (search.probes.length === 0) return false;
      if (search.foldChunks) lowerAscii(buffer, carried, length);
      const view = buffer.subarray(0, length);
      const viewStart = position - carried;
      if (skipLine === undefined) {
        if (bufferContains(search, view)) return true;
      } else {
        for (let from = 0, match = firstMatch(search, view, 0); match !== -1; match = firstMatch(search, view, from)) {
          const newline = match === 0 ? -1 : view.lastIndexOf(0x0a, match - 1);
          if (!skipped(newline === -1 ? lineStart : viewStart + newline + 1)) return true;
          const end = view.indexOf(0x0a, match);
          if (end === -1) break;
          from = end + 1;
        }
        const last = view.lastIndexOf(0x0a);
        if (last !== -1) lineStart = viewStart + last + 1;
      }
      position += bytesRead;
      if (atEnd(bytesRead, chunk, position, stats)) return false;
      carried = Math.min(overlap, length);
      buffer.copy(buffer, 0, length - carried, length);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A short read that reached the size fstat gave at the open is the file's end: no read that returns nothing is
 * needed to know it (one system call less per file; most transcripts are one read). A file that grew since is read
 * as it was when opened; a short read before that size (which a regular file does not give) reads on.
 */
function atEnd(bytesRead: number, asked: number, position: number, stats: Stats): boolean {
  return bytesRead < asked && position >= stats.size;
}

/** Where a match is in a file (bytes). */
export interface MatchPlace {
  readonly offset: number;
  readonly length: number;
}

/** What a whole file holds of the search: how many matches, and where the first few are (in file order). */
export interface FileMatches {
  readonly count: number;
  readonly first: MatchPlace | null;
  /**
   * The first match of each of the first `FIRST_PLACES` lines that have one, in file order: a snippet may prefer
   * one in conversation text (a system prompt is one line, however many matches it holds).
   */
  readonly places: readonly MatchPlace[];
}

const FIRST_PLACES = 8;

/**
 * Every match in the file (`fileContainsSync` stops at the first): the count and the first one's place, for
 * `grep`'s match counts and snippets. Same chunked reads, same spellings. With `end`, only the file's bytes before
 * that offset are searched (the turns a fork inherits from its parent's file). With `placesOnly`, the read stops once
 * no later byte can change `places` (the first FIRST_PLACES lines with a match were found): `count` is then a lower
 * bound, for a snippet that needs no count.
 */
export function fileMatchesSync(
  path: string,
  search: TextSearch,
  buffer: Buffer = searchBuffer(search),
  onHead?: HeadVisitor,
  skipLine?: LineFilter,
  end = Infinity,
  placesOnly = false,
): FileMatches {
  const overlap = Math.max(0, search.longest - 1);
  const chunk = buffer.length - overlap;
  if (chunk <= 0) throw new RangeError('search buffer too small');
  let count = 0;
  const places: (MatchPlace & { readonly line: number })[] = [];
  /** The file offset just past the last newline before the current buffer (the current line's start). */
  let lineStart = 0;
  const { fd, stats } = openRegularWithStatsSync(path);
  const verdicts = new Map<number, boolean>();
  /** A match in a line the adapter says is never conversation does not count (its opening is read once, on a hit). */
  const skipped = (start: number): boolean => {
    if (skipLine === undefined) return false;
    let verdict = verdicts.get(start);
    if (verdict === undefined) {
      const opening = Buffer.alloc(LINE_OPENING_BYTES);
      const read = readSync(fd, opening, 0, LINE_OPENING_BYTES, start);
      const end = opening.subarray(0, read).indexOf(0x0a);
      verdict = skipLine(opening.subarray(0, end === -1 ? read : end).toString('utf8'));
      verdicts.set(start, verdict);
    }
    return verdict;
  };
  try {
    let carried = 0;
    let position = 0;
    for (;;) {
      const asked = Math.min(chunk, end - position);
      const bytesRead = asked <= 0 ? 0 : readSync(fd, buffer, carried, asked, position);
      if (position === 0 && onHead) onHead(buffer.subarray(0, bytesRead), stats);
      if (bytesRead === 0) break;
      const length = carried + bytesRead;
      if (search.probes.length === 0) break;
      if (search.foldChunks) lowerAscii(buffer, carried, length);
      // buffer[0] is the file's byte at position - carried.
      const base = position - carried;
      eachMatch(search, buffer.subarray(0, length), carried, (start, matched) => {
        const offset = base + start;
        const newline = start === 0 ? -1 : buffer.lastIndexOf(0x0a, start - 1);
        const line = newline === -1 ? lineStart : base + newline + 1;
        if (skipped(line)) return;
        count++;
        if (places.length === FIRST_PLACES && offset >= places[FIRST_PLACES - 1]!.offset) return;
        const same = places.findIndex((place) => place.line === line);
        if (same !== -1) {
          if (places[same]!.offset <= offset) return;
          places.splice(same, 1);
        }
        let at = places.length;
        while (at > 0 && places[at - 1]!.offset > offset) at--;
        places.splice(at, 0, { offset, length: matched, line });
        if (places.length > FIRST_PLACES) places.pop();
      });
      const last = buffer.subarray(0, length).lastIndexOf(0x0a);
      if (last !== -1) lineStart = Math.max(lineStart, base + last + 1);
      position += bytesRead;
      if (position >= end || atEnd(bytesRead, asked, position, stats)) break;
      carried = Math.min(overlap, length);
      // Every later match starts at or past the next read's first byte (position - carried): none comes before the last place.
      if (placesOnly && places.length === FIRST_PLACES && places[FIRST_PLACES - 1]!.offset < position - carried) break;
      buffer.copy(buffer, 0, length - carried, length);
    }
  } finally {
    closeSync(fd);
  }
  return { count, first: places[0] ?? null, places: places.map(({ offset, length }) => ({ offset, length })) };
}
