/**
 * A list row as styled text segments, laid out by hand in fixed-width columns: one <Text> per row draws what
 * nine flex boxes did (one layout node instead of nine, ~45 rows a frame), and the same segments are what the
 * first screen paints as plain ANSI before Ink has loaded (prepaint.ts).
 */
import type { CatalogSession } from '../catalog/scan.js';
import { graphemes, stringWidth } from './display-width.js';
import type { MatchRanges, SearchHit } from '../catalog/search.js';
import { oneLine, safeLine, tildePath } from '../core/text.js';
import type { RowColumns } from './geometry.js';
import type { ContentHit } from './state.js';
import type { Theme } from './palette.js';
import type { SortKey } from './state.js';
import { isLive, relativeTime } from './time.js';

export interface Style {
  readonly color?: string | undefined;
  readonly bold?: boolean;
  readonly inverse?: boolean;
  readonly underline?: boolean;
}

export interface Segment extends Style {
  readonly text: string;
}

const PLAIN_ASCII = /^[\x20-\x7e]*$/;
const ELLIPSIS = '…';

/**
 * What a terminal draws as one character: a code point for ASCII text, else a grapheme cluster (a ZWJ emoji
 * such as 👩‍💻 is three code points and two columns), each measured by string-width as Ink measures the row.
 */
function characters(text: string): Iterable<string> {
  return PLAIN_ASCII.test(text) || ONE_CLUSTER_EACH.test(text) ? text : clusters(text);
}

/**
 * Code points that never join a neighbour into one grapheme cluster, as runs [first, last, columns]: printable ASCII
 * and blocks of the Basic Multilingual Plane (Latin, Greek, Cyrillic, punctuation, symbols, arrows, box drawing, CJK,
 * kana, full-width forms, the replacement character U+FFFD a broken byte decodes to) without the characters that do
 * join (combining marks, ZWNJ and ZWJ, variation selectors, Hangul jamo, the half-width voiced-sound marks; emoji
 * modifiers and regional indicators are outside the BMP). Each code point of text made of these is a cluster, as the
 * segmenter would find, and its width is string-width's of it (`test/ui/row-cells.test.ts` checks every code point of
 * the runs against both), without their cost: the segmenter is ~1 µs a cluster (a 9k-row grep's titles), and
 * string-width's first call compiles its Unicode property patterns (~50 ms of a `list` or `grep` that prints a CJK or
 * accented title).
 */
export const ONE_CLUSTER_RUNS: readonly (readonly [first: number, last: number, columns: number])[] = [
  [0x0020, 0x007e, 1], [0x00a0, 0x00ac, 1], [0x00ad, 0x00ad, 0], [0x00ae, 0x02ff, 1], [0x0370, 0x0482, 1],
  [0x048a, 0x0590, 1], [0x2000, 0x200a, 1], [0x200b, 0x200b, 0], [0x200e, 0x200f, 0], [0x2010, 0x2029, 1],
  [0x202a, 0x202e, 0], [0x202f, 0x205f, 1], [0x2060, 0x206f, 0], [0x2070, 0x20cf, 1], [0x2100, 0x2319, 1],
  [0x231a, 0x231b, 2], [0x231c, 0x2328, 1], [0x2329, 0x232a, 2], [0x232b, 0x23e8, 1], [0x23e9, 0x23ec, 2],
  [0x23ed, 0x23ef, 1], [0x23f0, 0x23f0, 2], [0x23f1, 0x23f2, 1], [0x23f3, 0x23f3, 2], [0x23f4, 0x25fc, 1],
  [0x25fd, 0x25fe, 2], [0x25ff, 0x2613, 1], [0x2614, 0x2615, 2], [0x2616, 0x262f, 1], [0x2630, 0x2637, 2],
  [0x2638, 0x2647, 1], [0x2648, 0x2653, 2], [0x2654, 0x267e, 1], [0x267f, 0x267f, 2], [0x2680, 0x2689, 1],
  [0x268a, 0x268f, 2], [0x2690, 0x2692, 1], [0x2693, 0x2693, 2], [0x2694, 0x26a0, 1], [0x26a1, 0x26a1, 2],
  [0x26a2, 0x26a9, 1], [0x26aa, 0x26ab, 2], [0x26ac, 0x26bc, 1], [0x26bd, 0x26be, 2], [0x26bf, 0x26c3, 1],
  [0x26c4, 0x26c5, 2], [0x26c6, 0x26cd, 1], [0x26ce, 0x26ce, 2], [0x26cf, 0x26d3, 1], [0x26d4, 0x26d4, 2],
  [0x26d5, 0x26e9, 1], [0x26ea, 0x26ea, 2], [0x26eb, 0x26f1, 1], [0x26f2, 0x26f3, 2], [0x26f4, 0x26f4, 1],
  [0x26f5, 0x26f5, 2], [0x26f6, 0x26f9, 1], [0x26fa, 0x26fa, 2], [0x26fb, 0x26fc, 1], [0x26fd, 0x26fd, 2],
  [0x26fe, 0x2704, 1], [0x2705, 0x2705, 2], [0x2706, 0x2709, 1], [0x270a, 0x270b, 2], [0x270c, 0x2727, 1],
  [0x2728, 0x2728, 2], [0x2729, 0x274b, 1], [0x274c, 0x274c, 2], [0x274d, 0x274d, 1], [0x274e, 0x274e, 2],
  [0x274f, 0x2752, 1], [0x2753, 0x2755, 2], [0x2756, 0x2756, 1], [0x2757, 0x2757, 2], [0x2758, 0x2794, 1],
  [0x2795, 0x2797, 2], [0x2798, 0x27af, 1], [0x27b0, 0x27b0, 2], [0x27b1, 0x27be, 1], [0x27bf, 0x27bf, 2],
  [0x27c0, 0x2b1a, 1], [0x2b1b, 0x2b1c, 2], [0x2b1d, 0x2b4f, 1], [0x2b50, 0x2b50, 2], [0x2b51, 0x2b54, 1],
  [0x2b55, 0x2b55, 2], [0x2b56, 0x2bff, 1], [0x3000, 0x3029, 2], [0x3030, 0x303e, 2], [0x303f, 0x3040, 1],
  [0x3041, 0x3096, 2], [0x309b, 0x30ff, 2], [0x3400, 0x4dbf, 2], [0x4e00, 0x9fff, 2], [0xff01, 0xff60, 2],
  [0xff61, 0xff9d, 1], [0xfffd, 0xfffd, 1],
];

