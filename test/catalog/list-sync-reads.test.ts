// `sessions list` waits for its scan and nothing else: its folder walks and claw's reads are synchronous calls, not
// fs/promises' (each of those costs the main thread ~30 µs of callbacks and promises, and a cold scan of a workspace
// tree makes tens of thousands). Counted through node:fs/promises' own exports (syncBuiltinESMExports), on the built
// modules; the rows must be the ones the asynchronous scan gives.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Scan from '../../src/catalog/scan.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { importBuilt } from '../helpers/built-dist.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const promises = createRequire(import.meta.url)('node:fs/promises') as Record<string, unknown>;
const COUNTED = ['readdir', 'stat', 'realpath', 'open'] as const;
const originals = new Map<string, unknown>(COUNTED.map((name) => [name, promises[name]]));
let scan: typeof Scan;
let dir: string;

beforeAll(async () => {
  scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
  dir = await mkdtemp(join(tmpdir(), 'sessions-list-sync-'));
});
afterEach(() => {
  for (const [name, original] of originals) promises[name] = original;
  syncBuiltinESMExports();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Calls of node:fs/promises' counted functions from now on (every importer sees the counting ones). */
function countPromiseCalls(): Record<(typeof COUNTED)[number], number> {
  const calls = { readdir: 0, stat: 0, realpath: 0, open: 0 };
  for (const name of COUNTED) {
    const original = originals.get(name) as (...args: unknown[]) => unknown;
    promises[name] = (...args: unknown[]) => {
      calls[name]++;
      return original(...args);
    };
  }
  syncBuiltinESMExports();
  return calls;
}

describe('list scan', () => {
  it('walks the folders and reads claw sessions without fs/promises, with the rows of an asynchronous scan', async () => {
    const home = join(dir, 'home');
    await cp(join(ROOT, 'test', 'fixtures', 'home'), home, { recursive: true });
    const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
    // (Codex reads its names file, and a thread of several files, with fs/promises: once per root, and rarely.)
    const options = { agents: ['claw', 'claude'] as const, workers: 0 };
    const asynchronous = await scan.scanCatalog(locations, options);
    const calls = countPromiseCalls();
    const synchronous = await scan.scanCatalog(locations, { ...options, walkSynchronously: true });
    expect(calls).toEqual({ readdir: 0, stat: 0, realpath: 0, open: 0 });
    expect(synchronous.sessions.filter((row) => row.agent === 'claw').length).toBeGreaterThanOrEqual(5);
    expect(synchronous.sessions).toEqual(asynchronous.sessions);
    expect(synchronous.problems).toEqual(asynchronous.problems);
  });

  it('counts what fs/promises is asked (the check above can fail)', async () => {
    const home = join(dir, 'home-async');
    await cp(join(ROOT, 'test', 'fixtures', 'home'), home, { recursive: true });
    const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
    const calls = countPromiseCalls();
    await scan.scanCatalog(locations, { agents: ['claw'], workers: 0 });
    expect(calls.readdir).toBeGreaterThan(0);
  });
});
