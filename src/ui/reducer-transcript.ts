// The transcript's part of the browser's one reducer (reducer.ts): opening a session's transcript, its layout and
// scroll, turns, find and its matches, and the start of a fork.
import { continueChoices } from '../core/handoff/index.js';
import type { Agent } from '../core/model.js';
import { sessionKey } from '../core/model.js';
import { oneLine } from '../core/text.js';
import { noticeRows, transcriptHeight, type ScreenSize } from './geometry.js';
import { sortSessions, withRows } from './reducer-list.js';
import { contentQuery, type BrowserState, type ForkState, type Notice, type TranscriptState } from './state.js';
import { findMatches, firstMatchFrom, itemAtLine, layoutTranscript, turnAtLine, type TranscriptItem, type TranscriptLayout } from './transcript-layout.js';

export function open(state: BrowserState): BrowserState {
  const row = state.rows.at(state.selected);
  if (!row) return state;
  // From content search: find the text in the transcript, and show its first match once read.
  const find = row.content ? (contentQuery(state.query) ?? '') : '';
  const transcript: TranscriptState = {
    key: sessionKey(row.session),
    session: row.session,
    status: 'loading',
    error: null,
    items: [],
    partial: false,
    layout: null,
    top: 0,
    turn: 0,
    expanded: false,
    showReasoning: false,
    find,
    findDraft: '',
    findMatches: [],
    findCurrent: -1,
    findOnLoad: find !== '',
  };
  return { ...state, mode: 'transcript', transcript, notice: null };
}

function layoutOf(t: TranscriptState, size: ScreenSize): TranscriptLayout {
  return layoutTranscript(t.items, size.columns, { expanded: t.expanded, showReasoning: t.showReasoning });
}

/** Rows of transcript on screen in this state. */
export function viewHeight(state: BrowserState): number {
  return transcriptHeight(state.size, noticeRows(state.notice, state.size.columns));
}

export function maxTop(layout: TranscriptLayout, state: BrowserState): number {
  return Math.max(0, layout.lineCount - viewHeight(state));
}

export function clampTop(top: number, layout: TranscriptLayout, state: BrowserState): number {
  return Math.max(0, Math.min(maxTop(layout, state), top));
}

export function transcriptLoaded(state: BrowserState, key: string, items: readonly TranscriptItem[], partial: boolean): BrowserState {
  const read = transcriptRead(state, key, items, partial);
  return read === state ? state : landOnFind(read, partial);
}

/**
 * A transcript opened from content search shows its first match as soon as what is read holds one; when the
 * whole transcript is read and shows none, it says where the text must be.
 */
function landOnFind(state: BrowserState, partial: boolean): BrowserState {
  const t = state.transcript;
  if (!t?.findOnLoad || !t.layout) return state;
  if (t.findMatches.length > 0) return showMatch({ ...state, transcript: { ...t, findOnLoad: false } }, 0);
  if (partial) return state;
  const notice: Notice = { text: `"${t.find}" is in this session's files but not in what the transcript shows (cut tool outputs, injected context): sessions show prints it all`, tone: 'info' };
  return { ...state, transcript: { ...t, findOnLoad: false }, notice };
}

function transcriptRead(state: BrowserState, key: string, items: readonly TranscriptItem[], partial: boolean): BrowserState {
  const t = state.transcript;
  if (!t || t.key !== key) return state;
  // A re-read's start must not replace a transcript already shown whole.
  if (partial && t.status === 'ready' && !t.partial) return state;
  const reloaded = t.status === 'ready' && t.layout !== null;
  const base: TranscriptState = { ...t, status: 'ready', error: null, items, partial };
  const layout = layoutOf(base, state.size);
  if (reloaded && t.partial) {
    // The rest of a transcript whose start is on screen: the reader stays where they are.
    const top = clampTop(t.top, layout, state);
    // The start's last message can grow (Claude streams one answer over several lines): drop a find highlight.
    const next = { ...state, transcript: { ...base, layout, top, turn: Math.min(t.turn, layout.turnStarts.length), ...refound(base, layout) } };
    return partial ? next : withExactTurns(next, key, layout.turnStarts.length);
  }
  if (reloaded) {
    // Live update of the open transcript: stay where the reader is, unless they were following the end.
    const atEnd = t.top >= maxTop(t.layout!, state);
    const top = atEnd ? maxTop(layout, state) : clampTop(t.top, layout, state);
    return { ...state, transcript: { ...base, layout, top, turn: atEnd ? layout.turnStarts.length : t.turn, ...refound(base, layout) } };
  }
  const opened = { ...state, transcript: { ...base, layout, top: 0, turn: layout.turnStarts.length > 0 ? 1 : 0, ...refound(base, layout) } };
  return partial ? opened : withExactTurns(opened, key, layout.turnStarts.length);
}

