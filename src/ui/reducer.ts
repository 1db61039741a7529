import type { CatalogSession } from '../catalog/scan.js';
import type { Problem } from '../core/formats/types.js';
import { continueChoices } from '../core/handoff/index.js';
import type { Agent } from '../core/model.js';
import { oneLine, tildePath } from '../core/text.js';
import type { Action } from './actions.js';
import { resolveAction, splitKeys } from './keymap.js';
import { listGeometry, noticeRows, transcriptHeight, type ScreenSize } from './geometry.js';
import { contentQuery, initialState, searchSettled, type BrowserState, type ForkState, type InitialOptions, type ListRow, type Mode, type Notice, type SortKey, type TranscriptState } from './state.js';
import { findMatches, firstMatchFrom, itemAtLine, layoutTranscript, turnAtLine, type TranscriptItem, type TranscriptLayout } from './transcript-layout.js';
import { isUnder } from '../catalog/locations.js';
import { sessionKey } from '../core/model.js';

export type { Action, ResumeOutcome } from './actions.js';

/** The one reducer of the browser: list selection and window, query, mode, transcript scroll, prompts. */
/**
 * The browser's first state: with the remembered first screen already in it, so the very first frame has rows
 * (and the plain-text first screen painted before Ink loads, prepaint.ts, shows the same ones).
 */
export function firstState(options: InitialOptions, cached: readonly CatalogSession[]): BrowserState {
  const empty = initialState(options);
  return cached.length > 0 ? browserReducer(empty, { type: 'cachedCatalog', sessions: cached }) : empty;
}

