// The content-search hook: when a search starts (at once on Ctrl-G, after a pause while typing), that a new search
// of the same text starts from nothing, and that the first sessions found are handed over without waiting for a batch
// (those the engine hands over in the same turn together), then in batches: every 50 ms until the list's rows are
// filled, then every 250 ms.
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useContentSearch } from '../../src/ui/hooks/use-content-search.js';
import type { Action } from '../../src/ui/reducer.js';
import type { TuiServices } from '../../src/ui/services.js';
import type { ContentHit } from '../../src/ui/state.js';

const realImmediate = setImmediate;
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => realImmediate(resolve));
};

function Probe({ services, query, dispatch, rows }: { readonly services: TuiServices; readonly query: string; readonly dispatch: (action: Action) => void; readonly rows?: number }) {
  useContentSearch(services, query, dispatch, rows);
  return <Text>{query}</Text>;
}

type Grep = NonNullable<TuiServices['grep']>;

/** A grep whose searches are recorded: each one's text and the callbacks to answer it with. */
function fakeGrep(): { readonly services: TuiServices; readonly searches: { text: string; onHit: Parameters<Grep>[1]; onDone: Parameters<Grep>[2]; stopped: boolean }[] } {
  const searches: { text: string; onHit: Parameters<Grep>[1]; onDone: Parameters<Grep>[2]; stopped: boolean }[] = [];
  const grep: Grep = (text, onHit, onDone) => {
    const search = { text, onHit, onDone, stopped: false };
    searches.push(search);
    return () => {
      search.stopped = true;
    };
  };
  return { services: { grep } as unknown as TuiServices, searches };
}

const hit = (path: string): ContentHit => ({ paths: [path], matches: 0, snippet: { before: 'a ', match: 'deploy', after: ' b' } });
type Results = Extract<Action, { type: 'contentResults' }>;

describe('useContentSearch', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('Ctrl-G (a query that was not a content search) starts at once; typing after > waits for a pause', async () => {
    const { services, searches } = fakeGrep();
    const actions: Action[] = [];
    const dispatch = (action: Action): void => void actions.push(action);
    const app = render(<Probe services={services} query="deploy" dispatch={dispatch} />);
    await settle();
    app.rerender(<Probe services={services} query=">deploy" dispatch={dispatch} />);
    await settle();
    vi.advanceTimersByTime(0);
    expect(searches.map((search) => search.text)).toEqual(['deploy']);
    // No frame before something is found (Ctrl-G dropped any earlier results); the first batch starts from nothing.
    expect(actions).toEqual([]);
    searches[0]!.onHit(hit('/a.jsonl'));
    await settle();
    expect(actions).toEqual([{ type: 'contentResults', query: 'deploy', hits: [hit('/a.jsonl')], done: false, fresh: true }]);
    app.rerender(<Probe services={services} query=">deploys" dispatch={dispatch} />);
    await settle();
    expect(searches[0]!.stopped).toBe(true);
    vi.advanceTimersByTime(100);
    expect(searches).toHaveLength(1); // typed: not yet
    vi.advanceTimersByTime(200);
    expect(searches.map((search) => search.text)).toEqual(['deploy', 'deploys']);
    // Typed: what an earlier search of this text found is dropped as the search starts; its batches then add.
    expect(actions.at(-1)).toEqual({ type: 'contentResults', query: 'deploys', hits: [], done: false, fresh: true });
    searches[1]!.onHit(hit('/b.jsonl'));
    await settle();
    expect(actions.at(-1)).toEqual({ type: 'contentResults', query: 'deploys', hits: [hit('/b.jsonl')], done: false });
    app.unmount();
  });

  it('hands over the first sessions found at once (those of the same turn together), the rest in batches, then done', async () => {
    const { services, searches } = fakeGrep();
    const actions: Action[] = [];
    const dispatch = (action: Action): void => void actions.push(action);
    const app = render(<Probe services={services} query=">deploy" dispatch={dispatch} />);
    await settle();
    vi.advanceTimersByTime(0);
    const search = searches[0]!;
    search.onHit(hit('/a.jsonl'));
    search.onHit(hit('/a2.jsonl'));
    const results = (): Results[] => actions.filter((action): action is Results => action.type === 'contentResults');
    await settle();
    expect(results().map((action) => action.hits.map((one) => one.paths[0]))).toEqual([['/a.jsonl', '/a2.jsonl']]);
    search.onHit(hit('/b.jsonl'));
    search.onHit(hit('/c.jsonl'));
    await settle();
    expect(results()).toHaveLength(1);
    vi.advanceTimersByTime(60);
    expect(results().map((action) => action.hits.map((one) => one.paths[0]))).toEqual([['/a.jsonl', '/a2.jsonl'], ['/b.jsonl', '/c.jsonl']]);
    search.onDone(null);
    expect(results().at(-1)).toMatchObject({ hits: [], done: true });
    app.unmount();
  });

  it('once the rows the list shows are filled, batches come every 250 ms (each is a frame on the cores the search uses)', async () => {
    const { services, searches } = fakeGrep();
    const actions: Action[] = [];
    const app = render(<Probe services={services} query=">deploy" rows={20} dispatch={(action) => void actions.push(action)} />);
    await settle();
    vi.advanceTimersByTime(0);
    const search = searches[0]!;
    const sizes = (): number[] => actions.filter((action): action is Results => action.type === 'contentResults').map((action) => action.hits.length);
    search.onHit(hit('/first.jsonl'));
    await settle();
    for (let i = 0; i < 18; i++) search.onHit(hit(`/s${i}.jsonl`));
    vi.advanceTimersByTime(60);
    expect(sizes()).toEqual([1, 18]);
    search.onHit(hit('/next.jsonl')); // 19 listed, the list shows 20: still every 50 ms
    vi.advanceTimersByTime(60);
    expect(sizes()).toEqual([1, 18, 1]);
    search.onHit(hit('/late.jsonl'));
    vi.advanceTimersByTime(200);
    expect(sizes()).toEqual([1, 18, 1]);
    vi.advanceTimersByTime(60);
    expect(sizes()).toEqual([1, 18, 1, 1]);
    app.unmount();
  });
});
