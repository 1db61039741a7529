import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/catalog/locations.js';
import * as sourceScan from '../../src/catalog/scan.js';
import { BIG_FILE_BYTES, FoldQueue } from '../../src/catalog/summary-pool.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
// The workers are loaded by URL next to the module that starts them: the built dist/ (npm test builds first).
const DIST_SCAN = pathToFileURL(fileURLToPath(new URL('../../dist/catalog/scan.js', import.meta.url))).href;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-workers-'));
  await cp(join(FIXTURES, 'home'), join(dir, 'home'), { recursive: true });
  // A file that is not a session at all: reported once, whichever thread reads it.
  const day = join(dir, 'home', '.codex', 'sessions', '2026', '01', '02');
  await mkdir(day, { recursive: true });
  await writeFile(join(day, 'rollout-2026-01-02T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl'), 'not json\n{"also": "not a rollout"\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const locations = () => resolveLocations({ home: join(dir, 'home'), roots: { claw: [join(dir, 'home', 'src')] } }, { env: {}, homeDir: dir, cwd: dir });

describe('the queue the main thread and the workers share', () => {
  it('gives workers the biggest files first, one at a time, and the main thread the small ones, then the smallest big one', () => {
    const sizes = [10, BIG_FILE_BYTES * 3, 20, BIG_FILE_BYTES, 30, BIG_FILE_BYTES * 2];
    const queue = new FoldQueue([0, 1, 2, 3, 4, 5], (index) => sizes[index]!);
    expect(queue.size).toBe(6);
    expect(queue.bigCount).toBe(3);
    expect(queue.takeBatch()).toEqual([1]);
    expect(queue.takeOne()).toBe(0);
    expect(queue.takeOne()).toBe(2);
    expect(queue.takeOne()).toBe(4);
    // No big file while the main thread holds one already (`takeOne(false)`); then the smallest.
    expect(queue.takeOne(false)).toBeUndefined();
    expect(queue.takeOne()).toBe(3);
    expect(queue.takeBatch()).toEqual([5]);
    expect(queue.takeBatch()).toEqual([]);
    expect(queue.takeOne()).toBeUndefined();
    // Given back by a worker: for the main thread only.
    queue.giveBack([2]);
    expect(queue.size).toBe(1);
    expect(queue.takeBatch()).toEqual([]);
    expect(queue.takeOne(false)).toBe(2);
    expect(queue.size).toBe(0);
  });
});

describe('summaries on worker threads', () => {
  it('list exactly what the main thread lists, with the same problems', async () => {
    const { scanCatalog } = (await import(DIST_SCAN)) as typeof sourceScan;
    const inline = await scanCatalog(locations(), { workers: 0 });
    const threaded = await scanCatalog(locations(), { workers: 2 });
    expect(inline.sessions.length).toBeGreaterThan(10);
    expect(inline.context.workerReads).toBe(0);
    expect(threaded.context.workerReads).toBeGreaterThan(10);
    // A worker is handed its batch's groups only: a Codex fork whose fold looks its parent up is read again here.
    expect(threaded.context.workerRetries).toBeGreaterThan(0);
    expect(threaded.sessions).toEqual(inline.sessions);
    expect([...threaded.problems].sort((a, b) => a.path.localeCompare(b.path))).toEqual([...inline.problems].sort((a, b) => a.path.localeCompare(b.path)));
    expect(inline.problems.some((problem) => problem.path.includes('0199aaaa'))).toBe(true);
  });

  it('read on the main thread what no worker could (here: no built worker next to the TypeScript source)', async () => {
    const progress: number[] = [];
    const fallback = await sourceScan.scanCatalog(locations(), { workers: 2, onProgress: ({ done }) => progress.push(done) });
    const inline = await sourceScan.scanCatalog(locations(), { workers: 0 });
    expect(fallback.context.workerReads).toBe(0);
    expect(fallback.sessions).toEqual(inline.sessions);
    expect(progress.length).toBeGreaterThanOrEqual(fallback.sessions.length);
  });
});