export function browserReducer(state: BrowserState, action: Action): BrowserState {
  switch (action.type) {
    case 'key': {
      let next = state;
      for (const one of splitKeys(action.input, action.key)) {
        const resolved = resolveAction(one.input, one.key, next.mode);
        if (resolved) next = browserReducer(next, resolved);
      }
      return next;
    }
    case 'watchReady':
      return { ...state, watching: true };
    case 'resize':
      return relayoutTranscript(withRows({ ...state, size: action.size }, 'keep'));
    case 'tick':
      return { ...state, now: action.now };
    case 'scanProgress':
      return state.loading ? { ...state, loading: action.progress } : state;
    case 'cachedCatalog': {
      // Unvalidated sessions from the persisted catalog (its first screen, then all of it): something to look at
      // while the scan runs. Once the scan is done it has the last word.
      if (!state.loading) return state;
      const sessions = sortSessions([...action.sessions, ...hostRows(state)], state.sort);
      return withRows({ ...state, sessions, byKey: keyed(sessions), ...initialScope(state, sessions) }, state.sessions.length > 0 ? 'keep' : 'top');
    }
    case 'scanDone': {
      // Hosts' rows arrive on their own and are not this machine's scan's to replace.
      const sessions = sortSessions([...action.sessions, ...hostRows(state)], state.sort);
      return withRows(
        { ...state, loading: null, sessions, byKey: keyed(sessions), problems: action.problems, ...initialScope(state, sessions) },
        state.sessions.length > 0 ? 'keep' : 'top',
      );
    }
    case 'catalogChanged':
      return catalogChanged(state, action.upserted, action.removed, action.problems);
    case 'searchResults': {
      if (action.query !== state.query.trim()) return state;
      // The same query ranked further (more candidates scored): keep what the user has selected.
      const refined = state.search?.query === action.query;
      const next = withRows({ ...state, search: { query: action.query, hits: action.hits, pending: action.pending, counted: action.counted ?? action.pending === 0, catalog: action.catalog }, openWhenSearched: false }, refined ? 'keep' : 'top');
      return state.openWhenSearched ? open(next) : next;
    }
    case 'contentResults': {
      if (action.query !== contentQuery(state.query)) return state;
      const same = state.content?.query === action.query;
      const hits = same ? [...state.content!.hits, ...action.hits] : action.hits;
      return withRows({ ...state, content: { query: action.query, hits, done: action.done, error: action.error ?? null } }, same ? 'keep' : 'top');
    }
    case 'toggleContent': {
      // `>` in front of the query searches inside the transcripts; Ctrl-G puts it there or takes it away.
      const trimmed = state.query.trimStart();
      const query = trimmed.startsWith('>') ? trimmed.slice(1).trimStart() : `>${trimmed}`;
      return setQuery({ ...state, mode: 'search', notice: null }, query);
    }
    case 'move':
      return select(state, state.selected + action.delta);
    case 'movePage':
      return select(state, state.selected + action.direction * Math.max(1, listGeometry(state.size, noticeRows(state.notice, state.size.columns)).listHeight - 1));
    case 'moveFirst':
      return select(state, 0);
    case 'moveLast':
      return select(state, state.rows.length - 1);
    case 'open':
      if (state.mode === 'search' && !searchSettled(state)) return { ...state, openWhenSearched: true };
      return open(state);
    case 'startSearch':
      return { ...state, mode: 'search', notice: null };
    case 'queryInput':
      return setQuery(state, state.query + action.text);
    case 'queryBackspace':
      return setQuery(state, [...state.query].slice(0, -1).join(''));
    case 'queryKill':
      return setQuery(state, '');
    case 'clearQuery':
      if (state.query === '') return { ...state, mode: 'list', notice: null, openWhenSearched: false };
      return withRows({ ...state, query: '', search: null, mode: 'list', notice: null, openWhenSearched: false }, 'keep');
    case 'toggleScope':
      return withRows({ ...state, scope: state.scope === 'cwd' ? 'all' : 'cwd', scopeChosen: true, scopeNote: null, notice: null }, 'keep');
    case 'toggleSort': {
      const sort: SortKey = state.sort === 'updated' ? 'created' : 'updated';
      const sessions = sortSessions(state.sessions, sort);
      return withRows({ ...state, sort, sessions, notice: null }, 'keep');
    }
    case 'showHelp':
      return { ...state, mode: 'help', overlayReturn: overlayBase(state) };
    case 'showProblems':
      return { ...state, mode: 'problems', overlayReturn: overlayBase(state) };
    case 'closeOverlay':
      return { ...state, mode: state.overlayReturn };
    case 'quit':
      return { ...state, decision: { kind: 'quit' } };
    case 'resume': {
      const session = state.mode === 'transcript' || state.mode === 'find' ? state.transcript?.session : state.rows[state.selected]?.session;
      return session ? { ...state, resumeRequest: session } : state;
    }
    case 'resumeChecked':
      if (action.outcome.kind === 'go') {
        const remote = action.outcome.remote;
        return { ...state, resumeRequest: null, decision: { kind: 'resume', session: action.session, ...(remote ? { remote } : {}) } };
      }
      if (action.outcome.kind === 'refuse') return { ...state, resumeRequest: null, notice: { text: action.outcome.message, tone: 'error' } };
      return {
        ...state,
        resumeRequest: null,
        mode: 'confirm',
        confirm: { session: action.session, message: action.outcome.message, returnTo: state.mode === 'confirm' ? 'list' : state.mode },
      };
    case 'confirmYes':
      return state.confirm ? { ...state, decision: { kind: 'resume', session: state.confirm.session, here: true } } : state;
    case 'confirmNo':
      return { ...state, mode: state.confirm?.returnTo ?? 'list', confirm: null };
    case 'transcriptLoaded':
      return transcriptLoaded(state, action.key, action.items, action.partial === true);
    case 'transcriptFailed':
      if (state.transcript?.key !== action.key) return state;
      return { ...state, transcript: { ...state.transcript, status: 'error', error: action.message } };
    case 'scroll':
      return scrollTo(state, (t) => t.top + action.delta);
    case 'scrollPage':
      return scrollTo(state, (t) => t.top + action.direction * Math.max(1, viewHeight(state) - 2));
    case 'scrollHome':
      return scrollTo(state, () => 0);
    case 'scrollEnd':
      return scrollTo(state, () => Number.MAX_SAFE_INTEGER, (layout) => layout.turnStarts.length);
    case 'nextTurn':
      return jumpTurn(state, 1);
    case 'prevTurn':
      return jumpTurn(state, -1);
    case 'toggleExpand':
      return retoggle(state, (t) => ({ ...t, expanded: !t.expanded }));
    case 'toggleReasoning':
      return retoggle(state, (t) => ({ ...t, showReasoning: !t.showReasoning }));
    case 'startFind':
      // A new find starts empty (the last one is still what N and P look for until Enter).
      return state.transcript?.status === 'ready' ? { ...state, mode: 'find', transcript: { ...state.transcript, findDraft: '' } } : state;
    case 'findInput':
      return updateTranscript(state, (t) => ({ ...t, findDraft: t.findDraft + action.text }));
    case 'findBackspace':
      return updateTranscript(state, (t) => ({ ...t, findDraft: [...t.findDraft].slice(0, -1).join('') }));
    case 'findKill':
      return updateTranscript(state, (t) => ({ ...t, findDraft: '' }));
    case 'findCancel':
      return { ...state, mode: 'transcript' };
    case 'findSubmit': {
      const t = state.transcript;
      if (!t?.layout) return { ...state, mode: 'transcript' };
      // An empty Enter repeats the last find (the next match), as in less and vim.
      if (t.findDraft === '') return t.find ? findStep(state, 1) : { ...state, mode: 'transcript' };
      const matches = findMatches(t.layout, t.findDraft);
      const committed = { ...state, mode: 'transcript' as const, transcript: { ...t, find: t.findDraft, findMatches: matches, findCurrent: -1 } };
      return showMatch(committed, firstMatchFrom(matches, t.top));
    }
    case 'findNext': {
      if (!state.transcript?.find) return { ...state, notice: { text: 'press / to search the transcript first', tone: 'info' } };
      return findStep(state, action.direction);
    }
    case 'startFork':
      return startFork(state);
    case 'forkInput':
      return state.fork?.status === 'editing' ? { ...state, fork: { ...state.fork, branchName: state.fork.branchName + action.text } } : state;
    case 'forkBackspace':
      return state.fork?.status === 'editing' ? { ...state, fork: { ...state.fork, branchName: [...state.fork.branchName].slice(0, -1).join('') } } : state;
    case 'forkTarget':
      return state.fork?.status === 'editing' ? { ...state, fork: { ...state.fork, target: nextAgent(state.fork, action.step) } } : state;
    case 'forkSubmit':
      return state.fork?.status === 'editing' ? { ...state, fork: { ...state.fork, status: 'working', error: null } } : state;
    case 'forkCancel':
      if (state.fork?.status === 'working') return state;
      return { ...state, mode: state.transcript ? 'transcript' : 'list', fork: null };
    case 'forkDone':
      return forkDone(state, action.session, action.resumeCommand);
    case 'forkFailed':
      return state.fork ? { ...state, fork: { ...state.fork, status: 'error', error: action.message } } : state;
    case 'back':
      return { ...state, mode: 'list', transcript: null, notice: null };
    case 'previewLoaded':
      return action.preview.key === state.selectedKey ? { ...state, preview: action.preview } : state;
    case 'dismissNotice':
      return { ...state, notice: null };
    case 'hostUpdate': {
      const known = state.hosts.some((host) => host.name === action.host);
      const view = { name: action.host, status: action.status };
      const hosts = known ? state.hosts.map((host) => (host.name === action.host ? view : host)) : [...state.hosts, view];
      if (action.sessions === null) return { ...state, hosts };
      const kept = new Set(action.sessions.map(sessionKey));
      const removed = state.sessions.filter((session) => session.host === action.host && !kept.has(sessionKey(session))).map(sessionKey);
      return catalogChanged({ ...state, hosts }, action.sessions, removed);
    }
    case 'refreshHosts':
      if (state.hosts.length === 0) return { ...state, notice: { text: 'no hosts to read: name them with --host or "hosts" in the config', tone: 'info' } };
      return { ...state, hostsRefresh: state.hostsRefresh + 1, notice: null };
  }
}

