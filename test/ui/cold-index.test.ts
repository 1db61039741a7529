// The TUI's index: rows are exact at once (no background counting), and on a cold start they arrive as files
// are indexed, newest first.
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CatalogSession, ScanProgress } from '../../src/catalog/scan.js';
import { fixtureHome, fixtureServices } from './helpers.js';

let home: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});
afterEach(async () => {
  await dispose();
});

it('lists a big session exactly on the first scan, and hands rows over as they are indexed, newest file first', async () => {
  // A rollout bigger than the 80 KiB of head and tail that rows were once read from.
  const id = '01a200ed-8253-74d3-b561-f652765d4d59';
  const day = join(home, '.codex', 'sessions', '2026', '11', '22');
  const path = join(day, `rollout-2026-11-22T01-44-55-${id}.jsonl`);
  const output = JSON.stringify({ timestamp: '2026-11-22T01:45:00.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'big', output: 'x'.repeat(100 * 1024) } });
  const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
  await writeFile(path, `${[lines[0], output, ...lines.slice(1)].join('\n')}\n`);
  // The most recently written file, whatever the clock's tick: a copy and a write within one tick share an mtime.
  const files = (await readdir(home, { recursive: true })).map((name) => join(home, name));
  const newest = Math.max(...(await Promise.all(files.map(async (file) => (await stat(file)).mtimeMs))));
  await utimes(path, new Date(newest + 60_000), new Date(newest + 60_000));

  const services = fixtureServices(home);
  const indexed: CatalogSession[] = [];
  const progress: ScanProgress[] = [];
  const { sessions } = await services.scan((p) => progress.push(p), (session) => indexed.push(session));
  expect(sessions.find((session) => session.id === id)).toMatchObject({ userTurns: 4, userTurnsExact: true });
  expect(sessions.every((session) => session.userTurnsExact)).toBe(true);
  // Every row came through onIndexed (no cache here), the most recently written file first.
  expect(indexed.map((session) => session.id).sort()).toEqual(sessions.map((session) => session.id).sort());
  expect(indexed[0]!.path).toBe(path);
  const last = progress.at(-1)!;
  expect(last.done).toBe(last.total);
  expect(last.bytesDone).toBe(last.bytesTotal);
  expect(last.bytesTotal).toBeGreaterThan(100 * 1024);
});
