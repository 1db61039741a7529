import { describe, expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { type SearchHit } from '../../src/catalog/search.js';
import { transcriptHeight } from '../../src/ui/geometry.js';
import { keyOf } from '../../src/ui/keymap.js';
import { browserReducer, type Action } from '../../src/ui/reducer.js';
import { withRows } from '../../src/ui/reducer-list.js';
import { buildTranscriptItems, withCodeMarks } from '../../src/ui/transcript-layout.js';
import { initialState, type BrowserState, type ContentHit } from '../../src/ui/state.js';
import { catalogSession, transcriptOf } from './helpers.js';
import { continueChoices } from '../../src/core/handoff/index.js';
import { sessionKey } from '../../src/core/model.js';
import { ListView } from '../../src/core/list-view.js';

const CWD = '/home/dev/src/api';
const size = { columns: 100, rows: 30 };

/** Five sessions: a..c in the cwd (newest first), d and e elsewhere. */
const sessions: CatalogSession[] = [
  catalogSession({ id: 'a', updatedAt: '2026-11-05T00:00:00Z', createdAt: '2026-11-01T00:00:00Z' }),
  catalogSession({ id: 'b', updatedAt: '2026-11-04T00:00:00Z', createdAt: '2026-11-04T00:00:00Z', cwd: `${CWD}/sub` }),
  catalogSession({ id: 'd', updatedAt: '2026-11-03T00:00:00Z', createdAt: '2026-11-02T00:00:00Z', cwd: '/home/dev/src/web' }),
  catalogSession({ id: 'c', updatedAt: '2026-11-02T00:00:00Z', createdAt: '2026-11-03T00:00:00Z' }),
  catalogSession({ id: 'e', updatedAt: '2026-11-01T00:00:00Z', createdAt: '2026-11-05T00:00:00Z', cwd: null }),
];

function run(actions: readonly Action[], start: BrowserState = initialState({ size, cwd: CWD, homeDir: '/home/dev', now: 0 })): BrowserState {
  return actions.reduce(browserReducer, start);
}

const loaded: Action = { type: 'scanDone', sessions, problems: [] };
const ids = (state: BrowserState): string[] => state.rows.map((row) => row.session.id);
const selectedId = (state: BrowserState): string | undefined => state.rows.at(state.selected)?.session.id;
const hit = (id: string, score = 0): SearchHit => ({ key: `codex:${id}`, score });
const key = (input: string, partial: Parameters<typeof keyOf>[0] = {}): Action => ({ type: 'key', input, key: keyOf(partial) });
const enter = key('', { return: true });
/** → opens the transcript (Enter resumes). */
const right = key('', { rightArrow: true });

describe('list scope, sort and selection', () => {
  const cases: readonly [name: string, actions: readonly Action[], rows: string[], selected: string | undefined][] = [
    ['the current directory and below, newest first', [loaded], ['a', 'b', 'c'], 'a'],
    ['Tab shows every directory', [loaded, { type: 'toggleScope' }], ['a', 'b', 'd', 'c', 'e'], 'a'],
    // not moved by the user: the top row stays selected as the order changes
    ['sort by created', [loaded, { type: 'toggleScope' }, { type: 'toggleSort' }], ['e', 'b', 'c', 'd', 'a'], 'e'],
    ['sort by created, the selection moved by the user kept', [loaded, { type: 'move', delta: 1 }, { type: 'toggleScope' }, { type: 'toggleSort' }], ['e', 'b', 'c', 'd', 'a'], 'b'],
    ['moves clamp at both ends', [loaded, { type: 'move', delta: 1 }, { type: 'move', delta: 5 }], ['a', 'b', 'c'], 'c'],
    ['up from the top stays', [loaded, { type: 'move', delta: -1 }], ['a', 'b', 'c'], 'a'],
    ['last and first', [loaded, { type: 'moveLast' }], ['a', 'b', 'c'], 'c'],
    ['toggling scope keeps the selected session', [loaded, { type: 'move', delta: 2 }, { type: 'toggleScope' }], ['a', 'b', 'd', 'c', 'e'], 'c'],
  ];
  it.each(cases)('%s', (_name, actions, rows, selected) => {
    const state = run(actions);
    expect(ids(state)).toEqual(rows);
    expect(selectedId(state)).toBe(selected);
  });

  it('every directory without a query: rows made when read, the selection kept when a query is cleared', () => {
    // 86k rows made each time a query was cleared at 100k sessions lived until the next key, into the old generation.
    const typed = run([loaded, { type: 'toggleScope' }, { type: 'move', delta: 2 }, key('x')]);
    const moved = run([{ type: 'searchResults', query: 'x', hits: [hit('d'), hit('e')], pending: 0, catalog: typed.sessions }, { type: 'move', delta: 1 }], typed);
    const killed = run([{ type: 'queryKill' }], moved);
    expect(killed.rows).toBeInstanceOf(ListView);
    expect(ids(killed)).toEqual(['a', 'b', 'd', 'c', 'e']);
    expect(selectedId(killed)).toBe('a'); // a changed query selects the top row
    const cleared = run([{ type: 'clearOrQuit' }], moved);
    expect(cleared.rows).toBeInstanceOf(ListView);
    expect(ids(cleared)).toEqual(['a', 'b', 'd', 'c', 'e']);
    expect(selectedId(cleared)).toBe('e');
    expect(run([{ type: 'toggleScope' }], cleared).rows).toBeInstanceOf(Array); // the current directory's: a few rows
  });

  it('starts in "all" and says so when the current directory has no sessions', () => {
    const state = run([loaded], initialState({ size, cwd: '/elsewhere', homeDir: '/home/dev', now: 0 }));
    expect(state.scope).toBe('all');
    expect(state.scopeNote).toBe('no sessions in /elsewhere: showing all');
    expect(ids(state)).toHaveLength(5);
  });

  it('keeps a scope the user chose (--all)', () => {
    const state = run([loaded], initialState({ size, cwd: CWD, homeDir: '/home/dev', now: 0, scope: 'all' }));
    expect(state.scope).toBe('all');
    expect(state.scopeNote).toBeNull();
  });

  it('windows a long list around the selection', () => {
    const many = Array.from({ length: 50 }, (_, i) => catalogSession({ id: `s${String(i).padStart(2, '0')}`, updatedAt: `2026-10-01T00:00:${String(59 - i).padStart(2, '0')}Z` }));
    const state = run([{ type: 'scanDone', sessions: many, problems: [] }, { type: 'moveLast' }]);
    expect(selectedId(state)).toBe('s49');
    expect(state.listTop).toBeGreaterThan(0);
    // the bottom preview takes part of the body at 30 rows: the window shows the last rows exactly
    expect(state.listTop + 1).toBeLessThanOrEqual(state.selected + 1);
    const page = browserReducer(state, { type: 'movePage', direction: -1 });
    expect(page.selected).toBeLessThan(state.selected);
    expect(page.listTop).toBeLessThanOrEqual(page.selected);
  });
});

describe('search', () => {
  it('types at once (no key first), shows fuse results in their order and selects the best', () => {
    const state = run([loaded, key('c'), { type: 'searchResults', query: 'c', hits: [hit('c'), hit('a', 0.3), hit('d', 0.4)], pending: 0 }]);
    expect(state.mode).toBe('list');
    expect(state.query).toBe('c');
    expect(ids(state)).toEqual(['c', 'a']);
    expect(state.hiddenMatches).toBe(1);
    expect(selectedId(state)).toBe('c');
  });

  it("takes each hit's session from the hit when the search ran over the list's catalog, from the catalog when it changed since", () => {
    const state = run([loaded, key('c')]);
    const withSession = (session: CatalogSession): SearchHit => ({ key: sessionKey(session), session, score: 0 });
    // Over this very catalog: the hit's session is the row's (no look-up).
    const current = run([{ type: 'searchResults', query: 'c', hits: [withSession(state.sessions.find((one) => one.id === 'c')!)], pending: 0, catalog: state.sessions }], state);
    expect(current.rows.map((row) => row.session)).toEqual([state.sessions.find((one) => one.id === 'c')]);
    // The catalog changed after the search ran (c renamed): the row shows the catalog's session, not the hit's.
    const renamed = { ...sessions[3]!, title: 'renamed c' };
    const changed = run([{ type: 'catalogChanged', upserted: [renamed], removed: [] }], state);
    const stale = run([{ type: 'searchResults', query: 'c', hits: [withSession(sessions[3]!)], pending: 0, catalog: state.sessions }], changed);
    expect(stale.rows.map((row) => row.session.title)).toEqual(['renamed c']);
  });

  it('a search over the catalog in every directory: rows made as they are read, the chosen row kept by its key as the ranking moves it', () => {
    const all = run([loaded, { type: 'toggleScope' }, key('x')]);
    expect(all.scope).toBe('all');
    const made: number[] = [];
    const byId = (id: string): CatalogSession => all.sessions.find((one) => one.id === id)!;
    // As a search's matches are: one hit object per session, made when read.
    const hitsOf = new Map<string, SearchHit>();
    const lazyHits = (order: string[]): ListView<SearchHit> =>
      new ListView(order.length, (i) => {
        made.push(i);
        const id = order[i]!;
        if (!hitsOf.has(id)) hitsOf.set(id, { key: `codex:${id}`, session: byId(id), score: 1 });
        return hitsOf.get(id)!;
      });
    const first = run([{ type: 'searchResults', query: 'x', hits: lazyHits(['d', 'a', 'e', 'c', 'b']), pending: 3, catalog: all.sessions }], all);
    expect(first.rows.length).toBe(5);
    expect(made.length).toBeLessThanOrEqual(1); // the selected row's, at most: none made for the count
    expect(ids(first)).toEqual(['d', 'a', 'e', 'c', 'b']);
    expect(first.rows.at(1)).toBe(first.rows.at(1)); // one row per hit, not a new one per read
    expect(selectedId(first)).toBe('d');
    const moved = run([{ type: 'move', delta: 2 }], first);
    expect(selectedId(moved)).toBe('e');
    const ranked = run([{ type: 'searchResults', query: 'x', hits: lazyHits(['b', 'c', 'd', 'a', 'e']), pending: 0, catalog: all.sessions }], moved);
    expect(selectedId(ranked)).toBe('e');
    expect(ranked.selected).toBe(4);
    expect(ranked.hiddenMatches).toBe(0);
  });

  it('ignores results for a query that is no longer typed', () => {
    const state = run([loaded, key('c'), key('x'), { type: 'searchResults', query: 'c', hits: [hit('c')], pending: 0 }]);
    expect(state.query).toBe('cx');
    expect(state.search).toBeNull();
  });

  it('keeps the selected row when the same query comes back ranked further, jumps to the best for a new one', () => {
    const state = run([
      loaded,
      key('c'),
      { type: 'searchResults', query: 'c', hits: [hit('a'), hit('c')], pending: 5 },
      { type: 'move', delta: 1 },
      { type: 'searchResults', query: 'c', hits: [hit('b'), hit('a', 0.2), hit('c', 0.3)], pending: 0 },
    ]);
    expect(ids(state)).toEqual(['b', 'a', 'c']);
    expect(selectedId(state)).toBe('c');
    expect(state.search?.pending).toBe(0);
    const retyped = run([key('a'), { type: 'searchResults', query: 'ca', hits: [hit('b'), hit('c')], pending: 0 }], state);
    expect(selectedId(retyped)).toBe('b');
  });

  it('the selection follows the top while results arrive and are ranked further, until the user moves it', () => {
    const typed = run([
      loaded,
      key('c'),
      { type: 'searchResults', query: 'c', hits: [hit('a'), hit('c')], pending: 5 },
      // a better match arrives above the selected one: Enter must open what is first on screen
      { type: 'searchResults', query: 'c', hits: [hit('b'), hit('a', 0.2), hit('c', 0.3)], pending: 0 },
    ]);
    expect(selectedId(typed)).toBe('b');
    const opened = run([right], typed);
    expect(opened.transcript?.session.id).toBe('b');
    const resumed = run([enter], typed);
    expect(resumed.resumeRequest?.id).toBe('b');
    // a session arriving live (watcher) above the top while the query is typed: still the top
    const fresh = catalogSession({ id: 'f', updatedAt: '2026-11-09T00:00:00Z' });
    const live = run([{ type: 'catalogChanged', upserted: [fresh], removed: [] }, { type: 'searchResults', query: 'c', hits: [hit('f'), hit('b', 0.1)], pending: 0 }], typed);
    expect(selectedId(live)).toBe('f');
    // moved by the user: the choice stays, through further ranking; typing again follows the top again
    const moved = run([{ type: 'move', delta: 1 }, { type: 'searchResults', query: 'c', hits: [hit('f'), hit('c', 0.05), hit('b', 0.1)], pending: 0 }], live);
    expect(selectedId(moved)).toBe('b');
    const retyped = run([key('a'), { type: 'searchResults', query: 'ca', hits: [hit('c'), hit('b', 0.1)], pending: 3 }, { type: 'searchResults', query: 'ca', hits: [hit('a'), hit('c', 0.1), hit('b', 0.2)], pending: 0 }], moved);
    expect(selectedId(retyped)).toBe('a');
  });

  it('a burst "grep health r" is typed whole: no key of it moves, opens or resumes', () => {
    const state = run([loaded, key('grep health r')]);
    expect(state.mode).toBe('list');
    expect(state.query).toBe('grep health r');
    expect(state.resumeRequest).toBeNull();
    expect(state.decision).toBeNull();
    expect(state.transcript).toBeNull();
    const oneByOne = run([loaded, ...[...'grep health r'].map((char) => key(char))]);
    expect(oneByOne.query).toBe('grep health r');
    expect(oneByOne.resumeRequest).toBeNull();
    expect(oneByOne.decision).toBeNull();
  });

  it('Enter before the results for the typed query: the best match for it is resumed once they arrive, not the row on screen', () => {
    const typed = run([loaded, key('c'), { type: 'searchResults', query: 'c', hits: [hit('a'), hit('c')], pending: 0 }, key('x'), enter]);
    expect(typed.resumeRequest).toBeNull();
    expect(typed.whenSearched).toBe('resume');
    const arrived = run([{ type: 'searchResults', query: 'cx', hits: [hit('c'), hit('a')], pending: 0 }], typed);
    expect(arrived.resumeRequest?.id).toBe('c');
    expect(arrived.whenSearched).toBeNull();
    // → waits the same way, and opens
    const opened = run([key('y'), right, { type: 'searchResults', query: 'cxy', hits: [hit('b')], pending: 0 }], arrived);
    expect(opened.transcript?.session.id).toBe('b');
  });

  it('Ctrl-W erases the last word (and the spaces after it), Ctrl-U the whole query', () => {
    expect(run([loaded, key('grep health  '), key('w', { ctrl: true })]).query).toBe('grep ');
    expect(run([loaded, key('grep health'), key('w', { ctrl: true }), key('w', { ctrl: true })]).query).toBe('');
    expect(run([loaded, key('grep health'), key('u', { ctrl: true })]).query).toBe('');
  });

  it('Ctrl-N, Ctrl-P, Ctrl-J and Ctrl-K move while a query is typed, and type nothing', () => {
    const typed = run([loaded, key('c'), { type: 'searchResults', query: 'c', hits: [hit('a'), hit('b'), hit('c')], pending: 0 }]);
    const down = run([key('n', { ctrl: true }), key('\n')], typed);
    expect(selectedId(down)).toBe('c');
    expect(down.query).toBe('c');
    const up = run([key('p', { ctrl: true }), key('k', { ctrl: true })], down);
    expect(selectedId(up)).toBe('a');
    expect(up.query).toBe('c');
  });

  it('Esc clears the query and shows the whole scope again, keeping the selection', () => {
    const state = run([
      loaded,
      key('c'),
      { type: 'searchResults', query: 'c', hits: [hit('a'), hit('c')], pending: 0 },
      { type: 'move', delta: 1 },
      key('', { escape: true }),
    ]);
    expect(state.mode).toBe('list');
    expect(state.query).toBe('');
    expect(ids(state)).toEqual(['a', 'b', 'c']);
    expect(selectedId(state)).toBe('c');
    expect(state.decision).toBeNull();
    // Esc again, with nothing typed: quit
    expect(run([key('', { escape: true })], state).decision).toEqual({ kind: 'quit' });
  });

  it('backspace to empty restores the list without a search', () => {
    const state = run([loaded, key('z'), { type: 'searchResults', query: 'z', hits: [], pending: 0 }, key('', { backspace: true })]);
    expect(state.query).toBe('');
    expect(ids(state)).toEqual(['a', 'b', 'c']);
  });
});

describe('content search', () => {
  const found = (id: string, matches: number, before = 'the ', match = 'answer 2', after = '0 is here'): ContentHit => ({
    paths: sessions.find((one) => one.id === id)!.paths,
    matches,
    snippet: { before, match, after },
  });

  it('Ctrl-G (or >) puts > in front of the query and back; results stream in, in scope, in the order found', () => {
    const started = run([loaded, key('answer'), key('g', { ctrl: true })]);
    expect(started.query).toBe('>answer');
    expect(run([key('g', { ctrl: true })], started).query).toBe('answer');
    expect(run([loaded, key('>')]).query).toBe('>');
    const typed = run([key(' 2'), { type: 'contentResults', query: 'answer 2', hits: [found('c', 3)], done: false }], started);
    expect(ids(typed)).toEqual(['c']);
    expect(typed.rows.at(0)!.content?.matches).toBe(3);
    const more = run([{ type: 'contentResults', query: 'answer 2', hits: [found('d', 1), found('a', 9)], done: true }], typed);
    expect(ids(more)).toEqual(['c', 'a']); // d is in another directory
    expect(more.hiddenMatches).toBe(1);
    expect(more.content?.done).toBe(true);
    // a file the catalog does not list is left out; another file of a listed conversation adds its matches
    const merged = run([{ type: 'contentResults', query: 'answer 2', hits: [{ paths: ['/elsewhere/x.jsonl'], matches: 5, snippet: null }, found('c', 2)], done: true }], more);
    expect(ids(merged)).toEqual(['c', 'a']);
    expect(merged.rows.at(0)!.content?.matches).toBe(5);
    // results for text no longer typed are dropped
    expect(run([{ type: 'contentResults', query: 'answer', hits: [found('b', 1)], done: true }], more)).toBe(more);
    // Ctrl-G back to the fuzzy query lets the found sessions go (a common word at 100k sessions finds 16k)
    const back = run([key('g', { ctrl: true })], more);
    expect(back.query).toBe('answer 2');
    expect(back.content).toBeNull();
  });

  it('hits streamed in batches are appended to the rows made before: the rows, hidden count and selection all made again would give', () => {
    // 150 sessions, a third elsewhere; hits by key (the catalog's search) and by path (a walk's), some twice.
    const many = Array.from({ length: 150 }, (_, i) =>
      catalogSession({ id: `s${i}`, updatedAt: `2026-11-05T00:${String(i % 60).padStart(2, '0')}:00Z`, cwd: i % 3 === 0 ? '/home/dev/src/web' : CWD }),
    );
    const byId = new Map(many.map((one) => [one.id, one]));
    const hitOf = (i: number, byKey: boolean): ContentHit => {
      const one = byId.get(`s${(i * 37) % 90}`)!;
      return { paths: one.paths, ...(byKey ? { key: sessionKey(one) } : {}), matches: i % 4, snippet: i % 4 === 1 ? null : { before: 'a ', match: 'answer', after: ' b' } };
    };
    let state = run([{ type: 'scanDone', sessions: many, problems: [] }, key('>'), key('answer')]);
    const reference = (made: BrowserState): BrowserState => withRows({ ...made, rows: [] }, 'keep');
    let hits = 0;
    for (let batch = 0; batch < 12; batch++) {
      const before = state;
      const size = 1 + ((batch * 7) % 19);
      const batchHits = Array.from({ length: size }, (_, k) => hitOf(hits + k, (hits + k) % 2 === 0));
      hits += size;
      state = run([{ type: 'contentResults', query: 'answer', hits: batchHits, done: false }], state);
      const appended = state;
      // The user moves after a few batches: from then on the selected session stays selected.
      if (batch === 4) state = run([{ type: 'move', delta: 3 }], state);
      if (batch % 3 === 2) {
        // Snippets read for some rows (those whose hit came without one take it; a second one for a row replaces it;
        // a row whose hit had one keeps that), and for a session no row shows.
        const rowsBefore = state.rows;
        const keys = state.rows.slice(0, 6).map((row) => sessionKey(row.session));
        const snippet = (n: number) => ({ before: `read ${batch} `, match: 'answer', after: ` ${n}` });
        state = run([{ type: 'contentSnippets', query: 'answer', snippets: [...keys.map((one, n) => [one, snippet(n)] as const), ['codex:nowhere', snippet(9)]] }], state);
        const made = reference(state);
        expect(state.rows).toEqual(made.rows);
        expect([state.hiddenMatches, state.selected, state.listTop]).toEqual([made.hiddenMatches, made.selected, made.listTop]);
        expect(state.rows.slice().filter((row, at) => row === rowsBefore.at(at)).length).toBeGreaterThanOrEqual(rowsBefore.length - 6);
      }
      const again = reference(state);
      expect(state.rows).toEqual(again.rows);
      expect([state.hiddenMatches, state.selected, state.listTop, state.selectedKey]).toEqual([again.hiddenMatches, again.selected, again.listTop, again.selectedKey]);
      // Appended, not made again: the rows made before are the same objects, but for those whose matches a hit of the
      // batch added to (made all again, none would be).
      const same = appended.rows.slice(0, before.rows.length).filter((row, at) => row === before.rows.at(at)).length;
      if (before.content !== null) expect(same + size, `batch ${batch}`).toBeGreaterThanOrEqual(before.rows.length);
      if (before.content !== null && before.rows.length > size) expect(same).toBeGreaterThan(0);
    }
    expect(state.rows.length).toBeGreaterThan(40);
    expect(state.hiddenMatches).toBeGreaterThan(10);
    expect(state.rows.slice().some((row) => row.content!.matches > 3)).toBe(true);
    expect(state.rows.slice().filter((row) => row.content!.snippet?.before.startsWith('read ')).length).toBeGreaterThan(1);
    expect(state.rows.slice().some((row) => row.content!.snippet?.before === 'read 11 ')).toBe(true);
  });

  it('a host\'s hits go to that host\'s rows, even where its paths are this machine\'s too', () => {
    const local = sessions[0]!;
    // The same file path on another machine: another session.
    const remote: CatalogSession = { ...local, id: 'r', host: 'devbox', cwd: CWD };
    const withHost: Action = { type: 'hostUpdate', host: 'devbox', status: { kind: 'ready', via: 'sessions', sessions: 1 }, sessions: [remote] };
    const searched = run([loaded, withHost, key('>'), key('answer 2')]);
    const onHost = run([{ type: 'contentResults', query: 'answer 2', hits: [{ host: 'devbox', paths: local.paths, matches: 4, snippet: null }], done: true }], searched);
    expect(onHost.rows.map((row) => [row.session.host ?? null, row.session.id, row.content?.matches])).toEqual([['devbox', 'r', 4]]);
    const both = run([{ type: 'contentResults', query: 'answer 2', hits: [{ paths: local.paths, matches: 1, snippet: null }], done: true }], onHost);
    expect(both.rows.map((row) => [row.session.host ?? null, row.session.id])).toEqual([['devbox', 'r'], [null, 'a']]);
  });

  it('→ opens the transcript at the first match once it is read', () => {
    const listed = run([loaded, key('>'), key('answer 2'), { type: 'contentResults', query: 'answer 2', hits: [found('a', 11)], done: true }]);
    const opened = run([right], listed);
    expect(opened.transcript?.find).toBe('answer 2');
    const read = run([{ type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(transcriptOf(sessions[0]!, 30)) }], opened);
    const t = read.transcript!;
    expect(t.findMatches).toHaveLength(11); // answer 2, answer 20..29
    expect(t.findCurrent).toBe(0);
    expect(t.layout!.lineAt(t.findMatches[0]!.line)!.text).toBe('answer 2');
    expect(t.turn).toBe(2);
    // not in what the transcript shows (a cut tool output, injected context): it says so
    const elsewhere = run([{ type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(transcriptOf(sessions[0]!, 1)) }], opened);
    expect(elsewhere.notice?.text).toContain('not in what the transcript shows');
  });
});

describe('live catalog changes', () => {
  it('a new session appears at the top; the selection and query stay', () => {
    const fresh = catalogSession({ id: 'f', updatedAt: '2026-11-09T00:00:00Z' });
    const state = run([loaded, { type: 'move', delta: 1 }, { type: 'catalogChanged', upserted: [fresh], removed: [] }]);
    expect(ids(state)).toEqual(['f', 'a', 'b', 'c']);
    expect(selectedId(state)).toBe('b');
  });

  it('a session gaining turns moves to the top with its new count; the selection stays on the top row until the user moves it', () => {
    const grown = { ...sessions[3]!, userTurns: 7, updatedAt: '2026-11-09T00:00:00Z' };
    const state = run([loaded, { type: 'catalogChanged', upserted: [grown], removed: [] }]);
    expect(ids(state)).toEqual(['c', 'a', 'b']);
    expect(state.rows.at(0)!.session.userTurns).toBe(7);
    expect(selectedId(state)).toBe('c');
    const moved = run([loaded, { type: 'move', delta: 1 }, { type: 'move', delta: -1 }, { type: 'catalogChanged', upserted: [grown], removed: [] }]);
    expect(selectedId(moved)).toBe('a');
  });

  it('rows streaming in at start (cache, then the scan, then the watcher) keep the top row selected: Enter resumes what is first on screen', () => {
    const cached: Action = { type: 'cachedCatalog', sessions: [sessions[1]!, sessions[3]!] };
    const newer = catalogSession({ id: 'f', updatedAt: '2026-11-09T00:00:00Z' });
    const state = run([cached, loaded, { type: 'catalogChanged', upserted: [newer], removed: [] }]);
    expect(ids(state)).toEqual(['f', 'a', 'b', 'c']);
    expect(selectedId(state)).toBe('f');
    expect(run([enter], state).resumeRequest?.id).toBe('f');
  });

  it('removing the selected session selects its neighbour', () => {
    const state = run([loaded, { type: 'move', delta: 1 }, { type: 'catalogChanged', upserted: [], removed: ['codex:b'] }]);
    expect(ids(state)).toEqual(['a', 'c']);
    expect(selectedId(state)).toBe('c');
  });
});

describe('transcript', () => {
  const opened = [loaded, { type: 'moveFirst' } as Action, right];
  const full = transcriptOf(sessions[0]!, 30);
  const ready = [...opened, { type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(full) } as Action];

  it('→ opens the selected session and waits for its transcript', () => {
    const state = run(opened);
    expect(state.mode).toBe('transcript');
    expect(state.transcript?.status).toBe('loading');
    expect(state.transcript?.key).toBe('codex:a');
  });

  it('lays the transcript out and selects turn 1', () => {
    const state = run(ready);
    expect(state.transcript?.status).toBe('ready');
    expect(state.transcript?.layout?.turnStarts).toHaveLength(30);
    expect(state.transcript?.turn).toBe(1);
    expect(state.transcript?.top).toBe(0);
  });

  it('] and [ jump between user turns', () => {
    const state = run([...ready, key(']'), key(']')]);
    expect(state.transcript?.turn).toBe(3);
    expect(state.transcript?.top).toBe(state.transcript?.layout?.turnStarts[2]);
    expect(run([...ready, key(']'), key(']'), key('[')]).transcript?.turn).toBe(2);
  });

  it('scrolling clamps to the layout and follows the turn at the top', () => {
    const state = run([...ready, key('G', { shift: true })]);
    const layout = state.transcript!.layout!;
    const height = transcriptHeight(size);
    expect(height).toBe(26); // 30 rows: header, footer, notice line, and one row left free
    expect(state.transcript!.top).toBe(layout.lineCount - height);
    expect(state.transcript!.turn).toBe(30);
    const up = browserReducer(state, key('k'));
    expect(up.transcript!.top).toBe(state.transcript!.top - 1);
    const home = browserReducer(state, key('g'));
    expect(home.transcript!.top).toBe(0);
    expect(home.transcript!.turn).toBe(1);
  });

  it('/ finds text and moves to it', () => {
    const state = run([...ready, key('/'), key('answer 5'), enter]);
    expect(state.mode).toBe('transcript');
    const t = state.transcript!;
    expect(t.layout!.lineAt(t.findMatches[t.findCurrent]!.line)!.text).toBe('answer 5');
    expect(t.turn).toBe(5);
  });

  it('each / starts an empty query, Ctrl-U and Ctrl-W erase, matches are counted and n/N step through them (less, vim)', () => {
    const first = run([...ready, key('/'), key('answer 1'), enter]);
    // answer 1, answer 10..19: eleven matches, the current one counted from the top of the screen
    expect(first.transcript!.findMatches).toHaveLength(11);
    expect(first.transcript!.findCurrent).toBe(0);
    const next = run([key('n'), key('n')], first);
    expect(next.transcript!.findCurrent).toBe(2);
    expect(next.transcript!.layout!.lineAt(next.transcript!.findMatches[2]!.line)!.text).toBe('answer 11');
    expect(run([key('N', { shift: true }), key('N', { shift: true })], first).transcript!.findCurrent).toBe(9); // wraps around
    expect(run([key('n'), key('n')], first).transcript!.turn, 'n moves to a match, not a turn').toBe(11);
    // a new / starts empty: typing "answer 2" finds answer 2, not "answer 1answer 2"
    const again = run([key('/')], next);
    expect(again.transcript!.findDraft).toBe('');
    const typed = run([key('answer 2'), enter], again);
    expect(typed.notice).toBeNull();
    expect(typed.transcript!.find).toBe('answer 2');
    expect(typed.transcript!.findMatches).toHaveLength(11);
    // Ctrl-U erases what is typed
    const killed = run([key('/'), key('xyz'), key('u', { ctrl: true })], typed);
    expect(killed.transcript!.findDraft).toBe('');
    expect(run([key('answer 30'), enter], killed).transcript!.findMatches).toHaveLength(1);
    // Ctrl-W erases the last word
    expect(run([key('answer 30'), key('w', { ctrl: true })], killed).transcript!.findDraft).toBe('answer ');
  });

  it('Esc goes back to the list with the same selection', () => {
    const state = run([...ready, key('', { escape: true })]);
    expect(state.mode).toBe('list');
    expect(state.transcript).toBeNull();
    expect(selectedId(state)).toBe('a');
  });

  it('shows the start of a big transcript, then the whole one without moving the reader', () => {
    const big: CatalogSession = { ...sessions[0]!, userTurns: 2, userTurnsExact: false };
    const start: Action = { type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems({ ...full, messages: full.messages.slice(0, 20) }), partial: true };
    const partial = run([{ type: 'scanDone', sessions: [big], problems: [] }, right, start, key(']'), key(']')]);
    expect(partial.transcript?.partial).toBe(true);
    expect(partial.transcript?.layout?.turnStarts).toHaveLength(10);
    expect(partial.transcript?.turn).toBe(3);
    // the list keeps its lower bound until every line is read
    expect(partial.byKey.get('codex:a')?.userTurnsExact).toBe(false);
    // a fork waits for the turn numbers to be final
    expect(browserReducer(partial, key('f')).mode).toBe('transcript');
    expect(browserReducer(partial, key('f')).notice?.text).toMatch(/still reading/);
    const whole = browserReducer(partial, { type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(full) });
    expect(whole.transcript?.partial).toBe(false);
    expect(whole.transcript?.layout?.turnStarts).toHaveLength(30);
    expect(whole.transcript?.top).toBe(partial.transcript?.top);
    expect(whole.transcript?.turn).toBe(3);
    expect(whole.byKey.get('codex:a')?.userTurns).toBe(30);
    // a re-read (the file grew) shows its start too early: the whole transcript on screen stays
    expect(browserReducer(whole, start)).toBe(whole);
  });

  it('learns the exact turn count of a big session', () => {
    const big: CatalogSession = { ...sessions[0]!, userTurns: 2, userTurnsExact: false };
    const state = run([
      { type: 'scanDone', sessions: [big], problems: [] },
      right,
      { type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(transcriptOf(big, 6)) },
    ]);
    expect(state.byKey.get('codex:a')?.userTurns).toBe(6);
    expect(state.byKey.get('codex:a')?.userTurnsExact).toBe(true);
  });
});

describe('fork prompt', () => {
  const ready = [
    loaded,
    right,
    { type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(transcriptOf(sessions[0]!, 4)) } as Action,
  ];

  it('on turn 1 (nothing before it) offers the whole session; Enter forks every turn', () => {
    const state = run([...ready, key('f')]);
    expect(state.mode).toBe('fork');
    expect(state.fork).toMatchObject({ whole: true, turns: 4, status: 'editing' });
    // no other extent to choose there
    expect(browserReducer(state, key('', { upArrow: true })).fork?.whole).toBe(true);
    const working = browserReducer(state, enter);
    const forked = catalogSession({ id: 'all1', updatedAt: '2026-11-10T00:00:00Z', forkedFrom: 'a', path: '/sessions/all1.jsonl' });
    expect(browserReducer(working, { type: 'forkDone', session: forked, resumeCommand: 'codex resume all1' }).notice?.text).toMatch(/^forked with all 4 turns → /);
  });

  it('↑↓ choose between the turns before the selected one and all of them', () => {
    const before = run([...ready, key(']'), key(']'), key('f')]);
    expect(before.fork).toMatchObject({ atTurn: 3, whole: false, turns: 4 });
    const all = browserReducer(before, key('', { downArrow: true }));
    expect(all.fork).toMatchObject({ atTurn: 3, whole: true });
    expect(browserReducer(all, key('', { upArrow: true })).fork?.whole).toBe(false);
  });

  it('↑↓ also offer the code as it was where the agent recorded the turn\'s files', () => {
    const items = withCodeMarks(buildTranscriptItems(transcriptOf(sessions[0]!, 4)), [
      { recorded: true, files: ['a.ts'] },
      { recorded: false, files: null },
      { recorded: true, files: ['b.ts', 'c.ts'] },
      { recorded: true, files: null },
    ]);
    const marked: Action[] = [loaded, right, { type: 'transcriptLoaded', key: 'codex:a', items }];
    const at3 = run([...marked, key(']'), key(']'), key('f')]);
    expect(at3.fork).toMatchObject({ atTurn: 3, whole: false, withCode: false, codeRecorded: true });
    const down = (state: BrowserState) => browserReducer(state, key('', { downArrow: true }));
    const code = down(at3);
    expect(code.fork).toMatchObject({ whole: false, withCode: true });
    expect(down(code).fork).toMatchObject({ whole: true, withCode: false });
    expect(down(down(code)).fork).toMatchObject({ whole: false, withCode: false });
    expect(browserReducer(at3, key('', { upArrow: true })).fork).toMatchObject({ whole: true, withCode: false });
    // Tab to another agent: the hand-off runs in the worktree too
    const handed = browserReducer(code, key('', { tab: true }));
    expect(handed.fork).toMatchObject({ withCode: true, whole: false });
    expect(handed.fork?.target).not.toBe(sessions[0]!.agent);
    // turn 2 recorded nothing: no code to offer
    const at2 = run([...marked, key(']'), key('f')]);
    expect(at2.fork).toMatchObject({ atTurn: 2, codeRecorded: false });
    expect(down(at2).fork).toMatchObject({ whole: true, withCode: false });
    const forked = catalogSession({ id: 'c1', updatedAt: '2026-11-10T00:00:00Z', forkedFrom: 'a', path: '/sessions/c1.jsonl', cwd: '/repo-c1' });
    expect(browserReducer(browserReducer(code, enter), { type: 'forkDone', session: forked, resumeCommand: 'codex resume c1' }).notice?.text).toMatch(/^forked before turn 3 \(kept 2 turns, with the code as it was\) → /);
  });

  it("the list's menu hands the selected row's whole session off without reading it first", () => {
    const menu = run([loaded, key('', { tab: true })]);
    const prompt = browserReducer(menu, key('f'));
    expect(prompt.mode).toBe('fork');
    expect(prompt.fork).toMatchObject({ session: sessions[0], whole: true, turns: sessions[0]!.userTurns });
    const handed = browserReducer(browserReducer(prompt, key('', { tab: true })), enter);
    expect(handed.fork).toMatchObject({ target: 'claude', whole: true, status: 'working' });
    // Esc goes back to the list it came from
    expect(browserReducer(prompt, key('', { escape: true })).mode).toBe('list');
  });

  it('asks before turn 3 with that turn\'s text, takes a branch name, Esc cancels', () => {
    const state = run([...ready, key(']'), key(']'), key('f'), key('w'), key('i'), key('p'), key('', { backspace: true })]);
    expect(state.mode).toBe('fork');
    expect(state.fork).toMatchObject({ atTurn: 3, turnText: 'question 3', branchName: 'wi', status: 'editing' });
    expect(run([...ready, key(']'), key(']'), key('f'), key('', { escape: true })]).mode).toBe('transcript');
  });

  it('Tab picks the agent to continue in (the session\'s own first), Shift-Tab goes back; done says it was handed off', () => {
    const prompt = [...ready, key(']'), key(']'), key('f')];
    // The session's own agent, then every other the registry can hand off to, in the registry's order, and round.
    const choices = continueChoices('codex');
    expect(choices.slice(0, 3)).toEqual(['codex', 'claude', 'claw']);
    const tabs = (n: number) => Array.from({ length: n }, () => key('', { tab: true }));
    for (let n = 0; n <= choices.length; n++) expect(run([...prompt, ...tabs(n)]).fork?.target, `${n} tabs`).toBe(choices[n % choices.length]);
    expect(run([...prompt, key('', { tab: true, shift: true })]).fork?.target).toBe(choices.at(-1));
    const working = run([...prompt, key('', { tab: true }), enter]);
    expect(working.fork).toMatchObject({ target: 'claude', status: 'working' });
    expect(browserReducer(working, key('', { tab: true })).fork?.target, 'no change while it runs').toBe('claude');
    const handed = catalogSession({ id: 'hand1', agent: 'claude', updatedAt: '2026-11-10T00:00:00Z', path: '/claude/hand1.jsonl' });
    const done = browserReducer(working, { type: 'forkDone', session: handed, resumeCommand: 'cd /x && claude --resume hand1' });
    expect(done.notice?.text).toMatch(/^handed off to claude before turn 3 \(kept 2 turns\)/);
    expect(selectedId(done)).toBe('hand1');
  });

  it('Enter starts the fork; it cannot be cancelled while it runs; done selects the fork in the list', () => {
    const working = run([...ready, key(']'), key(']'), key('f'), enter]);
    expect(working.fork?.status).toBe('working');
    expect(browserReducer(working, key('', { escape: true })).fork?.status).toBe('working');
    const forked = catalogSession({ id: 'fork1', updatedAt: '2026-11-10T00:00:00Z', forkedFrom: 'a', path: '/sessions/fork1.jsonl' });
    const done = browserReducer(working, { type: 'forkDone', session: forked, resumeCommand: 'cd /x && codex resume fork1' });
    expect(done.mode).toBe('list');
    expect(done.transcript).toBeNull();
    expect(selectedId(done)).toBe('fork1');
    expect(done.notice?.text).toContain('/sessions/fork1.jsonl');
    expect(done.notice?.detail).toContain('codex resume fork1');
  });

  it('done: the fork\'s own row wins over the one the watcher listed before it knew it was a fork', () => {
    const working = run([...ready, key(']'), key(']'), key('f'), enter]);
    const unlinked = catalogSession({ id: 'fork1', updatedAt: '2026-11-01T00:00:00Z', path: '/sessions/fork1.jsonl' });
    const listed = browserReducer(working, { type: 'catalogChanged', upserted: [unlinked], removed: [] });
    const forked = { ...unlinked, updatedAt: '2026-11-10T00:00:00Z', forkedFrom: 'a', fork: { id: 'a', atTurn: 3 } };
    const done = browserReducer(listed, { type: 'forkDone', session: forked, resumeCommand: 'cd /x && codex resume fork1' });
    expect(done.byKey.get('codex:fork1')).toMatchObject({ forkedFrom: 'a', updatedAt: '2026-11-10T00:00:00Z' });
    expect(selectedId(done)).toBe('fork1');
  });

  it('a failed fork shows the error and stays in the prompt', () => {
    const working = run([...ready, key(']'), key('f'), enter]);
    const failed = browserReducer(working, { type: 'forkFailed', message: 'disk full' });
    expect(failed.mode).toBe('fork');
    expect(failed.fork).toMatchObject({ status: 'error', error: 'disk full' });
    expect(browserReducer(failed, key('', { escape: true })).mode).toBe('transcript');
  });
});

describe('resume and quit', () => {
  it('Enter asks the container to check, then decides', () => {
    const requested = run([loaded, key('', { downArrow: true }), enter]);
    expect(requested.resumeRequest && sessionKey(requested.resumeRequest)).toBe('codex:b');
    const decided = browserReducer(requested, { type: 'resumeChecked', session: requested.resumeRequest!, outcome: { kind: 'go' } });
    expect(decided.decision).toEqual({ kind: 'resume', session: sessions[1] });
  });

  it('a missing directory asks first; y resumes here, n goes back', () => {
    const requested = run([loaded, enter]);
    const asked = browserReducer(requested, { type: 'resumeChecked', session: sessions[0]!, outcome: { kind: 'ask', message: 'gone' } });
    expect(asked.mode).toBe('confirm');
    expect(browserReducer(asked, key('y')).decision).toEqual({ kind: 'resume', session: sessions[0], here: true });
    const declined = browserReducer(asked, key('n'));
    expect(declined.mode).toBe('list');
    expect(declined.decision).toBeNull();
  });

  it('a session open in an agent asks in the browser: r resumes anyway, f forks, Esc and c go back, Enter answers nothing', () => {
    const requested = run([loaded, enter]);
    const asked = browserReducer(requested, { type: 'resumeChecked', session: sessions[0]!, outcome: { kind: 'inUse', message: 'open in codex' } });
    expect(asked.mode).toBe('confirm');
    expect(asked.confirm).toMatchObject({ kind: 'inUse', message: 'open in codex' });
    expect(browserReducer(asked, key('r')).decision).toEqual({ kind: 'resume', session: sessions[0], inUseAnswered: true });
    // f: back to the list while the whole session is forked, then the fork is resumed
    const forking = browserReducer(asked, key('f'));
    expect(forking).toMatchObject({ mode: 'list', confirm: null, decision: null, forkThenResume: sessions[0] });
    expect(browserReducer(forking, { type: 'forkThenResumeDone', session: sessions[1]! }).decision).toEqual({ kind: 'resume', session: sessions[1], inUseAnswered: true });
    const failed = browserReducer(forking, { type: 'forkThenResumeFailed', message: 'disk full' });
    expect(failed).toMatchObject({ decision: null, forkThenResume: null, notice: { tone: 'error', text: 'cannot fork it: disk full' } });
    // y is the other question's answer, and Enter the key that asked: neither starts an agent here
    for (const pressed of [key('y'), enter]) {
      const same = browserReducer(asked, pressed);
      expect(same.decision).toBeNull();
      expect(same.mode).toBe('confirm');
    }
    for (const cancel of [key('', { escape: true }), key('c')]) {
      const back = browserReducer(asked, cancel);
      expect(back.mode).toBe('list');
      expect(back.confirm).toBeNull();
      expect(back.decision).toBeNull();
    }
  });

  it('Esc with nothing typed and Ctrl-C quit; q is typed', () => {
    expect(run([loaded, key('', { escape: true })]).decision).toEqual({ kind: 'quit' });
    expect(run([loaded, key('c'), key('c', { ctrl: true })]).decision).toEqual({ kind: 'quit' });
    const typed = run([loaded, key('q')]);
    expect(typed.decision).toBeNull();
    expect(typed.query).toBe('q');
  });
});

describe('the action menu (Tab)', () => {
  const tab = key('', { tab: true });

  it("opens on the selected row with resume first: Enter there resumes it, Esc closes it", () => {
    const menu = run([loaded, key('', { downArrow: true }), tab]);
    expect(menu.mode).toBe('menu');
    expect(menu.menu).toEqual({ selected: 0, returnTo: 'list' });
    expect(run([enter], menu).resumeRequest?.id).toBe('b');
    const closed = run([key('', { escape: true })], menu);
    expect(closed.mode).toBe('list');
    expect(closed.decision).toBeNull();
  });

  it('a letter runs its item (s sorts, a shows every directory, o opens, ? helps); ↓ then Enter runs the next one', () => {
    expect(run([loaded, tab, key('s')])).toMatchObject({ mode: 'list', sort: 'created', menu: null });
    expect(run([loaded, tab, key('a')]).scope).toBe('all');
    expect(run([loaded, tab, key('o')]).mode).toBe('transcript');
    const help = run([loaded, tab, key('?')]);
    expect(help.mode).toBe('help');
    expect(run([key('', { escape: true })], help).mode).toBe('list');
    expect(run([loaded, tab, key('', { downArrow: true }), enter]).mode).toBe('transcript');
  });

  it('no letter resumes: a pasted Tab and r opens the menu and does nothing else', () => {
    const pasted = run([loaded, key('\tr')]);
    expect(pasted.mode).toBe('menu');
    expect(pasted.resumeRequest).toBeNull();
    expect(pasted.decision).toBeNull();
  });

  it('in a transcript: resume this session, or fork before the selected turn', () => {
    const reading = run([loaded, right, { type: 'transcriptLoaded', key: 'codex:a', items: buildTranscriptItems(transcriptOf(sessions[0]!, 4)) }, key(']'), tab]);
    expect(reading.menu).toEqual({ selected: 0, returnTo: 'transcript' });
    expect(run([enter], reading).resumeRequest?.id).toBe('a');
    const fork = run([key('f')], reading);
    expect(fork.mode).toBe('fork');
    expect(fork.fork?.atTurn).toBe(2);
    expect(run([key('', { escape: true })], reading).mode).toBe('transcript');
  });
});
