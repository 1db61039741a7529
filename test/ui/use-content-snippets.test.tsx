// The snippets hook: while the engine still searches, no snippet reader is made (its worker would boot and read on the
// cores the search uses) until the list moves or the search has run SNIPPETS_DURING_SEARCH_AFTER_MS; once the search
// is done, the rows on screen are read and their snippets handed over.
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import type { Snippet } from '../../src/core/io/snippet.js';
import { SNIPPETS_DURING_SEARCH_AFTER_MS, useContentSnippets } from '../../src/ui/hooks/use-content-snippets.js';
import { listGeometry, noticeRows } from '../../src/ui/geometry.js';
import { keyOf } from '../../src/ui/keymap.js';
import { browserReducer, type Action } from '../../src/ui/reducer.js';
import type { TuiServices } from '../../src/ui/services.js';
import { initialState, type BrowserState, type ContentHit } from '../../src/ui/state.js';
import { catalogSession } from './helpers.js';

const realImmediate = setImmediate;
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => realImmediate(resolve));
};

function Probe({ services, state, dispatch }: { readonly services: TuiServices; readonly state: BrowserState; readonly dispatch: (action: Action) => void }) {
  useContentSnippets(services, state, dispatch);
  return <Text>{state.query}</Text>;
}

const sessions: CatalogSession[] = Array.from({ length: 40 }, (_, i) =>
  catalogSession({ id: `s${i}`, updatedAt: new Date(Date.UTC(2026, 10, 1) - i * 60000).toISOString(), cwd: '/home/dev/api' }),
);
const hit = (session: CatalogSession): ContentHit => ({ paths: session.paths, matches: 0, snippet: null });
const snippetOf = (id: string): Snippet => ({ before: `${id} `, match: 'deploy', after: ' here' });

/** A snippet reader per text made, each read recorded and answered with a snippet naming the session. */
function fakeSnippets(): { readonly services: TuiServices; readonly made: string[]; readonly reads: string[] } {
  const made: string[] = [];
  const reads: string[] = [];
  const contentSnippets: NonNullable<TuiServices['contentSnippets']> = (text) => {
    made.push(text);
    return {
      read: (session) => {
        reads.push(session.id);
        return Promise.resolve(snippetOf(session.id));
      },
      close: () => undefined,
    };
  };
  return { services: { contentSnippets } as unknown as TuiServices, made, reads };
}

describe('useContentSnippets', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const start = (): BrowserState => {
    let state = initialState({ size: { columns: 100, rows: 20 }, cwd: '/home/dev/api', homeDir: '/home/dev', now: 0, scope: 'all' });
    state = browserReducer(state, { type: 'scanDone', sessions, problems: [] });
    state = browserReducer(state, { type: 'key', input: 'deploy', key: keyOf({}) });
    state = browserReducer(state, { type: 'key', input: 'g', key: keyOf({ ctrl: true }) });
    state = browserReducer(state, { type: 'contentResults', query: 'deploy', hits: [], done: false, fresh: true });
    return browserReducer(state, { type: 'contentResults', query: 'deploy', hits: sessions.slice(0, 30).map(hit), done: false });
  };

  it('reads no snippet while the search runs, then the rows on screen once it is done', async () => {
    const { services, made, reads } = fakeSnippets();
    const actions: Action[] = [];
    let state = start();
    const app = render(<Probe services={services} state={state} dispatch={(action) => void actions.push(action)} />);
    await settle();
    state = browserReducer(state, { type: 'contentResults', query: 'deploy', hits: sessions.slice(30).map(hit), done: false });
    app.rerender(<Probe services={services} state={state} dispatch={(action) => void actions.push(action)} />);
    await settle();
    expect(made).toEqual([]);
    expect(reads).toEqual([]);
    state = browserReducer(state, { type: 'contentResults', query: 'deploy', hits: [], done: true });
    app.rerender(<Probe services={services} state={state} dispatch={(action) => void actions.push(action)} />);
    await settle();
    expect(made).toEqual(['deploy']);
    const { listHeight } = listGeometry(state.size, noticeRows(state.notice, state.size.columns));
    const onScreen = state.rows.slice(state.listTop, state.listTop + listHeight).map((row) => row.session.id);
    expect(onScreen.length).toBeGreaterThan(3);
    expect(reads).toEqual(onScreen);
    vi.advanceTimersByTime(200);
    const handed = actions.filter((action): action is Extract<Action, { type: 'contentSnippets' }> => action.type === 'contentSnippets');
    expect(handed.flatMap((action) => action.snippets.map(([, snippet]) => snippet.before.trim()))).toEqual(reads);
    app.unmount();
  });

  it('reads while the search runs once the selection moves', async () => {
    const { services, made, reads } = fakeSnippets();
    let state = start();
    const app = render(<Probe services={services} state={state} dispatch={() => undefined} />);
    await settle();
    expect(reads).toEqual([]);
    state = browserReducer(state, { type: 'key', input: '', key: keyOf({ downArrow: true }) });
    expect(state.selected).toBe(1);
    app.rerender(<Probe services={services} state={state} dispatch={() => undefined} />);
    await settle();
    expect(made).toEqual(['deploy']);
    expect(reads[0]).toBe(state.rows.at(state.listTop)!.session.id);
    app.unmount();
  });

  it('reads while the search runs once it has run long enough', async () => {
    const { services, made } = fakeSnippets();
    const state = start();
    const app = render(<Probe services={services} state={state} dispatch={() => undefined} />);
    await settle();
    vi.advanceTimersByTime(SNIPPETS_DURING_SEARCH_AFTER_MS - 10);
    await settle();
    expect(made).toEqual([]);
    vi.advanceTimersByTime(20);
    await settle();
    expect(made).toEqual(['deploy']);
    app.unmount();
  });
});
