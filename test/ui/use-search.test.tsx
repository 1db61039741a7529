// The search hook's behaviour between keystrokes: what it searches and what it hands the reducer, with the
// hook's own timers faked (React's scheduler keeps the real ones it captured when it loaded).
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SearchIndex } from '../../src/catalog/search.js';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { useSearch } from '../../src/ui/hooks/use-search.js';
import type { Action } from '../../src/ui/reducer.js';
import { catalogSession } from './helpers.js';

const realImmediate = setImmediate;
/** Let React run its effects (on its own, real, scheduler). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => realImmediate(resolve));
};

/**
 * The clock the search's time slices are measured on: each reading is 3 ms after the last, so how much one slice
 * ranks depends on the code alone, never on how fast or busy the machine is.
 */
let ticks = 0;
const clock = (): number => (ticks += 3);

function Probe({ sessions, query, dispatch }: { readonly sessions: readonly CatalogSession[]; readonly query: string; readonly dispatch: (action: Action) => void }) {
  useSearch(sessions, query, dispatch, clock);
  return <Text>{query}</Text>;
}

const catalog = Array.from({ length: 900 }, (_, i) => catalogSession({ id: `s${String(i).padStart(4, '0')}`, title: i % 2 === 0 ? `deploy the parser ${i}` : `refactor module ${i}` }));

type Results = Extract<Action, { type: 'searchResults' }>;

describe('useSearch', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('searches once for keys that arrive before it runs: the last query only', async () => {
    const begin = vi.spyOn(SearchIndex.prototype, 'begin');
    const actions: Action[] = [];
    const dispatch = (action: Action): void => void actions.push(action);
    const app = render(<Probe sessions={catalog} query="d" dispatch={dispatch} />);
    await settle();
    app.rerender(<Probe sessions={catalog} query="de" dispatch={dispatch} />);
    await settle();
    app.rerender(<Probe sessions={catalog} query="dep" dispatch={dispatch} />);
    await settle();
    vi.runOnlyPendingTimers();
    expect(begin.mock.calls.map(([query]) => query)).toEqual(['dep']);
    expect(actions.every((action) => action.type === 'searchResults' && action.query === 'dep')).toBe(true);
    app.unmount();
  });

  it('hands over every match with the final count at once, and ranks the tail only once typing pauses', async () => {
    const actions: Results[] = [];
    const dispatch = (action: Action): void => void (action.type === 'searchResults' && actions.push(action));
    const app = render(<Probe sessions={catalog} query="module" dispatch={dispatch} />);
    await settle();
    // The walk's slices follow each other until the count is known: handed over once, with every match (the
    // first page alone only when the walk takes long).
    for (let i = 0; i < 100 && !actions.at(-1)?.counted; i++) vi.advanceTimersToNextTimer();
    const counted = actions.at(-1)!;
    expect(counted.counted).toBe(true);
    expect(actions).toHaveLength(1);
    expect(counted.hits).toHaveLength(450);
    expect(counted.pending).toBeGreaterThan(0);
    const handed = actions.length;
    // Nothing more until the pause is over: no slice of tail ranking runs between keystrokes.
    vi.advanceTimersByTime(250);
    expect(actions).toHaveLength(handed);
    // After the pause the tail is ranked in slices, and the last hand-over is the complete ranking.
    for (let i = 0; i < 200 && actions.at(-1)!.pending > 0; i++) vi.advanceTimersToNextTimer();
    const last = actions.at(-1)!;
    expect(last.pending).toBe(0);
    expect(last.hits.map((hit) => hit.key)).toEqual(new SearchIndex(catalog).search('module').map((hit) => hit.key));
    app.unmount();
  });
});