/** A big session's row shows a lower bound (`12+`) until its transcript is read: then the list learns the count. */
function withExactTurns(state: BrowserState, key: string, turns: number): BrowserState {
  const listed = state.byKey.get(key);
  if (!listed || listed.userTurnsExact) return state;
  const byKey = new Map(state.byKey).set(key, { ...listed, userTurns: turns, userTurnsExact: true });
  return withRows({ ...state, byKey, sessions: sortSessions([...byKey.values()], state.sort) }, 'keep');
}

export function updateTranscript(state: BrowserState, update: (t: TranscriptState) => TranscriptState): BrowserState {
  return state.transcript ? { ...state, transcript: update(state.transcript) } : state;
}

/** Re-layout after a width change or a toggle, keeping the item at the top of the screen at the top. */
export function relayoutTranscript(state: BrowserState, previous: TranscriptState | null = state.transcript): BrowserState {
  const t = state.transcript;
  if (!t || t.status !== 'ready' || !previous?.layout) return state;
  const anchor = itemAtLine(previous.layout, previous.top);
  const layout = layoutOf(t, state.size);
  const start = layout.itemStarts[anchor.item] ?? 0;
  const end = layout.itemStarts[anchor.item + 1] ?? layout.lineCount;
  const top = clampTop(Math.min(start + anchor.offset, Math.max(start, end - 1)), layout, state);
  return { ...state, transcript: { ...t, layout, top, ...refound(t, layout) } };
}

export function retoggle(state: BrowserState, toggle: (t: TranscriptState) => TranscriptState): BrowserState {
  const t = state.transcript;
  if (!t || t.status !== 'ready') return state;
  return relayoutTranscript({ ...state, transcript: toggle(t) }, t);
}

export function scrollTo(state: BrowserState, target: (t: TranscriptState) => number, turnFor?: (layout: TranscriptLayout) => number): BrowserState {
  const t = state.transcript;
  if (!t?.layout) return state;
  const top = clampTop(target(t), t.layout, state);
  const turn = turnFor ? turnFor(t.layout) : Math.max(t.layout.turnStarts.length > 0 ? 1 : 0, turnAtLine(t.layout, top));
  return { ...state, transcript: { ...t, top, turn } };
}

export function jumpTurn(state: BrowserState, direction: 1 | -1): BrowserState {
  const t = state.transcript;
  const layout = t?.layout;
  if (!t || !layout || layout.turnStarts.length === 0) return state;
  let turn = t.turn;
  const currentStart = layout.turnStarts[turn - 1] ?? 0;
  if (direction === -1 && t.top > currentStart && clampTop(currentStart, layout, state) !== t.top) {
    // Inside a turn, `[` first goes back to its own start.
  } else {
    turn = Math.max(1, Math.min(layout.turnStarts.length, turn + direction));
  }
  const top = clampTop(layout.turnStarts[turn - 1]!, layout, state);
  return { ...state, transcript: { ...t, top, turn } };
}

/** The find's matches in a new layout (a width change, a toggle, more lines read); N starts again from the screen. */
function refound(t: TranscriptState, layout: TranscriptLayout): Pick<TranscriptState, 'findMatches' | 'findCurrent'> {
  return { findMatches: t.find ? findMatches(layout, t.find) : [], findCurrent: -1 };
}

