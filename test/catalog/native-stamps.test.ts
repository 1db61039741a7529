// The stamps a warm start takes of every file, by the native engine's threads (native/stamps.c): the same as Node's
// statSync and headFingerprint give, and a scan that takes them lists what a scan taking them in JS lists. With
// SESSIONS_REQUIRE_NATIVE=1 (CI) the addon must load; without it the native cases are skipped.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { nativeSearchAddon } from '../../src/catalog/native-grep.js';
import { nativeStamps } from '../../src/catalog/native-stamps.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { headFingerprint } from '../../src/core/io/lines.js';

// An engine built before stamps were added (native/ is rebuilt by `npm install`) has none: those cases are skipped.
const built = (): boolean => nativeStamps([tmpdir()]) !== null;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-stamps-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('file stamps taken natively', () => {
  it('is built where it must be (CI sets SESSIONS_REQUIRE_NATIVE=1)', () => {
    if (process.env.SESSIONS_REQUIRE_NATIVE === '1') expect(nativeSearchAddon()).not.toBeNull();
    if (process.env.SESSIONS_REQUIRE_NATIVE === '1') expect(nativeStamps([join(dir, 'x')])).not.toBeNull();
  });

  it.skipIf(!built())("are Node's size, mtimeMs and first bytes' fingerprint, and none for what is not a regular file", async () => {
    const files = {
      empty: '',
      short: 'ab',
      exact: 'x'.repeat(64),
      long: `{"é":"${'z'.repeat(500)}"}\n`,
    };
    const paths: string[] = [];
    for (const [name, text] of Object.entries(files)) {
      paths.push(join(dir, name));
      await writeFile(join(dir, name), text);
    }
    // A fractional mtime: compared as Node computes mtimeMs.
    await utimes(join(dir, 'long'), 1_700_000_000.123456, 1_700_000_000.123456);
    await symlink(join(dir, 'long'), join(dir, 'link'));
    paths.push(join(dir, 'link'));
    await mkdir(join(dir, 'folder'));
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    const refused = [join(dir, 'folder'), join(dir, 'fifo'), join(dir, 'missing'), '/dev/zero'];
    const taken = nativeStamps([...paths, ...refused])!;
    paths.forEach((path, i) => {
      const info = statSync(path);
      expect(taken.stamp(i)).toEqual([path, info.size, info.mtimeMs, '']);
      expect(taken.fingerprint(i)).toBe(headFingerprint(path));
    });
    refused.forEach((_, i) => expect(taken.stamp(paths.length + i)).toBeNull());
  });

  it.skipIf(!built())('a warm scan of 300 sessions lists what a scan reading every file lists, and reads again a file rewritten with the same size and mtime', async () => {
    const projects = join(dir, 'home', '.claude', 'projects', '-w');
    await mkdir(projects, { recursive: true });
    const id = (n: number): string => `5e55104a-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const session = (n: number, prompt: string): string =>
      [
        { type: 'user', uuid: `u${n}`, parentUuid: null, sessionId: id(n), cwd: '/w', isSidechain: false, timestamp: '2026-10-02T08:00:00.000Z', message: { role: 'user', content: prompt } },
        { type: 'assistant', uuid: `a${n}`, parentUuid: `u${n}`, sessionId: id(n), cwd: '/w', isSidechain: false, timestamp: '2026-10-02T08:00:01.000Z', message: { id: `m${n}`, role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }] } },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join('');
    for (let n = 0; n < 300; n++) await writeFile(join(projects, `${id(n)}.jsonl`), session(n, `prompt ${String(n).padStart(3, '0')}`));
    const locations = resolveLocations({ home: join(dir, 'home') }, { env: {}, homeDir: dir, cwd: dir });
    const cachePath = join(dir, 'cache.bin');
    const first = await CatalogCache.load(cachePath);
    const cold = await scanCatalog(locations, { cache: first, workers: 0 });
    await first.save();
    expect(cold.sessions).toHaveLength(300);

    // Same size, same mtime, other first bytes: only the fingerprint tells.
    const changed = join(projects, `${id(7)}.jsonl`);
    const before = await stat(changed);
    await writeFile(changed, (await readFile(changed, 'utf8')).replace('prompt 007', 'prompt XYZ'));
    await utimes(changed, before.atime, before.mtime);
    const warm = await scanCatalog(locations, { cache: await CatalogCache.load(cachePath), workers: 0 });
    const whole = await scanCatalog(locations, { workers: 0 });
    expect(warm.sessions.find((row) => row.id === id(7))?.firstPrompt).toBe('prompt XYZ');
    expect(warm.sessions).toEqual(whole.sessions);
  });
});