/**
 * Code points outside the BMP that never join a neighbour, as runs [first, last]: the emoji and symbol blocks
 * U+1F000-U+1FAFF without the regional indicators (a flag is two of them) and the skin-tone modifiers (they extend the
 * emoji before them). 3,006 of the 100k bench home's titles hold an emoji (🙂) and were segmented whole (~0.4 s of a
 * `grep` of a common word). Their widths are string-width's, as for any other character outside ONE_CLUSTER_RUNS.
 */
export const ONE_CLUSTER_ASTRAL_RUNS: readonly (readonly [first: number, last: number])[] = [
  [0x1f000, 0x1f1e5],
  [0x1f200, 0x1f3fa],
  [0x1f400, 0x1faff],
];

const hex = (code: number): string => `\\u{${code.toString(16)}}`;
const ONE_CLUSTER_EACH = new RegExp(`^[${[...ONE_CLUSTER_RUNS, ...ONE_CLUSTER_ASTRAL_RUNS].map(([first, last]) => `${hex(first)}-${hex(last)}`).join('')}]*$`, 'u');

/** The columns of a code point of ONE_CLUSTER_RUNS (binary search), or -1 for any other. */
function runColumns(code: number): number {
  let low = 0;
  let high = ONE_CLUSTER_RUNS.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last, columns] = ONE_CLUSTER_RUNS[middle]!;
    if (code < first) high = middle - 1;
    else if (code > last) low = middle + 1;
    else return columns;
  }
  return -1;
}

/** The grapheme clusters of `text`, segmented as they are taken (a cut stops at its width, not at the end of pages of text). */
function* clusters(text: string): Generator<string> {
  for (const part of graphemes().segment(text)) yield part.segment;
}

function charWidth(char: string): number {
  if (PLAIN_ASCII.test(char)) return 1;
  if (char.length === 1) {
    const columns = runColumns(char.charCodeAt(0));
    if (columns !== -1) return columns;
  }
  // string-width of one cluster is a few regular expressions: 9k listed titles ask it of the same few characters.
  let width = clusterWidths.get(char);
  if (width === undefined) {
    if (clusterWidths.size >= CLUSTER_WIDTHS_KEPT) clusterWidths.clear();
    clusterWidths.set(char, (width = stringWidth(char)));
  }
  return width;
}

/** The widths of the clusters measured so far (a few thousand at most: a title's characters repeat). */
const clusterWidths = new Map<string, number>();
const CLUSTER_WIDTHS_KEPT = 4096;

/**
 * The width of `text` (summed a character at a time, as the cut below measures it), or some width past `limit` as soon
 * as it is past: a long title (a first prompt of pages) is measured only as far as its cell reaches.
 */
