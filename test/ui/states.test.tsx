// Loading, problems, resizing and the transcript LRU, with stand-in services (no files needed).
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import type { Problem } from '../../src/core/formats/types.js';
import type { Session } from '../../src/core/model.js';
import { App } from '../../src/ui/App.js';
import type { TuiServices } from '../../src/ui/services.js';
import { themeFor } from '../../src/ui/theme.js';
import { TranscriptCache } from '../../src/ui/transcript-cache.js';
import { catalogSession, transcriptOf, waitFor } from './helpers.js';

function services(overrides: Partial<TuiServices>): TuiServices {
  return {
    lookedIn: ['~/.codex/sessions and archived_sessions (Codex)', '~/.claude/projects (Claude Code)'],
    cached: () => [],
    scan: () => new Promise(() => undefined),
    watch: () => () => undefined,
    loadSession: (session) => Promise.resolve(transcriptOf(session, 3)),
    fork: () => Promise.reject(new Error('not in this test')),
    checkResume: () => Promise.resolve({ kind: 'go' }),
    ...overrides,
  };
}

function mount(stand: TuiServices, size = { columns: 100, rows: 30 }) {
  const element = (columns: number, rows: number) => (
    <App services={stand} cwd="/home/dev/src/api" homeDir="/home/dev" columns={columns} rows={rows} theme={themeFor({})} onDecision={() => undefined} />
  );
  const app = render(element(size.columns, size.rows));
  const see = (text: string | RegExp) =>
    waitFor(() => {
      const frame = app.lastFrame() ?? '';
      if (typeof text === 'string' ? !frame.includes(text) : !text.test(frame)) throw new Error(`not shown: ${String(text)}\n${frame}`);
      return frame;
    });
  return { app, see, resize: (columns: number, rows: number) => app.rerender(element(columns, rows)) };
}

describe('states', () => {
  it('shows scan progress while the first scan runs, and where it looks', async () => {
    const ui = mount(
      services({
        scan: (onProgress) => {
          onProgress({ done: 3, total: 10, bytesDone: 2_000_000, bytesTotal: 5_000_000 });
          return new Promise(() => undefined);
        },
      }),
    );
    const frame = await ui.see('Scanning for sessions… indexing 3/10 files · 2/5 MB…');
    expect(frame).toContain('~/.claude/projects (Claude Code)');
    expect(frame).toContain('sessions · indexing 3/10 files · 2/5 MB…');
  });

  it('an unreadable directory is reported, not fatal; ! lists every problem', async () => {
    const problems: Problem[] = [
      { path: '/home/dev/.claude/projects/-locked', message: 'permission denied' },
      { path: '/home/dev/.codex/sessions/2026/bad.jsonl', message: 'malformed line 3' },
    ];
    const ui = mount(services({ scan: () => Promise.resolve({ sessions: [catalogSession({ id: 'a' })], problems }) }));
    await ui.see('session a');
    await ui.see('⚠ /home/dev/.claude/projects/-locked: permission denied (+1 more) · Tab ! shows all');
    ui.app.stdin.write('\t');
    await ui.see('scan problems (2)');
    ui.app.stdin.write('!');
    const frame = await ui.see('2 problems while scanning:');
    expect(frame).toContain('malformed line 3');
  });

  it('! keeps each reason whole on a narrow screen and cuts the path at its start', async () => {
    const deep = `/home/dev/.codex/sessions/${'very-long-folder-name/'.repeat(8)}rollout-2026-11-22T01-58-44-01a200fa.jsonl`;
    const problems: Problem[] = [{ path: deep, message: 'not a session file (1 malformed line, no session_meta)' }];
    const ui = mount(services({ scan: () => Promise.resolve({ sessions: [catalogSession({ id: 'a' })], problems }) }), { columns: 120, rows: 30 });
    await ui.see('session a');
    ui.app.stdin.write('\t');
    await ui.see('scan problems (1)');
    ui.app.stdin.write('!');
    const frame = await ui.see('1 problem while scanning:');
    const line = frame.split('\n').find((one) => one.includes('malformed'))!;
    expect(line).toContain('not a session file (1 malformed line, no session_meta)  …');
    expect(line).toMatch(/01a200fa\.jsonl\s*$/);
  });

  it('paints remembered sessions at once while the real scan runs', async () => {
    const ui = mount(services({ cached: () => [catalogSession({ id: 'remembered' })] }));
    const frame = await ui.see('session remembered');
    expect(frame).toContain('scanning');
  });

  it('shows the start of a transcript while the rest is read, then the whole one', async () => {
    let finish: (session: Session) => void = () => undefined;
    const ui = mount(
      services({
        scan: () => Promise.resolve({ sessions: [catalogSession({ id: 'big', userTurns: 2, userTurnsExact: false })], problems: [] }),
        loadSession: (session, onPartial) => {
          onPartial?.(transcriptOf(session, 2).messages);
          return new Promise((resolve) => (finish = resolve));
        },
      }),
    );
    await ui.see('session big');
    ui.app.stdin.write('\u001b[C'); // → opens the transcript
    const start = await ui.see('turn 1/2+ · reading…');
    expect(start).toContain('question 2');
    ui.app.stdin.write('f');
    await ui.see('still reading the transcript');
    finish(transcriptOf(catalogSession({ id: 'big' }), 40));
    const whole = await ui.see('turn 1/40 ·');
    expect(whole).not.toContain('reading…');
  });

  it('follows a resize: the list window, the preview placement and the height limit', async () => {
    const sessions: CatalogSession[] = Array.from({ length: 40 }, (_, i) =>
      catalogSession({ id: `s${String(i).padStart(2, '0')}`, updatedAt: `2026-11-01T10:${String(59 - i).padStart(2, '0')}:00Z` }),
    );
    const ui = mount(services({ scan: () => Promise.resolve({ sessions, problems: [] }) }), { columns: 100, rows: 40 });
    await ui.see('session s00');
    const tall = (ui.app.lastFrame() ?? '').split('\n').length;
    expect(tall).toBeLessThanOrEqual(39);
    expect(ui.app.lastFrame()).toContain('─'.repeat(20)); // the preview sits under the list
    ui.resize(100, 12);
    await waitFor(() => expect((ui.app.lastFrame() ?? '').split('\n').length).toBeLessThanOrEqual(11));
    expect(ui.app.lastFrame()).not.toContain('─'.repeat(20)); // no room for a preview
    ui.app.stdin.write('\u001b[F'); // End: the last row
    await ui.see(/› codex .*session s39/);
    expect((ui.app.lastFrame() ?? '').split('\n').length).toBeLessThanOrEqual(11);
  });
});