/** N / P: the next or previous match, wrapping around; before the first, the first one from the top of the screen. */
export function findStep(state: BrowserState, direction: 1 | -1): BrowserState {
  const t = state.transcript!;
  const count = t.findMatches.length;
  const next = t.findCurrent < 0 ? (direction === 1 ? firstMatchFrom(t.findMatches, t.top) : (firstMatchFrom(t.findMatches, t.top) - 1 + count) % count) : (t.findCurrent + direction + count) % count;
  return showMatch({ ...state, mode: 'transcript' }, count === 0 ? -1 : next);
}

/** Scroll to match `index` (a third down the screen) and make it the current one; say so when there is none. */
export function showMatch(state: BrowserState, index: number): BrowserState {
  const t = state.transcript;
  if (!t?.layout) return state;
  const match = t.findMatches[index];
  if (!match) return { ...state, transcript: { ...t, findCurrent: -1 }, notice: { text: `not found: ${t.find}`, tone: 'error' } };
  const top = clampTop(match.line - Math.floor(viewHeight(state) / 3), t.layout, state);
  const turn = Math.max(t.layout.turnStarts.length > 0 ? 1 : 0, turnAtLine(t.layout, match.line));
  return { ...state, transcript: { ...t, top, turn, findCurrent: index }, notice: null };
}

export function startFork(state: BrowserState): BrowserState {
  const t = state.transcript;
  if (!t || t.status !== 'ready' || !t.layout) return state;
  const turns = t.layout.turnStarts.length;
  const notice = (text: string): BrowserState => ({ ...state, notice: { text, tone: 'error' } satisfies Notice });
  // Turn numbers are final only once every line is read (a later line can roll turns back).
  if (t.partial) return { ...state, notice: { text: 'still reading the transcript: f works once it is read', tone: 'info' } };
  if (turns < 1) return notice('this session has no user turn: there is nothing to fork');
  const item = t.items.find((one) => one.kind === 'turn' && one.turn === t.turn);
  const turnText = item && item.kind === 'turn' ? oneLine(item.text) : '';
  // On turn 1 nothing comes before it: the whole session is what a fork can carry.
  const codeRecorded = item !== undefined && item.kind === 'turn' && item.code?.recorded === true && t.turn >= 2;
  const fork: ForkState = { session: t.session, atTurn: t.turn, whole: t.turn < 2, turns, turnText, branchName: '', target: t.session.agent, codeRecorded, withCode: false, status: 'editing', error: null };
  return { ...state, mode: 'fork', fork };
}

/** The list's menu: fork or hand off the selected row's whole session, without reading it first. */
export function startForkWhole(state: BrowserState): BrowserState {
  const session = state.rows.at(state.selected)?.session;
  if (!session) return state;
  if (session.userTurns < 1) return { ...state, notice: { text: 'this session has no user turn: there is nothing to fork', tone: 'error' } };
  const fork: ForkState = { session, atTurn: 0, whole: true, turns: session.userTurns, turnText: '', branchName: '', target: session.agent, codeRecorded: false, withCode: false, status: 'editing', error: null };
  return { ...state, mode: 'fork', fork };
}

/** The next agent to continue in: the session's own (a fork) or one a conversation can be handed off to. */
export function nextAgent(fork: ForkState, step: 1 | -1): Agent {
  const choices = continueChoices(fork.session.agent);
  const index = choices.indexOf(fork.target);
  return choices[(index + step + choices.length) % choices.length]!;
}

/** ↑↓ in the fork prompt: before the selected turn, the same with the code as it was (where the agent recorded it), and every turn. */
export function nextExtent(fork: ForkState, step: 1 | -1): Pick<ForkState, 'whole' | 'withCode'> {
  const extents: Pick<ForkState, 'whole' | 'withCode'>[] = [{ whole: false, withCode: false }];
  if (fork.codeRecorded) extents.push({ whole: false, withCode: true });
  extents.push({ whole: true, withCode: false });
  const at = extents.findIndex((one) => one.whole === fork.whole && one.withCode === fork.withCode);
  return extents[(at + step + extents.length) % extents.length]!;
}
