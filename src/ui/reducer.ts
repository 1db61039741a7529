import type { CatalogSession } from '../catalog/scan.js';
import { isUnder } from '../catalog/locations.js';
import { sessionKey } from '../core/model.js';
import { tildePath } from '../core/text.js';
import type { Action } from './actions.js';
import { listGeometry, noticeRows } from './geometry.js';
import { resolveAction, splitKeys } from './keymap.js';
import { menuItemForKey, menuItems, type MenuItem } from './menu.js';
import { catalogChanged, hostRows, initialScope, keyed, select, setQuery, sortSessions, withContentAppended, withContentSnippets, withRows } from './reducer-list.js';
import { findStep, jumpTurn, nextAgent, nextExtent, open, relayoutTranscript, retoggle, scrollTo, showMatch, startFork, startForkWhole, transcriptLoaded, updateTranscript, viewHeight } from './reducer-transcript.js';
import { contentQuery, initialState, searchSettled, type BrowserState, type InitialOptions, type Mode, type Notice, type SortKey } from './state.js';
import { findMatches, firstMatchFrom } from './transcript-layout.js';
import { confirmRemove, writesReducer } from './reducer-writes.js';

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
  const written = writesReducer(state, action);
  if (written !== null) return written;
  switch (action.type) {
    case 'key': {
      let next = state;
      for (const one of splitKeys(action.input, action.key)) {
        const resolved = resolveAction(one.input, one.key, next.mode, next.confirm?.kind);
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
      const next = withRows({ ...state, search: { query: action.query, hits: action.hits, pending: action.pending, counted: action.counted ?? action.pending === 0, catalog: action.catalog }, whenSearched: null }, refined ? 'keep' : 'top');
      return state.whenSearched ? browserReducer(next, { type: state.whenSearched }) : next;
    }
    case 'contentResults': {
      if (action.query !== contentQuery(state.query)) return state;
      const same = state.content?.query === action.query && action.fresh !== true;
      const hits = same ? [...state.content!.hits, ...action.hits] : action.hits;
      const next = { ...state, content: { query: action.query, hits, done: action.done, error: action.error ?? null, ...(same && state.content!.snippets ? { snippets: state.content!.snippets } : {}) } };
      return same ? withContentAppended(state, next) : withRows(next, 'top');
    }
    case 'contentSnippets': {
      if (state.content === null || action.query !== state.content.query || action.query !== contentQuery(state.query)) return state;
      const snippets = new Map(state.content.snippets);
      for (const [key, snippet] of action.snippets) snippets.set(key, snippet);
      return withContentSnippets(state, { ...state, content: { ...state.content, snippets } }, action.snippets.map(([key]) => key));
    }
    case 'toggleContent': {
      // `>` in front of the query searches inside the transcripts; Ctrl-G puts it there or takes it away.
      const trimmed = state.query.trimStart();
      const query = trimmed.startsWith('>') ? trimmed.slice(1).trimStart() : `>${trimmed}`;
      // Into content search: a new search starts, so an earlier one's results (the same text's too) are not shown as its.
      // Out of it: they are not kept either (16k found sessions at 100k held ~15 MB until the next search).
      return setQuery({ ...state, mode: 'list', menu: null, notice: null, content: null }, query);
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
      // The rows on screen are for an older query: open the best match for the typed one when it arrives.
      if (state.mode === 'list' && !searchSettled(state)) return { ...state, whenSearched: 'open' };
      return open(state);
    case 'queryInput':
      return setQuery(state, state.query + action.text);
    case 'queryBackspace':
      return setQuery(state, [...state.query].slice(0, -1).join(''));
    case 'queryDeleteWord':
      return setQuery(state, withoutLastWord(state.query));
    case 'queryKill':
      return setQuery(state, '');
    case 'clearOrQuit':
      if (state.query === '') return { ...state, decision: { kind: 'quit' } };
      return withRows({ ...state, query: '', search: null, notice: null, whenSearched: null }, 'keep');
    case 'openMenu':
      return { ...state, mode: 'menu', menu: { selected: 0, returnTo: state.mode === 'transcript' ? 'transcript' : 'list' }, notice: null };
    case 'menuMove': {
      const count = menuItems(state).length;
      return state.menu ? { ...state, menu: { ...state.menu, selected: (state.menu.selected + action.delta + count) % count } } : state;
    }
    case 'menuChoose':
      return runMenuItem(state, menuItems(state)[state.menu?.selected ?? -1]);
    case 'menuKey':
      return runMenuItem(state, menuItemForKey(menuItems(state), action.key));
    case 'closeMenu':
      return { ...state, mode: state.menu?.returnTo ?? 'list', menu: null };
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
      // Enter right after typing: the rows on screen may be for the query a key ago. Resume the best match for
      // what is typed, once it is known, never the row that happened to be first before.
      if (state.mode === 'list' && !searchSettled(state)) return { ...state, whenSearched: 'resume' };
      const session = state.mode === 'transcript' || state.mode === 'find' ? state.transcript?.session : state.rows.at(state.selected)?.session;
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
        confirm: {
          kind: action.outcome.kind === 'inUse' ? 'inUse' : 'cwd',
          session: action.session,
          message: action.outcome.message,
          returnTo: state.mode === 'confirm' ? 'list' : state.mode,
        },
      };
    case 'confirmYes':
      if (state.confirm?.kind === 'remove') return confirmRemove(state);
      return state.confirm?.kind === 'cwd' ? { ...state, decision: { kind: 'resume', session: state.confirm.session, here: true } } : state;
    case 'confirmInUse': {
      const asked = state.confirm;
      if (asked?.kind !== 'inUse') return state;
      if (action.answer === 'resume') return { ...state, decision: { kind: 'resume', session: asked.session, inUseAnswered: true } };
      // The fork is written here, where the catalog is known; the agent then starts on it, a new file no one holds.
      return { ...state, mode: asked.returnTo, confirm: null, forkThenResume: asked.session, notice: { text: `forking ${asked.session.agent} session ${asked.session.id} to resume the fork…`, tone: 'info' } };
    }
    case 'forkThenResumeDone':
      return { ...state, forkThenResume: null, decision: { kind: 'resume', session: action.session, inUseAnswered: true } };
    case 'forkThenResumeFailed':
      return { ...state, forkThenResume: null, notice: { text: `cannot fork it: ${action.message}`, tone: 'error' } };
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
      // A new find starts empty (the last one is still what n and N look for until Enter).
      return state.transcript?.status === 'ready' ? { ...state, mode: 'find', transcript: { ...state.transcript, findDraft: '' } } : state;
    case 'findInput':
      return updateTranscript(state, (t) => ({ ...t, findDraft: t.findDraft + action.text }));
    case 'findDeleteWord':
      return updateTranscript(state, (t) => ({ ...t, findDraft: withoutLastWord(t.findDraft) }));
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
    case 'startForkWhole':
      return startForkWhole(state);
    case 'forkExtent':
      return state.fork?.status === 'editing' && state.fork.atTurn >= 2 ? { ...state, fork: { ...state.fork, ...nextExtent(state.fork, action.step) } } : state;
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
    default:
      return state; // the writes' actions, handled above (reducer-writes.ts)
  }
}


