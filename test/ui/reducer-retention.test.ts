// What the list's state holds on to from keystroke to keystroke. A query's rows are a view made when read; the view
// once held the whole state it was made from, whose rows held the state before it, and so on: every keystroke's hits
// and rows stayed reachable for as long as the user typed (at 100k sessions, tens of MB held after a typing session).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import type { SearchHit } from '../../src/catalog/search.js';
import { ListView } from '../../src/core/list-view.js';
import { keyOf } from '../../src/ui/keymap.js';
import { browserReducer, type Action } from '../../src/ui/reducer.js';
import { initialState, type BrowserState } from '../../src/ui/state.js';
import { catalogSession } from './helpers.js';

/** A full collection (the gc of a context made once --expose-gc is set, as run.tsx gets it). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const sessions: CatalogSession[] = ['a', 'b', 'c', 'd'].map((id, i) => catalogSession({ id, updatedAt: `2026-11-0${5 - i}T00:00:00Z`, cwd: `/src/${id}` }));
const key = (input: string): Action => ({ type: 'key', input, key: keyOf({}) });
const byId = (id: string): CatalogSession => sessions.find((one) => one.id === id)!;
/** A query's matches as a search hands them over: a view whose hits are made when read. */
const matches = (ids: readonly string[]): ListView<SearchHit> => new ListView(ids.length, (i) => ({ key: `codex:${ids[i]!}`, session: byId(ids[i]!), score: 0 }));

/** The state after typing `typed` (every key's results handed over), and weak references to its first key's matches and rows. */
function typeQuery(typed: string): { readonly state: BrowserState; readonly first: readonly WeakRef<object>[] } {
  let state = [{ type: 'scanDone', sessions, problems: [] } as Action, { type: 'toggleScope' } as Action].reduce(browserReducer, initialState({ size: { columns: 100, rows: 30 }, cwd: '/src/a', homeDir: '/home/dev', now: 0 }));
  let first: WeakRef<object>[] | null = null;
  for (let i = 1; i <= typed.length; i++) {
    state = browserReducer(state, key(typed[i - 1]!));
    const hits = matches(i % 2 === 0 ? ['a', 'c'] : ['b', 'd', 'a']);
    state = browserReducer(state, { type: 'searchResults', query: typed.slice(0, i), hits, pending: 0, catalog: state.sessions });
    first ??= [new WeakRef(hits), new WeakRef(state.rows)];
  }
  return { state, first: first! };
}

it("a query's rows do not hold the states of the keys typed before it", async () => {
  const gc = collector();
  const { state, first } = typeQuery('deploy');
  expect(state.scope).toBe('all');
  expect(state.rows).toBeInstanceOf(ListView); // the view path, made when read
  expect(state.rows.map((row) => row.session.id)).toEqual(['a', 'c']);
  // A WeakRef's target is kept until the current job ends: collect on a later turn.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  expect(first.map((ref) => ref.deref())).toEqual([undefined, undefined]);
  expect(state.rows.at(1)?.session.id).toBe('c');
});
