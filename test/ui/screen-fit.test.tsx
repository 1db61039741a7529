// What the screen's chrome shows at the sizes people use: the footer's keys whole at 80 columns in every mode, and
// prompts that cover what is behind them (the side preview's divider does not run on through them).
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { Footer, FOOTER_HINTS, IN_USE_HINTS, QUERY_HINTS, CONTENT_HINTS } from '../../src/ui/components/Footer.js';
import { Screen } from '../../src/ui/components/Screen.js';
import { browserReducer, type Action } from '../../src/ui/reducer.js';
import { initialState, type BrowserState, type Mode } from '../../src/ui/state.js';
import { catalogSession } from './helpers.js';

const sessions = Array.from({ length: 12 }, (_, i) => catalogSession({ id: `s${i}`, title: `session number ${i}`, updatedAt: `2026-11-01T10:${String(50 - i).padStart(2, '0')}:00.000Z` }));

function stateAt(columns: number, rows: number, actions: readonly Action[]): BrowserState {
  const start = initialState({ size: { columns, rows }, cwd: '/home/dev/src/api', homeDir: '/home/dev', now: Date.parse('2026-11-02T00:00:00Z'), scope: 'all' });
  return [{ type: 'scanDone', sessions, problems: [] } as Action, ...actions].reduce(browserReducer, start);
}

const key = (input: string, partial: Record<string, boolean> = {}): Action => ({ type: 'key', input, key: { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageUp: false, pageDown: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, ...partial } });

describe('the footer at 80 columns', () => {
  const footer = (state: BrowserState): string => {
    const app = render(<Footer state={state} width={80} />);
    const frame = app.lastFrame() ?? '';
    app.unmount();
    return frame;
  };

  it.each(Object.entries(FOOTER_HINTS).filter(([mode]) => mode !== 'list') as [Mode, string][])('%s: every key it names is on screen, none cut', (mode, hints) => {
    expect(footer({ ...stateAt(80, 24, []), mode })).toContain(hints);
  });

  it('the list: its keys beside an empty query, a short one, and a content search just started', () => {
    const empty = footer(stateAt(80, 24, []));
    expect(empty).toContain(`search:    ${FOOTER_HINTS.list}`);
    expect(footer(stateAt(80, 24, [key('api')]))).toContain(`search: api   ${QUERY_HINTS}`);
    expect(footer(stateAt(80, 24, [key('g', { ctrl: true })]))).toContain(`search: >   ${CONTENT_HINTS}`);
  });
});

describe('prompts over the side preview', () => {
  it("the resume question's rows hold its text only: the preview's │ divider stops above it", () => {
    const asked = stateAt(160, 30, [
      { type: 'resumeChecked', session: sessions[0]!, outcome: { kind: 'ask', message: "The session's directory /gone no longer exists." } },
    ]);
    expect(asked.mode).toBe('confirm');
    const app = render(<Screen state={asked} lookedIn={[]} />);
    const lines = (app.lastFrame() ?? '').split('\n');
    app.unmount();
    const top = lines.findIndex((line) => line.startsWith('╭'));
    expect(top).toBeGreaterThan(0);
    // the divider is in the list's rows above the prompt
    expect(lines[top - 1]).toContain('│');
    const inside = lines.slice(top + 1, lines.findIndex((line) => line.startsWith('╰')));
    expect(inside.length).toBe(2);
    for (const line of inside) expect(line.trimEnd().slice(1, -1)).not.toContain('│');
    expect(inside[0]).toContain('no longer exists');
  });

  it('the in-use question fits 80 columns: its three answers on screen, and the footer says them', () => {
    const asked = stateAt(80, 24, [{ type: 'resumeChecked', session: sessions[0]!, outcome: { kind: 'inUse', message: 'codex session 01a2 looks open in an agent (held open by codex, pid 4242).' } }]);
    const app = render(<Screen state={asked} lookedIn={[]} />);
    const lines = (app.lastFrame() ?? '').split('\n');
    app.unmount();
    expect(lines.length).toBeLessThanOrEqual(24);
    const top = lines.findIndex((line) => line.startsWith('╭'));
    const inside = lines.slice(top + 1, lines.findIndex((line) => line.startsWith('╰')));
    expect(inside[0]).toContain('looks open in an agent');
    expect(lines.at(-1)).toContain(IN_USE_HINTS);
  });

  it('so does the action menu', () => {
    const menu = stateAt(160, 30, [key('', { tab: true })]);
    const app = render(<Screen state={menu} lookedIn={[]} />);
    const lines = (app.lastFrame() ?? '').split('\n');
    app.unmount();
    const top = lines.findIndex((line) => line.startsWith('╭'));
    const inside = lines.slice(top + 1, lines.findIndex((line) => line.startsWith('╰')));
    expect(inside[1]).toContain('resume in codex');
    for (const line of inside) expect(line.trimEnd().slice(1, -1)).not.toContain('│');
    expect(lines.length).toBeLessThanOrEqual(29);
  });
});
