// Hosts in the browser's reducer: each host's rows replace only that host's, the local list is never hidden.
import { describe, expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { SearchIndex } from '../../src/catalog/search.js';
import { keyOf } from '../../src/ui/keymap.js';
import { browserReducer, type Action } from '../../src/ui/reducer.js';
import { initialState, type BrowserState } from '../../src/ui/state.js';
import { catalogSession } from './helpers.js';

const size = { columns: 120, rows: 30 };
const local = [catalogSession({ id: 'l1', updatedAt: '2026-11-05T00:00:00Z' }), catalogSession({ id: 'l2', updatedAt: '2026-11-01T00:00:00Z' })];
const onHost = (id: string, host: string, updatedAt: string): CatalogSession => catalogSession({ id, host, updatedAt, cwd: '/srv/app' });

function run(actions: readonly Action[]): BrowserState {
  return actions.reduce(browserReducer, initialState({ size, cwd: '/', homeDir: '/home/dev', now: 0, scope: 'all', hosts: ['devbox', 'vm'] }));
}
const rows = (state: BrowserState): string[] => state.rows.map((row) => `${row.session.host ?? 'local'}/${row.session.id}`);

describe('hosts in the browser', () => {
  it('start as connecting; each update replaces that host\'s rows and status only', () => {
    const start = run([]);
    expect(start.hosts).toEqual([
      { name: 'devbox', status: { kind: 'connecting' } },
      { name: 'vm', status: { kind: 'connecting' } },
    ]);
    const state = run([
      { type: 'scanDone', sessions: local, problems: [] },
      { type: 'hostUpdate', host: 'devbox', status: { kind: 'ready', via: 'sessions', sessions: 2 }, sessions: [onHost('d1', 'devbox', '2026-11-06T00:00:00Z'), onHost('l1', 'devbox', '2026-11-02T00:00:00Z')] },
      { type: 'hostUpdate', host: 'vm', status: { kind: 'unreachable', reason: 'Permission denied (publickey).' }, sessions: null },
    ]);
    // The same id on another machine is another row.
    expect(rows(state)).toEqual(['devbox/d1', 'local/l1', 'devbox/l1', 'local/l2']);
    expect(state.hosts[1]).toEqual({ name: 'vm', status: { kind: 'unreachable', reason: 'Permission denied (publickey).' } });
    const again = browserReducer(state, { type: 'hostUpdate', host: 'devbox', status: { kind: 'ready', via: 'sessions', sessions: 1 }, sessions: [onHost('d2', 'devbox', '2026-11-03T00:00:00Z')] });
    expect(rows(again)).toEqual(['local/l1', 'devbox/d2', 'local/l2']);
  });

  it('rows from a host that arrive before this machine\'s scan is done stay when it is', () => {
    const state = run([
      { type: 'hostUpdate', host: 'devbox', status: { kind: 'ready', via: 'mirror', sessions: 1 }, sessions: [onHost('d1', 'devbox', '2026-11-06T00:00:00Z')] },
      { type: 'cachedCatalog', sessions: local },
      { type: 'scanDone', sessions: local, problems: [] },
    ]);
    expect(rows(state)).toEqual(['devbox/d1', 'local/l1', 'local/l2']);
  });

  it('the menu (Tab, then h) reads the hosts again; without hosts the menu does not offer it', () => {
    const tab: Action = { type: 'key', input: '', key: keyOf({ tab: true }) };
    const h: Action = { type: 'key', input: 'h', key: keyOf({}) };
    const state = run([tab, h]);
    expect(state.hostsRefresh).toBe(1);
    expect(state.mode).toBe('list');
    const none = [tab, h].reduce(browserReducer, initialState({ size, cwd: '/', homeDir: '/h', now: 0 }));
    expect(none.hostsRefresh).toBe(0);
    expect(none.query).toBe('');
    // the action itself, without hosts: it says why nothing happens
    expect(browserReducer(initialState({ size, cwd: '/', homeDir: '/h', now: 0 }), { type: 'refreshHosts' }).notice?.text).toMatch(/no hosts/);
  });

  it('search finds a host\'s rows by its name', () => {
    const index = new SearchIndex([...local, onHost('d1', 'devbox', '2026-11-06T00:00:00Z')]);
    expect(index.search('devbox').map((hit) => hit.key)).toEqual(['devbox\u0000codex:d1']);
  });
});
