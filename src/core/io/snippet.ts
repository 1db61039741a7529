import { closeSync, readSync } from 'node:fs';
import { unescapedQuoteBefore, unescapedQuoteFrom } from './json-bytes.js';
import { openRegularSync } from './regular.js';
import type { MatchPlace } from './contains.js';
import { controlSequenceRanges, SEQUENCE_INTRODUCER, stripControl, STRING_TERMINATOR } from '../text.js';

/** A match in its surroundings, as text to show on one line: the matched text and up to N characters each side. */
export interface Snippet {
  readonly before: string;
  readonly match: string;
  readonly after: string;
}

/** A snippet and the JSON just before the string it is in (up to `LEAD_BYTES`): which key, which kind of record. */
export interface PlacedSnippet extends Snippet {
  readonly lead: string;
  /** The string's opening quote was found (else `lead` is empty: the string opens before the bytes given). */
  readonly opened: boolean;
}

/** The adapters' `notConversation` patterns (`notConversationSources`) as one; null when there are none. */
export function notConversationPattern(sources: readonly string[]): RegExp | null {
  return sources.length > 0 ? new RegExp(sources.map((source) => `(?:${source})`).join('|')) : null;
}

/** The snippet of the first of `places` in conversation text (see FormatAdapter.notConversation), else of the first. */
export function firstSnippet(path: string, places: readonly MatchPlace[], context: number, notConversation: RegExp | null): Snippet {
  let first: Snippet | null = null;
  for (const place of places) {
    const { lead, opened: _opened, ...snippet } = readSnippet(path, place.offset, place.length, context);
    if (!notConversation?.test(lead)) return snippet;
    first ??= snippet;
  }
  return first!;
}

const LEAD_BYTES = 160;

/** Bytes read on each side of a match: enough for a few hundred characters of context however they are escaped. */
const WINDOW_BYTES = 4096;

/**
 * The text around a match found in a JSONL file's bytes (`offset`, `length`): the JSON string the match sits in,
 * unescaped (newlines and tabs as spaces, control sequences removed), cut to `context` characters each side.
 */
export function readSnippet(path: string, offset: number, length: number, context: number): PlacedSnippet {
  const start = Math.max(0, offset - WINDOW_BYTES);
  const window = Buffer.allocUnsafe(offset - start + length + WINDOW_BYTES);
  const fd = openRegularSync(path);
  try {
    const read = readSync(fd, window, 0, window.length, start);
    const snippet = snippetIn(window.subarray(0, read), offset - start, length, context);
    // A long string (a system prompt of many KiB) opens before the window: find what precedes it further back.
    return snippet.opened || start === 0 ? snippet : { ...snippet, lead: leadBefore(fd, start) };
  } finally {
    closeSync(fd);
  }
}

/** How far back the opening of a long string is looked for. */
const MAX_LEAD_SEARCH = 1024 * 1024;

/** The bytes before the last unescaped quote that precedes `end` in the file (searched back up to MAX_LEAD_SEARCH). */
function leadBefore(fd: number, end: number): string {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (let to = end; to > 0 && end - to < MAX_LEAD_SEARCH; ) {
    const from = Math.max(0, to - chunk.length);
    const read = readSync(fd, chunk, 0, to - from, from);
    const bytes = chunk.subarray(0, read);
    const i = unescapedQuoteBefore(bytes, bytes.length);
    if (i !== -1) {
      const leadStart = Math.max(0, from + i - LEAD_BYTES);
      const lead = Buffer.allocUnsafe(from + i - leadStart);
      readSync(fd, lead, 0, lead.length, leadStart);
      return lead.toString('latin1');
    }
    // Keep a little overlap: an escape's backslashes may straddle the chunk boundary.
    to = from === 0 ? 0 : from + 8;
    if (from === 0) break;
  }
  return '';
}

/** `readSnippet` on bytes in memory: the match is `bytes[at, at + length)`. */
export function snippetIn(bytes: Buffer, at: number, length: number, context: number): PlacedSnippet {
  const matchEnd = Math.min(bytes.length, at + length);
  // The string the match is in: from the quote before it to the quote after it (not escaped ones).
  const open = unescapedQuoteBefore(bytes, at);
  const next = unescapedQuoteFrom(bytes, matchEnd);
  const close = next === -1 ? bytes.length : next;
  // Without a quote in the window, start on a whole character (not a UTF-8 continuation byte).
  let from = open + 1;
  if (open === -1) while (from < at && (bytes[from]! & 0xc0) === 0x80) from++;
  const before = unescapeJson(bytes.toString('utf8', from, at));
  const match = unescapeJson(bytes.toString('utf8', at, matchEnd));
  const text = before + match + unescapeJson(bytes.toString('utf8', matchEnd, close));
  const [start, matchFrom, matchTo] = visibleBounds(text, open === -1, before.length, before.length + match.length);
  const head = [...shown(text.slice(start, matchFrom))];
  const tail = [...shown(text.slice(matchTo))];
  return {
    lead: open === -1 ? '' : bytes.toString('latin1', Math.max(0, open - LEAD_BYTES), open),
    opened: open !== -1,
    before: (head.length > context ? '…' : '') + head.slice(Math.max(0, head.length - context)).join('').trimStart(),
    match: shown(text.slice(matchFrom, matchTo)),
    after: tail.slice(0, context).join('').trimEnd() + (tail.length > context ? '…' : ''),
  };
}

/**
 * Where the snippet's text starts and where its match is, so that no side starts or ends inside a terminal control
 * sequence: the before and after were sanitised apart, so a match inside an OSC payload (a window title) showed the
 * rest of the payload as text. A match that overlaps a sequence takes the whole sequence in (and shows what of it is
 * visible, maybe nothing); a string that opens before the bytes read starts after a terminator that comes before any
 * introducer (the payload's opening was not read).
 */
function visibleBounds(text: string, cutOpen: boolean, matchFrom: number, matchTo: number): [number, number, number] {
  let start = 0;
  if (cutOpen) {
    const end = STRING_TERMINATOR.exec(text);
    const introducer = SEQUENCE_INTRODUCER.exec(text);
    if (end !== null && end.index < matchFrom && (introducer === null || introducer.index >= end.index)) start = end.index + end[0].length;
  }
  let from = matchFrom;
  let to = matchTo;
  for (const [rangeStart, rangeEnd] of controlSequenceRanges(text.slice(start))) {
    if (rangeStart + start < to && rangeEnd + start > from) {
      from = Math.min(from, rangeStart + start);
      to = Math.max(to, rangeEnd + start);
    }
  }
  return [start, from, to];
}

/** Text as a snippet shows it: control sequences removed, half surrogate pairs dropped, whitespace runs one space. */
function shown(text: string): string {
  // A lone surrogate (half of a pair cut off by the window) would print as garbage.
  return stripControl(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')).replace(/\s+/g, ' ');
}

/** JSON string escapes undone, tolerantly (a cut escape stays as it is); newlines, tabs, backspace and form feed a space. */
function unescapeJson(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, escape: string) => {
    if (escape.length === 5) return String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return escape === 'n' || escape === 'r' || escape === 't' || escape === 'b' || escape === 'f' ? ' ' : escape;
  });
}
