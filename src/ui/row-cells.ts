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
 * Text of code points that never join a neighbour into one grapheme cluster: printable ASCII and blocks of the Basic
 * Multilingual Plane (Latin, Greek, Cyrillic, punctuation, symbols, arrows, box drawing, CJK, kana, full-width forms)
 * without the characters that do (combining marks, ZWNJ and ZWJ, variation selectors, Hangul jamo, the half-width
 * voiced-sound marks; emoji modifiers and regional indicators are outside the BMP). Each code point of such text is a
 * cluster, as the segmenter would find (`test/ui/row-cells.test.ts` checks every code point of these ranges), without
 * its cost (~1 µs a cluster: a 9k-row grep's titles).
 */
const ONE_CLUSTER_EACH = /^[\x20-\x7e\u00a0-\u02ff\u0370-\u0482\u048a-\u0590\u2000-\u200b\u200e-\u20cf\u2100-\u2bff\u3000-\u3029\u3030-\u3096\u309b-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff9d]*$/;

/** The grapheme clusters of `text`, segmented as they are taken (a cut stops at its width, not at the end of pages of text). */
function* clusters(text: string): Generator<string> {
  for (const part of graphemes().segment(text)) yield part.segment;
}

function charWidth(char: string): number {
  if (PLAIN_ASCII.test(char)) return 1;
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
  push(cell([{ text: badge.text, color: theme.agents[session.agent], inverse: selected }], badge.width, columns.badge));
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
  const turns = fit(content ? `${content.matches}×` : `${session.userTurns}${session.userTurnsExact ? '' : '+'}`, columns.turns - 1);
  push([spaces(columns.turns - 1 - turns.width), { text: turns.text }, spaces(columns.turns > 0 ? 1 : 0)]);

  if (columns.marks > 0) {
    const forked = session.forkedFrom !== null || session.fork !== null;
    const live = isLive(session.updatedAt, now);
    push([{ text: forked ? '⋔' : ' ', color: theme.accent }, { text: ' ' }]);
    if (live) push([{ text: 'live', color: theme.live, bold: true }]);
  }
  return out;
}

/**
 * A content-search row's text: the snippet with at most a third of the cell before the match, so the match is
 * on screen however much text precedes it; the match's range for the highlight.
 */
function snippetText(content: ContentHit, width: number): { readonly text: string; readonly ranges: MatchRanges } {
  if (!content.snippet) return { text: '', ranges: [] };
  const { match, after } = content.snippet;
  const room = Math.max(4, Math.floor(width / 3));
  const chars = [...content.snippet.before];
  const before = chars.length > room ? ELLIPSIS + chars.slice(chars.length - room + 1).join('') : content.snippet.before;
  return { text: before + match + after, ranges: match ? [[before.length, before.length + match.length - 1]] : [] };
}
