// `sessions grep` takes the rows of unchanged files from the catalog cache: the rows `list` printed, with no
// file read again to summarise them. Runs the built modules (its workers are the built grep-worker.js).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Cache from '../../src/catalog/cache.js';
import type * as Grep from '../../src/catalog/grep.js';
import type * as Scan from '../../src/catalog/scan.js';
import type * as Formats from '../../src/core/formats/index.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOME = join(ROOT, 'test', 'fixtures', 'home');
let grep: typeof Grep;
let scan: typeof Scan;
let cacheModule: typeof Cache;
let formats: typeof Formats;
let dir: string;

beforeAll(async () => {
  grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
  scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
  cacheModule = await importBuilt<typeof Cache>('catalog', 'cache.js');
  formats = await importBuilt<typeof Formats>('core', 'formats', 'index.js');
  dir = await mkdtemp(join(tmpdir(), 'sessions-grep-cache-'));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const locations = () => resolveLocations({ home: HOME, roots: { claw: [join(HOME, 'src')] } }, { env: {}, homeDir: HOME, cwd: '/nowhere' });

describe('grep with the catalog cache', () => {
  it.each(['load', 'lazy'] as const)('reports the cached rows of unchanged files without indexing them again (the cache read by %s)', async (how) => {
    const cachePath = join(dir, `catalog-${how}.jsonl`);
    const cache = await cacheModule.CatalogCache.load(cachePath);
    const { sessions } = await scan.scanCatalog(locations(), { cache });
    await cache.save();
    const indexed = Object.values(formats.ADAPTERS).map((adapter) => vi.spyOn(adapter, 'indexSession'));
    indexed.forEach((spy) => spy.mockClear());
    const rows: Scan.CatalogSession[] = [];
    await grep.grepLocations(locations(), 'auth test', { ...grepEngineOption(), ignoreCase: true, cache: () => cacheModule.CatalogCache[how](cachePath), onMatch: (row) => rows.push(row) });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toEqual(sessions.find((one) => one.agent === row.agent && one.id === row.id));
    expect(indexed.reduce((calls, spy) => calls + spy.mock.calls.length, 0)).toBe(0);
    // without the cache, the same rows, each indexed from its files
    const fresh: Scan.CatalogSession[] = [];
    await grep.grepLocations(locations(), 'auth test', { ...grepEngineOption(), ignoreCase: true, onMatch: (row) => fresh.push(row) });
    expect(fresh).toEqual(rows);
    expect(indexed.reduce((calls, spy) => calls + spy.mock.calls.length, 0)).toBeGreaterThanOrEqual(rows.length);
  });

  it('never loads the cache for a search that matches nothing, even with a Claude session whose head shows no lineage', async () => {
    // A session whose head has no root line is summarised to find its family, once rows are linked to families: with
    // no match there is no row to link.
    const home = join(dir, 'no-root');
    await cp(HOME, home, { recursive: true });
    const file = join(home, '.claude', 'projects', '-home-dev-src-a-web-ui', '637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('"parentUuid":null');
    await writeFile(file, text.replaceAll('"parentUuid":null', '"parentUuid":"00000000-0000-4000-8000-000000000000"'));
    const at = () => resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
    const cachePath = join(dir, 'catalog-no-root.jsonl');
    const cache = await cacheModule.CatalogCache.load(cachePath);
    await scan.scanCatalog(at(), { cache });
    await cache.save();
    let loads = 0;
    const load = () => {
      loads++;
      return cacheModule.CatalogCache.lazy(cachePath);
    };
    const none = await grep.grepLocations(at(), 'zqxvkjwy-in-no-file', { ...grepEngineOption(), cache: load, onMatch: () => undefined });
    expect(none.matched).toBe(0);
    expect(loads).toBe(0);
    // (a search that matches a session of that agent does load it)
    const some = await grep.grepLocations(at(), 'auth test', { ...grepEngineOption(), ignoreCase: true, cache: load, onMatch: () => undefined });
    expect(some.matched).toBeGreaterThan(0);
    expect(loads).toBe(1);
  });

  it('streams the rows it can: the first goes out before most of a common word\'s matches were looked up in the cache', async () => {
    const home = join(dir, 'many');
    const day = join(home, '.codex', 'sessions', '2026', '11', '23');
    await mkdir(day, { recursive: true });
    const sourceId = '01a200fa-2988-76f2-b999-ff0e8384db1e';
    const source = await readFile(join(HOME, '.codex', 'sessions', '2026', '11', '22', `rollout-2026-11-22T01-58-44-${sourceId}.jsonl`), 'utf8');
    const COPIES = 300;
    for (let n = 0; n < COPIES; n++) {
      const id = `77777777-7777-4777-8777-${String(n).padStart(12, '0')}`;
      await writeFile(join(day, `rollout-2026-11-23T01-00-00-${id}.jsonl`), source.replaceAll(sourceId, id));
    }
    const many = () => resolveLocations({ home, roots: { claw: [] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
    const cachePath = join(dir, 'catalog-many.jsonl');
    const cache = await cacheModule.CatalogCache.load(cachePath);
    const { sessions } = await scan.scanCatalog(many(), { cache });
    await cache.save();
    expect(sessions).toHaveLength(COPIES);
    const lookups = vi.spyOn(cacheModule.CatalogCache.prototype, 'lookup');
    lookups.mockClear();
    let atFirst: number | null = null;
    let matched = 0;
    await grep.grepLocations(many(), 'codex 0.39.0', {
      ...grepEngineOption(),
      cache: () => cacheModule.CatalogCache.lazy(cachePath),
      onMatch: () => {
        matched++;
        atFirst ??= lookups.mock.calls.length;
      },
    });
    lookups.mockRestore();
    expect(matched).toBe(COPIES);
    // A window of rows at a time (64), not every match's lookup before the first row.
    expect(atFirst).toBeGreaterThan(0);
    expect(atFirst).toBeLessThanOrEqual(64);
  });
});
