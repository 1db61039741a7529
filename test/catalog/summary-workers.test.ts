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

describe('claw workspaces named by the cwds of rows folded on workers', () => {
  /** A Claude session of `turns` answers (each ~`pad` bytes) run in `cwd`. */
  const claudeSession = (id: string, cwd: string, turns: number, pad: number): string => {
    const line = (uuid: string, parent: string | null, type: string, content: unknown, at: number): string =>
      JSON.stringify({ parentUuid: parent, isSidechain: false, type, message: { role: type, content }, uuid, timestamp: new Date(Date.UTC(2026, 0, 2, 10) + at * 1000).toISOString(), cwd, sessionId: id, gitBranch: 'main' });
    const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const lines = [line(uuid(0), null, 'user', `a prompt in ${cwd}`, 0)];
    for (let n = 1; n <= turns; n++) lines.push(line(uuid(n), uuid(n - 1), 'assistant', [{ type: 'text', text: 'x'.repeat(pad) }], n));
    return `${lines.join('\n')}\n`;
  };

  it('are walked, once, whether the second phase began before the workers were done or after', async () => {
    const home = join(dir, 'cwd-home');
    const small = join(dir, 'ws-small');
    const big = join(dir, 'ws-big');
    for (const [ws, id, turns] of [
      [small, '11111111-1111-4111-8111-111111111111', 3],
      // Over BIG_FILE_BYTES: a worker folds it, while the main thread, done with the small one, goes on to claw.
      [big, '22222222-2222-4222-8222-222222222222', Math.ceil((BIG_FILE_BYTES * 2) / 2048)],
    ] as const) {
      await cp(join(FIXTURES, 'claw-synthetic', 'demo'), ws, { recursive: true });
      const project = join(home, '.claude', 'projects', ws.replaceAll('/', '-'));
      await mkdir(project, { recursive: true });
      await writeFile(join(project, `${id}.jsonl`), claudeSession(id, ws, turns, 2048));
    }
    const at = () => resolveLocations({ home, roots: { claw: [] } }, { env: {}, homeDir: dir, cwd: join(dir, 'cwd-home') });
    const { scanCatalog } = (await import(DIST_SCAN)) as typeof sourceScan;
    const inline = await scanCatalog(at(), { workers: 0 });
    const threaded = await scanCatalog(at(), { workers: 1 });
    expect(threaded.context.workerReads).toBeGreaterThan(0);
    // The big file still folding when the main thread ran out: claw's pass began then, from the small row's cwd.
    expect(threaded.context.earlyPasses).toBe(1);
    expect(inline.context.earlyPasses).toBe(0);
    // The early pass is the main thread's alone (the first phase's worker still folds): no pool beside it; the first
    // phase's pool and the late pass's (the big row's workspace, after the workers were done) are the two.
    expect(threaded.context.workerPools).toBe(2);
    expect(inline.context.workerPools).toBe(0);
    const clawPaths = (scan: typeof inline): string[] => scan.sessions.filter((row) => row.agent === 'claw').flatMap((row) => [...row.paths]).sort();
    // Both workspaces' sessions: the big row's cwd was looked at after the workers were done.
    expect(clawPaths(inline).some((path) => path.startsWith(`${big}/`))).toBe(true);
    expect(clawPaths(inline).some((path) => path.startsWith(`${small}/`))).toBe(true);
    expect(new Set(clawPaths(threaded)).size).toBe(clawPaths(threaded).length);
    expect(threaded.sessions).toEqual(inline.sessions);
  });
});