function widthUpTo(text: string, limit: number): number {
  let used = 0;
  for (const char of characters(text)) {
    used += charWidth(char);
    if (used > limit) break;
  }
  return used;
}

/** A cell's visible text: cut to `width` columns with an ellipsis (at the end, or at the start for paths). */
interface Fitted {
  readonly text: string;
  /** Columns the text takes. */
  readonly width: number;
  /** Index into the original string of the first kept character (after the ellipsis when cut at the start). */
  readonly from: number;
  /** Characters kept from the original, starting at `from`. */
  readonly kept: number;
  readonly cut: 'none' | 'end' | 'start';
}

export function fit(text: string, width: number, cutAt: 'end' | 'start' = 'end'): Fitted {
  if (width <= 0) return { text: '', width: 0, from: 0, kept: 0, cut: 'end' };
  const ascii = PLAIN_ASCII.test(text);
  const full = ascii ? text.length : widthUpTo(text, width);
  if (full <= width) return { text, width: full, from: 0, kept: text.length, cut: 'none' };
  const room = width - 1; // the ellipsis takes one column
  // Plain ASCII is a column a character: the cuts below, without walking the text a character at a time.
  if (ascii && cutAt === 'end') return { text: text.slice(0, room) + ELLIPSIS, width, from: 0, kept: room, cut: 'end' };
  if (ascii) return { text: ELLIPSIS + text.slice(text.length - room), width, from: text.length - room, kept: room, cut: 'start' };
  if (cutAt === 'end') {
    let used = 0;
    let end = 0;
    for (const char of characters(text)) {
      const w = charWidth(char);
      if (used + w > room) break;
      used += w;
      end += char.length;
    }
    return { text: text.slice(0, end) + ELLIPSIS, width: used + 1, from: 0, kept: end, cut: 'end' };
  }
  const chars = [...characters(text)];
  let used = 0;
  let start = text.length;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = charWidth(chars[i]!);
    if (used + w > room) break;
    used += w;
    start -= chars[i]!.length;
  }
  return { text: ELLIPSIS + text.slice(start), width: used + 1, from: start, kept: text.length - start, cut: 'start' };
}

/** Split a fitted cell into plain and matched parts; `shift` = characters missing from the front of the original. */
function highlight(cell: Fitted, ranges: MatchRanges | undefined, base: Style, match: Style, shift = 0): Segment[] {
  const lead = cell.cut === 'start' ? ELLIPSIS : '';
  const body = cell.cut === 'none' ? cell.text : cell.cut === 'end' ? cell.text.slice(0, -ELLIPSIS.length) : cell.text.slice(ELLIPSIS.length);
  const tail = cell.cut === 'end' ? ELLIPSIS : '';
  const out: Segment[] = [];
  if (lead) out.push({ ...base, text: lead });
  let at = 0;
  for (const [rawStart, rawEnd] of [...(ranges ?? [])].sort((a, b) => a[0] - b[0])) {
    const start = Math.max(at, rawStart - shift - cell.from);
    const end = Math.min(body.length - 1, rawEnd - shift - cell.from);
    if (end < start) continue;
    if (start > at) out.push({ ...base, text: body.slice(at, start) });
    out.push({ ...base, ...match, text: body.slice(start, end + 1) });
    at = end + 1;
  }
  if (at < body.length) out.push({ ...base, text: body.slice(at) });
  if (tail) out.push({ ...base, text: tail });
  return out;
}

const spaces = (n: number): Segment => ({ text: n > 0 ? ' '.repeat(n) : '' });

/** A cell of `width` columns: the text fitted into `width - padRight`, then blanks. */
function cell(segments: Segment[], used: number, width: number): Segment[] {
  return [...segments, spaces(width - used)];
}

export interface RowInput {
  readonly session: CatalogSession;
  readonly hit: SearchHit | null;
  /** Content search: the row shows where the text is instead of the title, and how often it occurs. */
  readonly content?: ContentHit | undefined;
  readonly selected: boolean;
  readonly columns: RowColumns;
  readonly now: number;
  readonly homeDir: string;
  readonly theme: Theme;
  /** The list's sort: the age shown is that of the time the rows are sorted by. */
  readonly sort: SortKey;
}

