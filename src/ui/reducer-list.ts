// The list's part of the browser's one reducer (reducer.ts): which sessions are rows, in what order, which one is
// selected and which window of them is on screen, as the catalog, the query and the scope change.
import type { CatalogSession } from '../catalog/scan.js';
import type { SearchHit } from '../catalog/search.js';
import { ListView, type ReadonlyList } from '../core/list-view.js';
import { isUnder } from '../catalog/locations.js';
import type { Problem } from '../core/formats/types.js';
import { sessionKey } from '../core/model.js';
import { oneLine, tildePath } from '../core/text.js';
import { listGeometry, noticeRows } from './geometry.js';
import type { Snippet } from '../core/io/snippet.js';
import { contentQuery, type BrowserState, type ContentHit, type ListRow, type SortKey } from './state.js';

export function hostRows(state: BrowserState): CatalogSession[] {
  return state.hosts.length === 0 ? [] : state.sessions.filter((session) => session.host !== undefined);
}

export function sortSessions(sessions: readonly CatalogSession[], sort: SortKey): CatalogSession[] {
  const field = sort === 'updated' ? 'updatedAt' : 'createdAt';
  return [...sessions].sort((a, b) => (a[field] < b[field] ? 1 : a[field] > b[field] ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The current directory when it has sessions, else all of them, saying why; a scope the user chose stays. */
export function initialScope(state: BrowserState, sessions: readonly CatalogSession[]): Pick<BrowserState, 'scope' | 'scopeNote'> {
  if (state.scopeChosen) return { scope: state.scope, scopeNote: null };
  const here = sessions.some((session) => isUnder(session.cwd, state.cwd));
  if (here || sessions.length === 0) return { scope: 'cwd', scopeNote: null };
  return { scope: 'all', scopeNote: `no sessions in ${tildePath(state.cwd, state.homeDir)}: showing all` };
}

export function keyed(sessions: readonly CatalogSession[]): Map<string, CatalogSession> {
  return new Map(sessions.map((session) => [sessionKey(session), session]));
}
/** Recompute the visible rows; keep the selected session selected ('keep') or select the best match ('top'). */
export function withRows(state: BrowserState, policy: 'keep' | 'top'): BrowserState {
  const inScope = (session: CatalogSession): boolean => state.scope === 'all' || isUnder(session.cwd, state.cwd);
  let rows: ListRow[] | ReadonlyList<ListRow> = [];
  /** Where the selected session is in `rows`, when found without reading every row. */
  let keptAt: number | null = null;
  let hiddenMatches = 0;
  const query = state.query.trim();
  const content = contentQuery(state.query);
  if (content !== null) {
    const list: ListRow[] = [];
    rows = list;
    // What content search found for this text, in the order found, as the catalog's rows (files of one
    // conversation found apart are one row, their matches added up).
    if (state.content?.query === content) {
      const index = contentRowsFrom(state, state.content.hits, list, new Map(), new Set(), 0);
      hiddenMatches = index.hidden;
      contentIndexes.set(list, index);
    }
  } else if (query && state.search) {
    // Hits of a search over this very catalog carry their sessions: no look-up per match (80k for one letter).
    const current = state.search.catalog === state.sessions;
    const { hits } = state.search;
    if (current && state.scope === 'all') {
      // Every match is a row: each made when the list reads it (a screenful), not 80k of them per keystroke.
      rows = searchRowsView(hits, state.byKey);
      if (policy === 'keep' && !state.followTop && state.selectedKey !== null) {
        keptAt = -1;
        for (let i = 0; i < hits.length; i++) {
          if (hits.at(i)!.key === state.selectedKey) {
            keptAt = i;
            break;
          }
        }
      }
    } else {
      const some: ListRow[] = [];
      for (const hit of hits) {
        const session = current && hit.session ? hit.session : state.byKey.get(hit.key);
        if (!session) continue;
        if (inScope(session)) some.push(searchRow(session, hit));
        else hiddenMatches++;
      }
      rows = some;
    }
  } else if (state.scope === 'all') {
    rows = catalogRowsView(state.sessions);
  } else {
    const list: ListRow[] = [];
    for (const session of state.sessions) if (inScope(session)) list.push({ session, hit: null });
    rows = list;
  }
  let selected = 0;
  // Until the user moves, the top row is selected however rows arrive and move (at start, while a query is typed).
  if (state.followTop) policy = 'top';
  if (policy === 'keep') {
    const kept = keptAt ?? (state.selectedKey === null ? -1 : rows.findIndex((row) => sessionKey(row.session) === state.selectedKey));
    selected = kept >= 0 ? kept : Math.min(state.selected, rows.length - 1);
  }
  return windowed({ ...state, rows, hiddenMatches }, Math.max(0, selected), policy === 'top' ? 0 : state.listTop);
}

/**
 * A query's matches as rows, each made when read. Made outside withRows: a closure made there would hold withRows's
 * scope, the state it was given, whose rows are the previous keystroke's view holding the state before it, and so on:
 * every state of a typing session was kept (at 100k sessions, tens of MB of earlier queries' hits and rows).
 */
function searchRowsView(hits: ReadonlyList<SearchHit>, byKey: ReadonlyMap<string, CatalogSession>): ListView<ListRow> {
  return new ListView(hits.length, (i) => {
    const hit = hits.at(i)!;
    return searchRow(hit.session ?? byKey.get(hit.key)!, hit);
  });
}

/**
 * Every session of the catalog as a row, each made when read: clearing a query at 100k sessions made 86k rows (~4 MB
 * that lived until the next key, long enough to reach the old generation: its full collections fell on the next
 * keys). Made outside withRows for the reason searchRowsView is.
 */
function catalogRowsView(sessions: readonly CatalogSession[]): ListView<ListRow> {
  return new ListView(sessions.length, (i) => ({ session: sessions[i]!, hit: null }));
}

/**
 * A search hit's row, made once per hit and session: the hits of a query's unranked tail are the same objects from
 * keystroke to keystroke (see SearchRun.unrankedHits), so a list of 80k matches is not 80k new rows each time.
 */
const searchRows = new WeakMap<SearchHit, ListRow>();

function searchRow(session: CatalogSession, hit: SearchHit): ListRow {
  let row = searchRows.get(hit);
  if (row === undefined || row.session !== session) {
    row = { session, hit };
    searchRows.set(hit, row);
  }
  return row;
}

/** Content rows made from every hit so far: which hits, from what, and where each session's row is (-1: out of scope). */
interface ContentRowsIndex {
  readonly hits: readonly ContentHit[];
  readonly sessions: readonly CatalogSession[];
  readonly scope: BrowserState['scope'];
  readonly cwd: string;
  readonly snippets: ReadonlyMap<string, Snippet> | undefined;
  /** Handed on to the rows made next by appending (never read again through the rows it was made for). */
  readonly seen: Map<string, number>;
  /** The sessions whose row shows a snippet read for it (`snippets`), not its first hit's. */
  readonly fromMap: Set<string>;
  readonly hidden: number;
}

const contentIndexes = new WeakMap<object, ContentRowsIndex>();

/** Rows for `hits` appended to `rows` (their sessions looked up in the catalog), `seen` and `hidden` carried on. */
function contentRowsFrom(state: BrowserState, hits: readonly ContentHit[], rows: ListRow[], seen: Map<string, number>, fromMap: Set<string>, hidden: number, from = 0): ContentRowsIndex {
  const content = state.content!;
  // Made only for a hit that names no row (a walk's): the catalog's own search names each row by key.
  let byPath: Map<string, CatalogSession> | null = null;
  for (let at = from; at < hits.length; at++) {
    const found = hits[at]!;
    // A store's hit names its conversation by key (the key carries the host); a file's, by the host's path.
    const session = found.key !== undefined ? state.byKey.get(found.key) : found.paths.map((path) => (byPath ??= pathIndex(state.sessions)).get(pathKey(found.host, path))).find((one) => one !== undefined);
    if (!session) continue;
    const key = found.key ?? sessionKey(session);
    const row = seen.get(key);
    if (row !== undefined) {
      if (row >= 0) rows[row] = { ...rows[row]!, content: { ...rows[row]!.content!, matches: rows[row]!.content!.matches + found.matches } };
      continue;
    }
    if (state.scope === 'all' || isUnder(session.cwd, state.cwd)) {
      seen.set(key, rows.length);
      const snippet = found.snippet === null ? content.snippets?.get(key) : undefined;
      if (snippet !== undefined) fromMap.add(key);
      rows.push({ session, hit: null, content: snippet === undefined ? found : { ...found, snippet } });
    } else {
      seen.set(key, -1);
      hidden++;
    }
  }
  return { hits, sessions: state.sessions, scope: state.scope, cwd: state.cwd, snippets: content.snippets, seen, fromMap, hidden };
}

/**
 * `next` is `before` with hits appended to its content search (the same text): their rows are appended to the rows
 * made for the earlier hits, not all made again (a common word at 100k sessions finds 16k, in tens of batches), when
 * those rows were made from the same catalog, scope and snippets; else all are made again (`withRows`).
 */
export function withContentAppended(before: BrowserState, next: BrowserState): BrowserState {
  const index = reusableIndex(before, next, next.content?.snippets);
  if (index === null) return withRows(next, 'keep');
  const rows = before.rows.slice();
  const appended = contentRowsFrom(next, next.content!.hits, rows, index.seen, index.fromMap, index.hidden, index.hits.length);
  return withContentRows(next, rows, appended);
}

/**
 * `next` is `before` with snippets read for some of its content rows (`keys`): those rows are made again, not every row
 * (a snippet comes for each row that comes on screen, while thousands of sessions are listed).
 */
export function withContentSnippets(before: BrowserState, next: BrowserState, keys: Iterable<string>): BrowserState {
  const index = reusableIndex(before, next, before.content?.snippets);
  const snippets = next.content?.snippets;
  if (index === null || snippets === undefined || next.content!.hits !== index.hits) return withRows(next, 'keep');
  const rows = before.rows.slice();
  for (const key of keys) {
    const at = index.seen.get(key);
    const snippet = snippets.get(key);
    if (at === undefined || at < 0 || snippet === undefined) continue;
    const row = rows[at]!;
    // A row whose first hit came with a snippet keeps it.
    if (row.content!.snippet !== null && !index.fromMap.has(key)) continue;
    index.fromMap.add(key);
    rows[at] = { ...row, content: { ...row.content!, snippet } };
  }
  return withContentRows(next, rows, { ...index, snippets });
}

/**
 * The index of `before`'s content rows, taken from them (its map and set are added to for the rows made next: rows
 * made from `before` again are made whole), when they were made from the same catalog, scope and snippets as `next`'s
 * would be; else null.
 */
function reusableIndex(before: BrowserState, next: BrowserState, snippets: ReadonlyMap<string, Snippet> | undefined): ContentRowsIndex | null {
  const index = contentIndexes.get(before.rows);
  const content = next.content;
  if (
    index === undefined ||
    !Array.isArray(before.rows) ||
    content === null ||
    index.hits !== before.content?.hits ||
    index.sessions !== next.sessions ||
    index.scope !== next.scope ||
    index.cwd !== next.cwd ||
    index.snippets !== snippets ||
    contentQuery(next.query) !== content.query
  ) {
    return null;
  }
  contentIndexes.delete(before.rows);
  return index;
}

/** The state with these content rows, the selection kept as withRows keeps it. */
function withContentRows(next: BrowserState, rows: ListRow[], index: ContentRowsIndex): BrowserState {
  contentIndexes.set(rows, index);
  let selected = 0;
  if (!next.followTop) {
    // The row selected stays selected (its session's row, found by key).
    const kept = next.selectedKey === null ? undefined : index.seen.get(next.selectedKey);
    selected = kept !== undefined && kept >= 0 ? kept : Math.min(next.selected, rows.length - 1);
  }
  return windowed({ ...next, rows, hiddenMatches: index.hidden }, Math.max(0, selected), next.followTop ? 0 : next.listTop);
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

export function select(state: BrowserState, index: number): BrowserState {
  if (state.rows.length === 0) return state;
  return windowed({ ...state, followTop: false }, Math.max(0, Math.min(state.rows.length - 1, index)), state.listTop);
}

/** Set the selection and move the list window just enough to keep it visible. */
export function windowed(state: BrowserState, selected: number, top: number): BrowserState {
  const height = listGeometry(state.size, noticeRows(state.notice, state.size.columns)).listHeight;
  const count = state.rows.length;
  let listTop = Math.min(top, Math.max(0, count - height));
  if (selected < listTop) listTop = selected;
  if (selected >= listTop + height) listTop = selected - height + 1;
  listTop = Math.max(0, listTop);
  const row = state.rows.at(selected);
  const selectedKey = row ? sessionKey(row.session) : null;
  const preview = state.preview && state.preview.key === selectedKey ? state.preview : null;
  return { ...state, selected: row ? selected : 0, selectedKey, listTop, preview };
}

export function setQuery(state: BrowserState, query: string): BrowserState {
  const cleaned = oneLine(query) === '' ? '' : query.replace(/[\r\n\t]/g, ' ');
  // A changed query selects its best match again (the top row), until the user moves.
  if (cleaned.trim() === '') return withRows({ ...state, query: cleaned, search: null, whenSearched: null, followTop: true }, 'keep');
  return { ...state, query: cleaned, whenSearched: null, followTop: true };
}

export function catalogChanged(state: BrowserState, upserted: readonly CatalogSession[], removed: readonly string[], problems?: readonly Problem[]): BrowserState {
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
