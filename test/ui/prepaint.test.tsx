// The plain-ANSI first screen painted before Ink loads must show exactly the rows Ink's first frame shows.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/App.js';
import { firstScreen } from '../../src/ui/prepaint.js';
import type { TuiServices } from '../../src/ui/services.js';
import { themeFor } from '../../src/ui/theme.js';
import { catalogSession } from './helpers.js';

/* eslint-disable no-control-regex -- escape sequences are what these tests read */

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const sessions = [
  catalogSession({ id: 'a1', agent: 'claude', title: 'Make the sidebar collapsible and remember the state per user', updatedAt: '2026-11-22T11:59:30.000Z', userTurns: 12, userTurnsExact: false }),
  catalogSession({ id: 'b2', title: '请解释这个项目的结构 — 以及测试', cwd: '/home/dev/src/a-ünïcødé-项目', gitBranch: 'feat/a-rather-long-branch-name', updatedAt: '2026-11-21T09:00:00.000Z', forkedFrom: 'a1' }),
  catalogSession({ id: 'c3', agent: 'claw', title: 'short', cwd: null, gitBranch: null, updatedAt: '2026-10-01T09:00:00.000Z' }),
  ...Array.from({ length: 40 }, (_, i) => catalogSession({ id: `z${i}`, updatedAt: `2026-09-${String(10 + (i % 18)).padStart(2, '0')}T09:00:00.000Z` })),
];

const stand: TuiServices = {
  lookedIn: [],
  cached: () => sessions,
  scan: () => new Promise(() => undefined),
  watch: () => () => undefined,
  loadSession: () => new Promise(() => undefined),
  fork: () => Promise.reject(new Error('not in this test')),
  checkResume: () => Promise.resolve({ kind: 'go' }),
};

/** The screen lines the escape sequences draw (cursor moves to `row;1`, then text). */
function painted(ansi: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const match of ansi.matchAll(/\u001b\[(\d+);1H([^\u001b]*(?:\u001b\[[0-9;]*m[^\u001b]*)*)/g)) {
    lines.set(Number(match[1]), match[2]!.replace(/\u001b\[[0-9;]*m/g, ''));
  }
  return lines;
}

describe('first screen before Ink', () => {
  for (const [columns, rows] of [[160, 48], [100, 30], [70, 20]] as const) {
    it(`paints the rows of Ink's first frame, character for character (${columns}×${rows})`, () => {
      const env = { NO_COLOR: '1' }; // compare text; colors are the palette's either way
      const app = render(<App services={stand} cwd="/home/dev" homeDir="/home/dev" columns={columns} rows={rows} theme={themeFor(env)} initialScope="all" now={() => NOW} onDecision={() => undefined} />);
      const frame = (app.lastFrame() ?? '').split('\n');
      app.unmount();
      const ansi = firstScreen({ sessions, columns, rows, cwd: '/home/dev', homeDir: '/home/dev', now: NOW, scope: 'all', env });
      expect(ansi).not.toBeNull();
      const lines = painted(ansi!);
      expect(lines.size).toBeGreaterThan(5);
      for (const [row, text] of lines) expect(frame[row - 1]!.startsWith(text.trimEnd()), `row ${row}:\n${text}\n${frame[row - 1]}`).toBe(true);
      expect(ansi!.endsWith('\u001b[H')).toBe(true); // Ink draws from the top left
    });
  }

  it('paints nothing without remembered sessions or on a tiny terminal', () => {
    const base = { columns: 100, rows: 30, cwd: '/', homeDir: '/home/dev', now: NOW, scope: 'all' as const, env: {} };
    expect(firstScreen({ ...base, sessions: [] })).toBeNull();
    expect(firstScreen({ ...base, sessions, rows: 3 })).toBeNull();
  });

  it('colors the rows as the palette says, and nothing under NO_COLOR', () => {
    const base = { sessions, columns: 100, rows: 30, cwd: '/', homeDir: '/home/dev', now: NOW, scope: 'all' as const };
    expect(firstScreen({ ...base, env: {} })).toContain('\u001b[33;7mclaude\u001b[0m'); // selected row: agent color, inverse
    expect(firstScreen({ ...base, env: { NO_COLOR: '1' } })).not.toMatch(/\u001b\[(3\d|9\d)/);
  });
});
