import { IMAGE_PLACEHOLDER, type Message, type Session } from '../core/model.js';
import { formatSize, oneLine, stripControl } from '../core/text.js';
import { localTimestamp } from './time.js';
import { wrapText as wrapped } from './wrap-text.js';

/** What the agent recorded of a turn's files (`show --files`): its files as they were, and the files it changed. */
export interface TurnCodeMark {
  readonly recorded: boolean;
  readonly files: readonly string[] | null;
}

/** One thing the transcript shows, in order; `turn` is the user turn it belongs to (0 before the first). */
/** `clippedBytes`: how much of the item's text the display read left out (0 when it is whole). */
export type TranscriptItem =
  | { readonly kind: 'fork'; readonly turn: number; readonly text: string }
  | { readonly kind: 'turn'; readonly turn: number; readonly text: string; readonly timestamp: string | null; readonly clippedBytes: number; readonly code?: TurnCodeMark }
  | { readonly kind: 'assistant'; readonly turn: number; readonly text: string; readonly clippedBytes: number }
  | { readonly kind: 'tool-call'; readonly turn: number; readonly name: string; readonly args: string }
  | { readonly kind: 'tool-output'; readonly turn: number; readonly text: string; readonly isError: boolean; readonly clippedBytes: number }
  | { readonly kind: 'reasoning'; readonly turn: number; readonly text: string; readonly encrypted: boolean; readonly clippedBytes: number }
  | { readonly kind: 'compaction'; readonly turn: number; readonly text: string; readonly clippedBytes: number }
  | { readonly kind: 'system'; readonly turn: number; readonly text: string };

export type LineKind =
  | 'fork'
  | 'turn'
  | 'user'
  | 'assistant'
  | 'tool-call'
  | 'tool-output'
  | 'tool-error'
  | 'more'
  | 'reasoning'
  | 'compaction'
  | 'system'
  | 'files'
  | 'blank';

/** One screen row of the transcript: already wrapped to the width, or a single line Ink truncates. */
export interface TranscriptLine {
  readonly kind: LineKind;
  readonly text: string;
  /** A one-character mark drawn in the gutter on the first line of an item. */
  readonly gutter: string;
  readonly turn: number;
  readonly item: number;
}

/**
 * A transcript laid out at a width. Only the rows asked for are made (what is on screen): a 50k-turn transcript is
 * millions of rows, so the layout keeps where each item and turn starts, not the rows.
 */
export interface TranscriptLayout {
  readonly width: number;
  /** Screen rows in the whole transcript. */
  readonly lineCount: number;
  /** The row at `index` (undefined past the end). */
  lineAt(index: number): TranscriptLine | undefined;
  /** Rows `from` (inclusive) to `to` (exclusive), clamped to the transcript. */
  slice(from: number, to: number): TranscriptLine[];
  /** Line index of each user turn's header (index 0 = turn 1). */
  readonly turnStarts: readonly number[];
  /** Line index where each item starts (items that render nothing start where the next one does). */
  readonly itemStarts: readonly number[];
  /** The item's rows, the blank line before a turn included (made when asked for; a few hundred items' are kept). */
  itemRows(item: number): readonly TranscriptLine[];
}

export interface LayoutOptions {
  /** Show tool outputs and compaction summaries in full instead of their first lines. */
  readonly expanded: boolean;
  readonly showReasoning: boolean;
}

/** Lines of a tool output shown while collapsed. */
export const COLLAPSED_OUTPUT_LINES = 3;
/** Columns taken by the gutter mark and its space. */
export const GUTTER_WIDTH = 2;

/** What the header items of a transcript come from (the session's lineage). */
export type TranscriptHeader = Pick<Session, 'fork' | 'forkedFrom' | 'subagent' | 'subagents'>;

/**
 * The header of a transcript read whole: the read's lineage where it has one, else the row's (the catalog links
 * forks across files); sub-agents are the catalog's.
 */
export function transcriptHeader(read: TranscriptHeader, row: TranscriptHeader): TranscriptHeader {
  return { fork: read.fork ?? row.fork, forkedFrom: read.forkedFrom ?? row.forkedFrom, subagent: row.subagent ?? read.subagent, subagents: row.subagents };
}

