// The list renders the rows on screen only, and a frame that changes other rows (or the length of the list)
// does not lay out the unchanged ones again.
import { render } from 'ink-testing-library';
import { describe, expect, it, vi } from 'vitest';
import type { ListRow } from '../../src/ui/state.js';
import { catalogSession } from './helpers.js';

const made = vi.hoisted(() => ({ rows: [] as string[] }));
vi.mock('../../src/ui/row-cells.js', async (original) => {
  const actual = await original<typeof import('../../src/ui/row-cells.js')>();
  return {
    ...actual,
    sessionRowSegments: (input: Parameters<typeof actual.sessionRowSegments>[0]) => {
      made.rows.push(input.session.id);
      return actual.sessionRowSegments(input);
    },
  };
});
const { SessionList } = await import('../../src/ui/components/SessionList.js');

const rows: ListRow[] = Array.from({ length: 5000 }, (_, i) => ({ session: catalogSession({ id: `row-${i}`, title: `title number ${i}` }), hit: null }));
const list = (shown: readonly ListRow[], selected = 0) => (
  <SessionList rows={shown} top={0} selected={selected} width={100} height={6} now={Date.UTC(2026, 10, 2)} homeDir="/home/dev" sort="updated" emptyText="none" />
);

describe('SessionList', () => {
  it('lays out the rows on screen only, however long the list', () => {
    made.rows = [];
    const app = render(list(rows));
    expect(made.rows).toEqual(['row-0', 'row-1', 'row-2', 'row-3', 'row-4', 'row-5']);
    expect(app.lastFrame()).toContain('title number 5');
    expect(app.lastFrame()).not.toContain('title number 6');
    app.unmount();
  });

  it('does not lay out unchanged rows again when the list grows or the selection moves', () => {
    const app = render(list(rows.slice(0, 100)));
    made.rows = [];
    app.rerender(list(rows)); // the count changed, the screen's rows did not
    expect(made.rows).toEqual([]);
    app.rerender(list(rows, 1)); // the selection moved from row 0 to row 1: those two only
    expect(made.rows.sort()).toEqual(['row-0', 'row-1']);
    app.unmount();
  });
});