function overlayBase(state: BrowserState): Mode {
  return state.mode === 'help' || state.mode === 'problems' ? state.overlayReturn : state.mode;
}

/** The menu closes, and its item's action runs on the screen the menu was opened on (nothing when there is no item). */
function runMenuItem(state: BrowserState, item: MenuItem | undefined): BrowserState {
  if (!item) return state;
  return browserReducer({ ...state, mode: state.menu?.returnTo ?? 'list', menu: null }, item.action);
}

/** A shell's Ctrl-W: the spaces at the end, then the word before them. */
export function withoutLastWord(text: string): string {
  return text.replace(/\S*\s*$/u, '');
}

function forkDone(state: BrowserState, session: CatalogSession, resumeCommand: string): BrowserState {
  const key = sessionKey(session);
  const byKey = new Map(state.byKey);
  // The watcher may have listed the new file first, before knowing it is a fork: the fork's own row says so.
  const listed = byKey.get(key);
  byKey.set(key, listed?.forkedFrom ? listed : session);
  const sessions = sortSessions([...byKey.values()], state.sort);
  const scope = state.scope === 'cwd' && !isUnder(session.cwd, state.cwd) ? 'all' : state.scope;
  const fork = state.fork;
  const handedOff = fork !== null && fork.target !== fork.session.agent;
  const kept = fork?.whole ? fork.turns : fork?.atTurn ? fork.atTurn - 1 : 0;
  const code = fork?.withCode ? ', with the code as it was' : '';
  const extent = fork?.whole ? `with all ${kept} turn${kept === 1 ? '' : 's'}` : `before turn ${kept + 1} (kept ${kept} turn${kept === 1 ? '' : 's'}${code})`;
  const notice: Notice = {
    text: `${handedOff ? `handed off to ${session.agent}` : 'forked'} ${extent} → ${tildePath(session.path, state.homeDir)}`,
    detail: `resume it: ${resumeCommand}   (or press Enter)`,
    tone: 'success',
  };
  const next = withRows(
    // The new session stays selected (not the top row) however rows move: the user is shown it.
    { ...state, sessions, byKey, scope, query: '', search: null, mode: 'list', transcript: null, fork: null, notice, selectedKey: key, followTop: false },
    'keep',
  );
  return next;
}