/** One conversation on one line: marker, agent, age, title, cwd, branch, turns, fork and live marks. */
export function sessionRowSegments({ session, hit, content, selected, columns, now, homeDir, theme, sort }: RowInput): Segment[] {
  const match: Style = { color: theme.match, bold: true, underline: !theme.color };
  const out: Segment[] = [];
  const push = (segments: Segment[]): void => {
    for (const segment of segments) if (segment.text !== '') out.push(segment);
  };

  push(cell([{ text: fit(selected ? '›' : ' ', columns.marker).text, color: theme.accent, bold: true }], 1, columns.marker));
  const badge = fit(safeLine(session.agent), columns.badge);
  push(cell(highlight(badge, hit?.agent, { color: theme.agents[session.agent], inverse: selected }, match), badge.width, columns.badge));
  const age = fit(relativeTime(sort === 'created' ? session.createdAt : session.updatedAt, now), columns.age);
  push(cell([{ text: age.text, color: theme.dim }], age.width, columns.age));

  const snippet = content?.snippet ? snippetText(content, columns.title - 1) : null;
  const title = snippet ? snippet.text : oneLine(session.title) || '(untitled)';
  const titleRanges = snippet ? snippet.ranges : hit ? (session.name && hit.name ? hit.name : hit.title) : undefined;
  const titleCell = fit(title, columns.title - 1);
  const titleStyle: Style = { bold: selected, inverse: selected && !theme.color, color: selected ? theme.accent : undefined };
  push(cell(highlight(titleCell, titleRanges, titleStyle, match), titleCell.width, columns.title));

  if (columns.cwd > 0) {
    if (session.host === undefined) {
      const cwd = safeLine(tildePath(session.cwd, homeDir));
      const shift = session.cwd ? session.cwd.length - cwd.length : 0;
      const cwdCell = fit(cwd, columns.cwd - 1, 'start');
      push(cell(highlight(cwdCell, hit?.cwd, { color: theme.dim }, match, shift), cwdCell.width, columns.cwd));
    } else {
      // Another machine's directory is host:path (its home is not this one's: no ~), the host always in sight
      // (a long path is cut at its start); search matched both as one field.
      const name = `${session.host}:`;
      const room = columns.cwd - 1;
      const hostCell = fit(safeLine(name), Math.max(1, Math.min(name.length, Math.floor(room / 2))));
      const pathCell = fit(safeLine(session.cwd ?? '-'), room - hostCell.width, 'start');
      const segments = [...highlight(hostCell, hit?.cwd, { color: theme.dim }, match), ...highlight(pathCell, hit?.cwd, { color: theme.dim }, match, name.length)];
      push(cell(segments, hostCell.width + pathCell.width, columns.cwd));
    }
  }
  if (columns.branch > 0) {
    const branch = fit(safeLine(session.gitBranch ?? ''), columns.branch - 1);
    push(cell(highlight(branch, hit?.gitBranch, { color: theme.dim }, match), branch.width, columns.branch));
  }
  // A content search counts no matches on this machine (its files are read to their first lines with one): the turns
  // then, as elsewhere; a host's own grep counts them.
  const turns = fit(content && content.matches > 0 ? `${content.matches}×` : `${session.userTurns}${session.userTurnsExact ? '' : '+'}`, columns.turns - 1);
  push([spaces(columns.turns - 1 - turns.width), { text: turns.text }, spaces(columns.turns > 0 ? 1 : 0)]);

  if (columns.marks > 0) {
    const forked = session.forkedFrom !== null || session.fork !== null;
    const live = isLive(session.updatedAt, now);
    push([{ text: forked ? '⋔' : ' ', color: theme.accent }, { text: ' ' }]);
    // A host's row listed from its mirror while the host is down (the header says as of when).
    if (session.stale !== undefined) push([{ text: 'stale', color: theme.dim }]);
    else if (live) push([{ text: 'live', color: theme.live, bold: true }]);
  }
  return out;
}

/**
 * A content-search row's text: the snippet with at most a third of the cell before the match, so the match is
 * on screen however much text precedes it; the match's range for the highlight.
 */
function snippetText(content: ContentHit, width: number): { readonly text: string; readonly ranges: MatchRanges } {
  if (!content.snippet) return { text: '', ranges: [] };
  const match = shownBreaks(content.snippet.match);
  const after = shownBreaks(content.snippet.after);
  const room = Math.max(4, Math.floor(width / 3));
  const chars = [...shownBreaks(content.snippet.before)];
  const before = chars.length > room ? ELLIPSIS + chars.slice(chars.length - room + 1).join('') : chars.join('');
  return { text: before + match + after, ranges: match ? [[before.length, before.length + match.length - 1]] : [] };
}

/**
 * Text that was itself JSON inside the session's JSON (a tool's input, a command's captured output) still holds its
 * own escapes once the snippet is read: its line breaks show as ⏎ and its tabs as spaces, never as `\n` or `\t`.
 */
export function shownBreaks(text: string): string {
  return text.replace(/\\r\\n|\\n|\\r/g, '⏎').replace(/\\t/g, ' ');
}