/** The transcript as a flat list of items: user turns numbered, tool calls and outputs, reasoning, markers. */
export function buildTranscriptItems(session: TranscriptHeader & Pick<Session, 'messages'>): TranscriptItem[] {
  const builder = new TranscriptItemsBuilder(session);
  for (const message of session.messages) builder.add(message);
  return builder.items;
}

/** The items of a transcript made as its messages come, one message at a time (a big one is never held whole). */
export class TranscriptItemsBuilder {
  readonly items: TranscriptItem[] = [];
  private turn = 0;

  constructor(session: TranscriptHeader) {
    const { items } = this;
    const parent = session.fork?.id ?? session.forkedFrom;
    if (parent) {
      const at = session.fork?.atTurn ? ` before turn ${session.fork.atTurn}` : '';
      const branch = session.fork?.branchName ? ` (branch "${oneLine(session.fork.branchName)}")` : '';
      items.push({ kind: 'fork', turn: 0, text: `forked from ${parent}${at}${branch}` });
    }
    // Sub-agents are not rows of the list: their parent's transcript says where they are.
    if (session.subagent) items.push({ kind: 'fork', turn: 0, text: `sub-agent (${oneLine(session.subagent.kind)}) of ${oneLine(session.subagent.parentId ?? 'an unknown session')}` });
    if (session.subagents?.length) items.push({ kind: 'fork', turn: 0, text: `sub-agents: ${session.subagents.map(oneLine).join(', ')}` });
  }

  /** Whether a user turn has been added (a start without one shows nothing worth a screen). */
  get hasTurn(): boolean {
    return this.turn > 0;
  }

  add(message: Message): void {
    const { items } = this;
    if (message.userTurn) {
      const turn = ++this.turn;
      items.push({ kind: 'turn', turn, text: clean(textOf(message)), timestamp: message.timestamp ?? null, clippedBytes: clippedOf(message) });
      return;
    }
    const { turn } = this;
    for (const block of message.blocks) {
      switch (block.type) {
        case 'text': {
          const text = clean(block.text);
          if (text.trim() === '') break;
          if (message.role === 'assistant') items.push({ kind: 'assistant', turn, text, clippedBytes: block.clippedBytes ?? 0 });
          else items.push({ kind: 'system', turn, text: oneLine(text) });
          break;
        }
        case 'tool_use':
          items.push({ kind: 'tool-call', turn, name: oneLine(block.name), args: toolArguments(block.input) });
          break;
        case 'tool_result':
          items.push({ kind: 'tool-output', turn, text: clean(block.output), isError: block.isError, clippedBytes: block.clippedBytes ?? 0 });
          break;
        case 'reasoning':
          items.push({ kind: 'reasoning', turn, text: clean(block.summary), encrypted: block.encrypted, clippedBytes: block.clippedBytes ?? 0 });
          break;
        case 'compaction':
          items.push({ kind: 'compaction', turn, text: clean(block.summary), clippedBytes: block.clippedBytes ?? 0 });
          break;
      }
    }
  }
}

/** Rows of recently shown items kept per layout (scrolling back and forth does not wrap them again). */
const KEPT_ITEMS = 512;

/**
 * Lay the items out at a width: every item is wrapped once to count its rows (where each item and turn starts),
 * and its rows are made again when they are shown.
 */
export function layoutTranscript(items: readonly TranscriptItem[], width: number, options: LayoutOptions): TranscriptLayout {
  const turnStarts: number[] = [];
  const itemStarts: number[] = new Array<number>(items.length);
  const textWidth = Math.max(8, width - GUTTER_WIDTH);
  let count = 0;
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    itemStarts[index] = count;
    if (item.kind === 'turn') {
      if (count > 0) count++;
      turnStarts.push(count);
    }
    count += computeItemLines(item, index, textWidth, options).length;
  }
  const kept = new Map<number, readonly TranscriptLine[]>();
  const itemRows = (index: number): readonly TranscriptLine[] => {
    const cached = kept.get(index);
    if (cached !== undefined) return cached;
    const item = items[index];
    if (item === undefined) return [];
    const own = computeItemLines(item, index, textWidth, options);
    const rows = item.kind === 'turn' && itemStarts[index]! > 0 ? [line('blank', '', '', item.turn, index), ...own] : own;
    if (kept.size >= KEPT_ITEMS) kept.delete(kept.keys().next().value!);
    kept.set(index, rows);
    return rows;
  };
  const slice = (from: number, to: number): TranscriptLine[] => {
    const out: TranscriptLine[] = [];
    const end = Math.min(to, count);
    let at = Math.max(0, from);
    for (let index = itemContaining(itemStarts, at); at < end && index < items.length; index++) {
      const rows = itemRows(index);
      for (let i = at - itemStarts[index]!; i < rows.length && at < end; i++, at++) out.push(rows[i]!);
    }
    return out;
  };
  return {
    width,
    lineCount: count,
    lineAt: (index) => (index >= 0 && index < count ? slice(index, index + 1)[0] : undefined),
    slice,
    turnStarts,
    itemStarts,
    itemRows,
  };
}

