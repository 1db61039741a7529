// Rename and delete in the browser: the row's Tab menu opens a name prompt or a question; nothing is written until
// Enter there (rename) or y (delete), and no printable key in the list starts either; Ctrl-R undoes the last delete.
import { describe, expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { keyOf } from '../../src/ui/keymap.js';
import { menuItems } from '../../src/ui/menu.js';
import { browserReducer, type Action } from '../../src/ui/reducer.js';
import { initialState, type BrowserState } from '../../src/ui/state.js';
import { catalogSession } from './helpers.js';

const CWD = '/home/dev/src/api';
const sessions: CatalogSession[] = [
  catalogSession({ id: 'a', title: 'first', updatedAt: '2026-11-05T00:00:00Z' }),
  catalogSession({ id: 'b', title: 'second', updatedAt: '2026-11-04T00:00:00Z' }),
];
const run = (actions: readonly Action[], start: BrowserState = initialState({ size: { columns: 100, rows: 30 }, cwd: CWD, homeDir: '/home/dev', now: 0 })): BrowserState =>
  actions.reduce(browserReducer, start);
const key = (input: string, partial: Parameters<typeof keyOf>[0] = {}): Action => ({ type: 'key', input, key: keyOf(partial) });
const loaded: Action = { type: 'scanDone', sessions, problems: [] };
const tab = key('', { tab: true });
const enter = key('', { return: true });
/** Tab, then the menu item whose label starts with `label`, chosen with ↓ and Enter. */
function choose(state: BrowserState, label: string): BrowserState {
  const menu = run([tab], state);
  const at = menuItems(menu).findIndex((item) => item.label.startsWith(label));
  expect(at, label).toBeGreaterThanOrEqual(0);
  return run([...Array.from({ length: at }, () => key('', { downArrow: true })), enter], menu);
}

describe('rename in the browser', () => {
  it('Tab → rename… opens a prompt: typed keys edit the name, Enter asks for the write, Esc cancels', () => {
    const prompt = choose(run([loaded]), 'rename');
    expect(prompt.mode).toBe('rename');
    expect(prompt.rename).toMatchObject({ name: '', status: 'editing' });
    expect(prompt.rename?.session.id).toBe('a');
    const typed = run([key('h'), key('i'), key('x'), key('', { backspace: true }), key('!')], prompt);
    expect(typed.rename).toMatchObject({ name: 'hi!', status: 'editing' });
    expect(run([enter], typed).rename?.status).toBe('working');
    expect(run([key('', { escape: true })], typed)).toMatchObject({ mode: 'list', rename: null });
    // An empty name is not written.
    expect(run([enter], prompt).rename).toMatchObject({ status: 'error', error: 'type a name first' });
  });

  it('the new row replaces the old one when the write is done; a failure stays in the prompt', () => {
    const working = run([key('x'), enter], choose(run([loaded]), 'rename'));
    const done = run([{ type: 'renameDone', session: { ...sessions[0]!, title: 'renamed', name: 'renamed' } }], working);
    expect(done).toMatchObject({ mode: 'list', rename: null });
    expect(done.rows.map((row) => row.session.title)).toEqual(['renamed', 'second']);
    expect(run([{ type: 'renameFailed', message: 'no' }], working).rename).toMatchObject({ status: 'error', error: 'no' });
  });
});

describe('delete in the browser', () => {
  it('Tab → delete asks first; only y confirms (Enter does not), n or Esc keeps it', () => {
    const asked = choose(run([loaded, key('', { downArrow: true })]), 'delete');
    expect(asked.mode).toBe('confirm');
    expect(asked.confirm).toMatchObject({ kind: 'remove' });
    expect(asked.confirm?.session.id).toBe('b');
    expect(run([enter], asked).pendingWrite).toBeNull();
    expect(run([key('n')], asked)).toMatchObject({ mode: 'list', confirm: null, pendingWrite: null });
    expect(run([key('', { escape: true })], asked)).toMatchObject({ mode: 'list', pendingWrite: null });
    const confirmed = run([key('y')], asked);
    expect(confirmed.pendingWrite).toMatchObject({ kind: 'remove' });
    expect(confirmed.pendingWrite?.session.id).toBe('b');
  });

  it('the row leaves the list once it is in the trash; Ctrl-R asks for it back, and it returns', () => {
    const confirmed = run([key('y')], choose(run([loaded]), 'delete'));
    const removed = run([{ type: 'removeDone', session: sessions[0]! }], confirmed);
    expect(removed.rows.map((row) => row.session.id)).toEqual(['b']);
    expect(removed.lastDeleted?.id).toBe('a');
    expect(removed.notice?.text).toContain('Ctrl-R');
    const undo = run([key('r', { ctrl: true })], removed);
    expect(undo.pendingWrite).toMatchObject({ kind: 'restore' });
    expect(undo.query).toBe('');
    const back = run([{ type: 'restoreDone', session: sessions[0]! }], undo);
    expect(back.rows.map((row) => row.session.id)).toEqual(['a', 'b']);
    expect(back).toMatchObject({ lastDeleted: null, pendingWrite: null });
  });

  it('no printable key in the list starts a write: every one types into the query', () => {
    let state = run([loaded]);
    for (const char of 'ydrnzuDRY!') state = run([key(char)], state);
    expect(state.query).toBe('ydrnzuDRY!');
    expect(state).toMatchObject({ mode: 'list', pendingWrite: null, rename: null, confirm: null });
  });
});