function hostRows(state: BrowserState): CatalogSession[] {
  return state.hosts.length === 0 ? [] : state.sessions.filter((session) => session.host !== undefined);
}

export function sortSessions(sessions: readonly CatalogSession[], sort: SortKey): CatalogSession[] {
  const field = sort === 'updated' ? 'updatedAt' : 'createdAt';
  return [...sessions].sort((a, b) => (a[field] < b[field] ? 1 : a[field] > b[field] ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The current directory when it has sessions, else all of them, saying why; a scope the user chose stays. */
function initialScope(state: BrowserState, sessions: readonly CatalogSession[]): Pick<BrowserState, 'scope' | 'scopeNote'> {
  if (state.scopeChosen) return { scope: state.scope, scopeNote: null };
  const here = sessions.some((session) => isUnder(session.cwd, state.cwd));
  if (here || sessions.length === 0) return { scope: 'cwd', scopeNote: null };
  return { scope: 'all', scopeNote: `no sessions in ${tildePath(state.cwd, state.homeDir)}: showing all` };
}

function keyed(sessions: readonly CatalogSession[]): Map<string, CatalogSession> {
  return new Map(sessions.map((session) => [sessionKey(session), session]));
}

function overlayBase(state: BrowserState): Mode {
  return state.mode === 'help' || state.mode === 'problems' ? state.overlayReturn : state.mode;
}

/** Recompute the visible rows; keep the selected session selected ('keep') or select the best match ('top'). */
function withRows(state: BrowserState, policy: 'keep' | 'top'): BrowserState {
  const inScope = (session: CatalogSession): boolean => state.scope === 'all' || isUnder(session.cwd, state.cwd);
  const rows: ListRow[] = [];
  let hiddenMatches = 0;
  const query = state.query.trim();
  const content = contentQuery(state.query);
  if (content !== null) {
    // What content search found for this text, in the order found, as the catalog's rows (files of one
    // conversation found apart are one row, their matches added up).
    if (state.content?.query === content) {
      const byPath = pathIndex(state.sessions);
      const seen = new Map<string, number>();
      for (const found of state.content.hits) {
        // A store's hit names its conversation by key (the key carries the host); a file's, by the host's path.
        const session = found.key !== undefined ? state.byKey.get(found.key) : found.paths.map((path) => byPath.get(pathKey(found.host, path))).find((one) => one !== undefined);
        if (!session) continue;
        const key = sessionKey(session);
        const at = seen.get(key);
        if (at !== undefined) {
          if (at >= 0) {
            const row = rows[at]!;
            rows[at] = { ...row, content: { ...row.content!, matches: row.content!.matches + found.matches } };
          }
          continue;
        }
        if (inScope(session)) {
          seen.set(key, rows.length);
          rows.push({ session, hit: null, content: found });
        } else {
          seen.set(key, -1);
          hiddenMatches++;
        }
      }
    }
  } else if (query && state.search) {
    // Hits of a search over this very catalog carry their sessions: no look-up per match (80k for one letter).
    const current = state.search.catalog === state.sessions;
    for (const hit of state.search.hits) {
      const session = current && hit.session ? hit.session : state.byKey.get(hit.key);
      if (!session) continue;
      if (inScope(session)) rows.push({ session, hit });
      else hiddenMatches++;
    }
  } else {
    for (const session of state.sessions) if (inScope(session)) rows.push({ session, hit: null });
  }
  let selected = 0;
  // A query being typed keeps its best match selected, however the results move, until the user moves.
  if (query && state.followTop) policy = 'top';
  if (policy === 'keep') {
    const kept = state.selectedKey === null ? -1 : rows.findIndex((row) => sessionKey(row.session) === state.selectedKey);
    selected = kept >= 0 ? kept : Math.min(state.selected, rows.length - 1);
  }
  return windowed({ ...state, rows, hiddenMatches }, Math.max(0, selected), policy === 'top' ? 0 : state.listTop);
}

const pathIndexes = new WeakMap<readonly CatalogSession[], Map<string, CatalogSession>>();

/** A file on a machine (a host's paths can be this machine's too). */
function pathKey(host: string | undefined, path: string): string {
  return host === undefined ? path : `${host}\u0000${path}`;
}

/** Each session file's session, by machine and path (made once per catalog version: content search looks its hits up here). */
function pathIndex(sessions: readonly CatalogSession[]): Map<string, CatalogSession> {
  let index = pathIndexes.get(sessions);
  if (!index) {
    index = new Map();
    for (const session of sessions) for (const path of session.paths) index.set(pathKey(session.host, path), session);
    pathIndexes.set(sessions, index);
  }
  return index;
}

function select(state: BrowserState, index: number): BrowserState {
  if (state.rows.length === 0) return state;
  return windowed({ ...state, followTop: false }, Math.max(0, Math.min(state.rows.length - 1, index)), state.listTop);
}

/** Set the selection and move the list window just enough to keep it visible. */
function windowed(state: BrowserState, selected: number, top: number): BrowserState {
  const height = listGeometry(state.size, noticeRows(state.notice, state.size.columns)).listHeight;
  const count = state.rows.length;
  let listTop = Math.min(top, Math.max(0, count - height));
  if (selected < listTop) listTop = selected;
  if (selected >= listTop + height) listTop = selected - height + 1;
  listTop = Math.max(0, listTop);
  const row = state.rows[selected];
  const selectedKey = row ? sessionKey(row.session) : null;
  const preview = state.preview && state.preview.key === selectedKey ? state.preview : null;
  return { ...state, selected: row ? selected : 0, selectedKey, listTop, preview };
}

function setQuery(state: BrowserState, query: string): BrowserState {
  const cleaned = oneLine(query) === '' ? '' : query.replace(/[\r\n\t]/g, ' ');
  if (cleaned.trim() === '') return withRows({ ...state, query: cleaned, search: null, openWhenSearched: false, followTop: false }, 'keep');
  return { ...state, query: cleaned, openWhenSearched: false, followTop: true };
}

function catalogChanged(state: BrowserState, upserted: readonly CatalogSession[], removed: readonly string[], problems?: readonly Problem[]): BrowserState {
  const byKey = new Map(state.byKey);
  for (const key of removed) byKey.delete(key);
  for (const session of upserted) byKey.set(sessionKey(session), session);
  const sessions = sortSessions([...byKey.values()], state.sort);
  let transcript = state.transcript;
  if (transcript) {
    const current = byKey.get(transcript.key);
    if (current && current !== transcript.session) transcript = { ...transcript, session: current };
  }
  const next = { ...state, sessions, byKey, transcript, problems: problems ? [...state.problems, ...problems] : state.problems };
  // The first scan may still be running when the watcher reports: a session found now counts as "here" too.
  if (state.scopeNote && state.scope === 'all' && upserted.some((session) => isUnder(session.cwd, state.cwd)) && state.rows.length === 0) {
    return withRows({ ...next, scope: 'cwd', scopeNote: null }, 'keep');
  }
  return withRows(next, 'keep');
}

function open(state: BrowserState): BrowserState {
  const row = state.rows[state.selected];
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
function viewHeight(state: BrowserState): number {
  return transcriptHeight(state.size, noticeRows(state.notice, state.size.columns));
}

function maxTop(layout: TranscriptLayout, state: BrowserState): number {
  return Math.max(0, layout.lineCount - viewHeight(state));
}

function clampTop(top: number, layout: TranscriptLayout, state: BrowserState): number {
  return Math.max(0, Math.min(maxTop(layout, state), top));
}

function transcriptLoaded(state: BrowserState, key: string, items: readonly TranscriptItem[], partial: boolean): BrowserState {
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

function updateTranscript(state: BrowserState, update: (t: TranscriptState) => TranscriptState): BrowserState {
  return state.transcript ? { ...state, transcript: update(state.transcript) } : state;
}

/** Re-layout after a width change or a toggle, keeping the item at the top of the screen at the top. */
function relayoutTranscript(state: BrowserState, previous: TranscriptState | null = state.transcript): BrowserState {
  const t = state.transcript;
  if (!t || t.status !== 'ready' || !previous?.layout) return state;
  const anchor = itemAtLine(previous.layout, previous.top);
  const layout = layoutOf(t, state.size);
  const start = layout.itemStarts[anchor.item] ?? 0;
  const end = layout.itemStarts[anchor.item + 1] ?? layout.lineCount;
  const top = clampTop(Math.min(start + anchor.offset, Math.max(start, end - 1)), layout, state);
  return { ...state, transcript: { ...t, layout, top, ...refound(t, layout) } };
}

function retoggle(state: BrowserState, toggle: (t: TranscriptState) => TranscriptState): BrowserState {
  const t = state.transcript;
  if (!t || t.status !== 'ready') return state;
  return relayoutTranscript({ ...state, transcript: toggle(t) }, t);
}

function scrollTo(state: BrowserState, target: (t: TranscriptState) => number, turnFor?: (layout: TranscriptLayout) => number): BrowserState {
  const t = state.transcript;
  if (!t?.layout) return state;
  const top = clampTop(target(t), t.layout, state);
  const turn = turnFor ? turnFor(t.layout) : Math.max(t.layout.turnStarts.length > 0 ? 1 : 0, turnAtLine(t.layout, top));
  return { ...state, transcript: { ...t, top, turn } };
}

function jumpTurn(state: BrowserState, direction: 1 | -1): BrowserState {
  const t = state.transcript;
  const layout = t?.layout;
  if (!t || !layout || layout.turnStarts.length === 0) return state;
  let turn = t.turn;
  const currentStart = layout.turnStarts[turn - 1] ?? 0;
  if (direction === -1 && t.top > currentStart && clampTop(currentStart, layout, state) !== t.top) {
    // Inside a turn, `p` first goes back to its own start.
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
function findStep(state: BrowserState, direction: 1 | -1): BrowserState {
  const t = state.transcript!;
  const count = t.findMatches.length;
  const next = t.findCurrent < 0 ? (direction === 1 ? firstMatchFrom(t.findMatches, t.top) : (firstMatchFrom(t.findMatches, t.top) - 1 + count) % count) : (t.findCurrent + direction + count) % count;
  return showMatch({ ...state, mode: 'transcript' }, count === 0 ? -1 : next);
}

/** Scroll to match `index` (a third down the screen) and make it the current one; say so when there is none. */
function showMatch(state: BrowserState, index: number): BrowserState {
  const t = state.transcript;
  if (!t?.layout) return state;
  const match = t.findMatches[index];
  if (!match) return { ...state, transcript: { ...t, findCurrent: -1 }, notice: { text: `not found: ${t.find}`, tone: 'error' } };
  const top = clampTop(match.line - Math.floor(viewHeight(state) / 3), t.layout, state);
  const turn = Math.max(t.layout.turnStarts.length > 0 ? 1 : 0, turnAtLine(t.layout, match.line));
  return { ...state, transcript: { ...t, top, turn, findCurrent: index }, notice: null };
}

function startFork(state: BrowserState): BrowserState {
  const t = state.transcript;
  if (!t || t.status !== 'ready' || !t.layout) return state;
  const turns = t.layout.turnStarts.length;
  const notice = (text: string): BrowserState => ({ ...state, notice: { text, tone: 'error' } satisfies Notice });
  // Turn numbers are final only once every line is read (a later line can roll turns back).
  if (t.partial) return { ...state, notice: { text: 'still reading the transcript: f works once it is read', tone: 'info' } };
  if (turns < 2) return notice('this session has fewer than 2 user turns: a fork before a turn would keep nothing');
  if (t.turn < 2) return notice('a fork keeps the turns before the selected one: select turn 2 or later (n/p) and press f');
  const item = t.items.find((one) => one.kind === 'turn' && one.turn === t.turn);
  const turnText = item && item.kind === 'turn' ? oneLine(item.text) : '';
  return { ...state, mode: 'fork', fork: { session: t.session, atTurn: t.turn, turnText, branchName: '', target: t.session.agent, status: 'editing', error: null } };
}

/** The next agent to continue in: the session's own (a fork) or one a conversation can be handed off to. */
function nextAgent(fork: ForkState, step: 1 | -1): Agent {
  const choices = continueChoices(fork.session.agent);
  const index = choices.indexOf(fork.target);
  return choices[(index + step + choices.length) % choices.length]!;
}

function forkDone(state: BrowserState, session: CatalogSession, resumeCommand: string): BrowserState {
  const key = sessionKey(session);
  const byKey = new Map(state.byKey);
  // The watcher may have listed the new file first, before knowing it is a fork: the fork's own row says so.
  const listed = byKey.get(key);
  byKey.set(key, listed?.forkedFrom ? listed : session);
  const sessions = sortSessions([...byKey.values()], state.sort);
  const scope = state.scope === 'cwd' && !isUnder(session.cwd, state.cwd) ? 'all' : state.scope;
  const kept = state.fork?.atTurn ? state.fork.atTurn - 1 : 0;
  const handedOff = state.fork !== null && state.fork.target !== state.fork.session.agent;
  const notice: Notice = {
    text: `${handedOff ? `handed off to ${session.agent}` : 'forked'} before turn ${kept + 1} (kept ${kept} turn${kept === 1 ? '' : 's'}) → ${tildePath(session.path, state.homeDir)}`,
    detail: `resume it: ${resumeCommand}   (or press r)`,
    tone: 'success',
  };
  const next = withRows(
    { ...state, sessions, byKey, scope, query: '', search: null, mode: 'list', transcript: null, fork: null, notice, selectedKey: key },
    'keep',
  );
  return next;
}