/** The last item starting at or before `line` (an item that renders nothing shares the next one's start). */
function itemContaining(itemStarts: readonly number[], line: number): number {
  let lo = 0;
  let hi = itemStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (itemStarts[mid]! <= line) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo - 1);
}

/** Index of the user turn (1-based) that line `index` belongs to; 0 before the first turn. */
export function turnAtLine(layout: TranscriptLayout, index: number): number {
  let lo = 0;
  let hi = layout.turnStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (layout.turnStarts[mid]! <= index) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Item index of the line at `index` (for keeping the reading position across a re-layout). */
export function itemAtLine(layout: TranscriptLayout, index: number): { readonly item: number; readonly offset: number } {
  if (layout.lineCount === 0) return { item: 0, offset: 0 };
  const at = Math.min(index, layout.lineCount - 1);
  const item = itemContaining(layout.itemStarts, at);
  return { item, offset: at - (layout.itemStarts[item] ?? 0) };
}

/** One occurrence of the find text: its line and where in the line it starts. */
export interface FindMatch {
  readonly line: number;
  readonly start: number;
}

/**
 * Every occurrence of `query` in the laid-out lines, case-insensitively, top to bottom (what `/` counts and
 * n/N step through). A line is compared folded only when its lower case keeps its length, so positions hold.
 */
export function findMatches(layout: TranscriptLayout, query: string): FindMatch[] {
  const needle = query.toLowerCase();
  const matches: FindMatch[] = [];
  if (needle === '') return matches;
  for (let item = 0; item < layout.itemStarts.length; item++) {
    const start = layout.itemStarts[item]!;
    layout.itemRows(item).forEach((line, i) => {
      const lower = line.text.toLowerCase();
      const haystack = lower.length === line.text.length ? lower : line.text;
      for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) matches.push({ line: start + i, start: at });
    });
  }
  return matches;
}

/** The first match at or after line `from` (wrapping around to the first); -1 when there is none. */
export function firstMatchFrom(matches: readonly FindMatch[], from: number): number {
  if (matches.length === 0) return -1;
  const at = matches.findIndex((match) => match.line >= from);
  return at === -1 ? 0 : at;
}