describe('TranscriptCache', () => {
  const session = (id: string): Session => transcriptOf(catalogSession({ id }), 1);

  it('evicts the least recently used beyond its count', () => {
    const cache = new TranscriptCache(2, 1_000_000);
    cache.set('a', 'v1', session('a'), 10);
    cache.set('b', 'v1', session('b'), 10);
    expect(cache.get('a', 'v1')?.id).toBe('a'); // a is now the most recent
    cache.set('c', 'v1', session('c'), 10);
    expect(cache.get('b', 'v1')).toBeUndefined();
    expect(cache.get('a', 'v1')?.id).toBe('a');
    expect(cache.size).toBe(2);
  });

  it('evicts by bytes, keeps nothing bigger than its bound, and misses on a new version', () => {
    const cache = new TranscriptCache(10, 100);
    cache.set('a', 'v1', session('a'), 60);
    cache.set('b', 'v1', session('b'), 60);
    expect(cache.get('a', 'v1')).toBeUndefined();
    expect(cache.totalBytes).toBe(60);
    expect(cache.get('b', 'v2')).toBeUndefined();
    // A transcript bigger than the bound is not kept (the screen has it laid out; it is read again when reopened).
    cache.set('huge', 'v1', session('huge'), 500);
    expect(cache.get('huge', 'v1')).toBeUndefined();
    expect(cache.get('b', 'v1')?.id).toBe('b');
    expect(cache.totalBytes).toBe(60);
  });

  it('shares one read between concurrent loads', async () => {
    const cache = new TranscriptCache();
    let reads = 0;
    const read = async (): Promise<Session> => {
      reads++;
      return session('a');
    };
    const [one, two] = await Promise.all([cache.load('a', 'v1', 10, read), cache.load('a', 'v1', 10, read)]);
    expect(one).toBe(two);
    expect(reads).toBe(1);
    await cache.load('a', 'v1', 10, read);
    expect(reads).toBe(1);
  });
});