function computeItemLines(item: TranscriptItem, index: number, width: number, options: LayoutOptions): TranscriptLine[] {
  const { turn } = item;
  switch (item.kind) {
    case 'fork':
      return [line('fork', item.text, '⋔', turn, index)];
    case 'turn': {
      const when = item.timestamp ? ` · ${localTimestamp(item.timestamp)}` : '';
      const code = item.code?.recorded ? ' · ⎌ files as they were recorded' : '';
      const header = line('turn', `turn ${turn}${when}${code}`, '▌', turn, index);
      const prompt = withClipNote([header, ...wrapped(item.text || '(empty prompt)', width).map((text) => line('user', text, '', turn, index))], item);
      const files = item.code?.files;
      return files && files.length > 0 ? [...prompt, line('files', `changed: ${files.map(oneLine).join(', ')}`, '±', turn, index)] : prompt;
    }
    case 'assistant':
      return withClipNote(wrapped(item.text, width).map((text, i) => line('assistant', text, i === 0 ? '●' : '', turn, index)), item);
    case 'tool-call':
      return [line('tool-call', item.args ? `${item.name} ${item.args}` : item.name, '»', turn, index)];
    case 'tool-output': {
      const kind: LineKind = item.isError ? 'tool-error' : 'tool-output';
      const all = item.text.split('\n');
      while (all.length > 0 && all[all.length - 1]!.trim() === '') all.pop();
      if (all.length === 0) return withClipNote([line(kind, '(no output)', '↳', turn, index)], item);
      if (options.expanded) return withClipNote(all.flatMap((text) => wrapped(text, width)).map((text, i) => line(kind, text, i === 0 ? '↳' : '', turn, index)), item);
      const shown = all.slice(0, COLLAPSED_OUTPUT_LINES).map((text, i) => line(kind, text, i === 0 ? '↳' : '', turn, index));
      const hidden = all.length - shown.length;
      if (hidden > 0) shown.push(line('more', `… ${hidden} more line${hidden === 1 ? '' : 's'} (e expands)`, '', turn, index));
      return withClipNote(shown, item);
    }
    case 'reasoning': {
      if (!options.showReasoning) return [];
      const text = item.text.trim() || (item.encrypted ? '(encrypted reasoning, no summary)' : '(empty reasoning)');
      return withClipNote(wrapped(text, width).map((one, i) => line('reasoning', one, i === 0 ? '∴' : '', turn, index)), item);
    }
    case 'compaction': {
      const header = line('compaction', 'conversation compacted: earlier turns were summarised', '≡', turn, index);
      if (!item.text.trim()) return [header];
      const summary = wrapped(item.text, width);
      const shown = options.expanded ? summary : summary.slice(0, 2);
      const out = [header, ...shown.map((text) => line('compaction', text, '', turn, index))];
      const hidden = summary.length - shown.length;
      if (hidden > 0) out.push(line('more', `… ${hidden} more line${hidden === 1 ? '' : 's'} of summary (e expands)`, '', turn, index));
      return withClipNote(out, item);
    }
    case 'system':
      return [line('system', item.text, '·', turn, index)];
  }
}

/**
 * The note under an item whose text the display read clipped: the TUI reads a few KiB of each long text (a
 * 200 MB session would not fit otherwise); `sessions show` reads every byte.
 */
function withClipNote(lines: TranscriptLine[], item: { readonly clippedBytes: number; readonly turn: number }): TranscriptLine[] {
  if (item.clippedBytes <= 0 || lines.length === 0) return lines;
  const at = lines[0]!.item;
  return [...lines, line('more', `… ${formatSize(item.clippedBytes)} more not read (sessions show prints it whole)`, '', item.turn, at)];
}


/**
 * Longest text handed to Ink for one row. Rows that are not wrapped (tool calls, collapsed outputs, context
 * lines) can be megabytes on one line; Ink measures the whole string to truncate it, on every frame.
 */
const MAX_ROW_CHARS = 2048;

function line(kind: LineKind, text: string, gutter: string, turn: number, item: number): TranscriptLine {
  return { kind, text: text.length > MAX_ROW_CHARS ? text.slice(0, MAX_ROW_CHARS) : text, gutter, turn, item };
}

function clean(text: string): string {
  return stripControl(text).replace(/\t/g, '    ');
}

function clippedOf(message: Message): number {
  let bytes = 0;
  for (const block of message.blocks) bytes += block.clippedBytes ?? 0;
  return bytes;
}

function textOf(message: Message): string {
  return message.blocks
    .map((block) => (block.type === 'text' ? block.text : block.type === 'image' ? IMAGE_PLACEHOLDER : ''))
    .filter(Boolean)
    .join('\n');
}

/** Tool arguments on one line: a JSON object as `key=value` pairs, anything else as recorded. */
export function toolArguments(input: string): string {
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return oneLine(input);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return oneLine(
      Object.entries(value as Record<string, unknown>)
        .map(([key, v]) => `${key}=${typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(' ') : JSON.stringify(v)}`)
        .join(' '),
    );
  }
  return oneLine(typeof value === 'string' ? value : input);
}

/** The turns' items marked with what the agent recorded of their files (index 0: turn 1); the others as they were. */
export function withCodeMarks(items: readonly TranscriptItem[], marks: readonly TurnCodeMark[]): TranscriptItem[] {
  return items.map((item) => {
    const mark = item.kind === 'turn' ? marks[item.turn - 1] : undefined;
    // A turn with nothing recorded and no file named is left as it was.
    if (mark === undefined || item.kind !== 'turn' || (!mark.recorded && !mark.files?.length)) return item;
    return { ...item, code: { recorded: mark.recorded, files: mark.files } };
  });
}
