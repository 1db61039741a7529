import { appendFile, cp, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogCache, defaultCachePath } from '../../src/catalog/cache.js';
import { CACHE_VERSION } from '../../src/catalog/cache-file.js';
import { loadCacheHead } from '../../src/catalog/cache-head.js';
import { noRoots, resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog, type CatalogSession } from '../../src/catalog/scan.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
let dir: string;
let cachePath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-cache-'));
  await cp(join(FIXTURES, 'home', '.claude'), join(dir, 'home', '.claude'), { recursive: true });
  await cp(join(FIXTURES, 'home', '.codex'), join(dir, 'home', '.codex'), { recursive: true });
  cachePath = join(dir, 'cache', 'catalog.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const locations = () => ({ ...resolveLocations({ home: join(dir, 'home') }, { env: {}, homeDir: dir, cwd: dir }), rootsFromCwds: false });

async function scanWithCache() {
  const cache = await CatalogCache.load(cachePath);
  const result = await scanCatalog(locations(), { cache });
  await cache.save({ sessions: result.sessions, scopeDir: '/home/dev/src/a-api-server' });
  return { cache, result };
}

describe('CatalogCache', () => {
  it('gives the same catalog cold and warm, and reuses every unchanged summary', async () => {
    const cold = await scanWithCache();
    expect(cold.cache.rejected).toBe('no cache yet');
    const warm = await scanWithCache();
    expect(warm.cache.rejected).toBeNull();
    expect(warm.result.sessions).toEqual(cold.result.sessions);
    const stored = warm.cache.sessions();
    // The very object from the cache: not read again.
    expect(stored).toContain(warm.result.sessions.find((s) => s.id === '637c5025-a11d-4fce-bb60-2cbeb9eb07a4'));
    expect(stored).toContain(warm.result.sessions.find((s) => s.id === '01a200ed-60a4-7f10-a53c-15a9ecf122f3'));
  });

  it('reads a file again when its size or mtime changed', async () => {
    await scanWithCache();
    const file = join(dir, 'home', '.claude', 'projects', '-home-dev-src-a-web-ui', '637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl');
    const text = await readFile(file, 'utf8');
    const changed = text.replaceAll('Make the sidebar collapsible', 'Make the sidebar foldable!!!');
    expect(changed.length).toBe(text.length);
    await writeFile(file, changed);
    await utimes(file, new Date(), new Date(Date.now() + 5000)); // same size, new mtime
    const { result } = await scanWithCache();
    expect(result.sessions.find((s) => s.id === '637c5025-a11d-4fce-bb60-2cbeb9eb07a4')!.firstPrompt).toContain('foldable');
    await appendFile(file, '\n');
    const again = await scanWithCache();
    expect(again.result.sessions.find((s) => s.id === '637c5025-a11d-4fce-bb60-2cbeb9eb07a4')!.firstPrompt).toContain('foldable');
  });

  const entry = (fields: Record<string, unknown>) =>
    JSON.stringify({
      id: 'x', agent: 'codex', paths: [[0, 'a.jsonl']], path: 0, stamps: [[0, 1, 2, 'f']], cwd: null, root: 0, model: null, gitBranch: null,
      title: 'hi', firstPrompt: null, lastPrompt: null, name: null, prompts: [], userTurns: 0, userTurnsExact: true,
      createdAt: '', updatedAt: '', forkedFrom: null, fork: null, archived: false, usage: null, size: 1, mtimeMs: 2, ...fields,
    });
  it.each([
    ['not json', '{"version":3}\n{"id":'],
    ['another version', `${JSON.stringify({ version: 1, entries: [] })}\n{"end":0}\n`],
    ['a malformed entry', `{"version":3}\n["s","/d"]\n${entry({ stamps: 'x' })}\n{"end":1}\n`],
    ['an entry naming a string it never defined', `{"version":3}\n["s","/d"]\n${entry({ cwd: 7 })}\n{"end":1}\n`],
    ['cut short', `{"version":3}\n["s","/d"]\n${entry({})}\n`],
    ['missing an entry', `{"version":3}\n["s","/d"]\n${entry({})}\n{"end":2}\n`],
    ['empty', ''],
  ])('drops a cache that is %s and rebuilds it', async (_what, text) => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'cache'), { recursive: true });
    await writeFile(cachePath, text);
    const { cache, result } = await scanWithCache();
    expect(cache.rejected).toMatch(/cache ignored and rebuilt/);
    expect(result.sessions.length).toBe(13);
    const reloaded = await CatalogCache.load(cachePath);
    expect(reloaded.rejected).toBeNull();
    expect(reloaded.sessions()).toHaveLength(13);
  });

  it('reads back exactly what it stored, whatever refers to what', async () => {
    const base = (await scanWithCache()).result.sessions[0]!;
    const odd: CatalogSession[] = [
      { ...base, id: 'named', name: 'my name', title: 'my name', firstPrompt: 'not among the prompts', lastPrompt: null, prompts: ['a', 'b'], cwd: null, model: null, gitBranch: null },
      { ...base, id: 'relative', path: 'relative.jsonl', paths: ['relative.jsonl', '/abs/seg 2.jsonl'], title: 'b', firstPrompt: 'a', lastPrompt: 'b', prompts: ['a', 'b'], fork: { id: 'p', atTurn: 3, branchName: 'x' }, forkedFrom: 'p', usage: null, mtimeMs: 1.5 },
    ];
    const cache = await CatalogCache.load(cachePath);
    cache.store([['/elsewhere/named.jsonl', 10, 20.25, 'f1']], odd[0]!);
    cache.store([['relative.jsonl', 1, 2, 'f2'], ['/abs/seg 2.jsonl', 3, 4, 'f3']], odd[1]!);
    await cache.save();
    const reloaded = await CatalogCache.load(cachePath);
    expect(reloaded.rejected).toBeNull();
    for (const session of odd) expect(reloaded.sessions().find((s) => s.id === session.id)).toEqual(session);
    expect(reloaded.lookup([['/elsewhere/named.jsonl', 10, 20.25, 'f1']])?.id).toBe('named');
    expect(reloaded.lookup([['relative.jsonl', 1, 2, 'f2'], ['/abs/seg 2.jsonl', 3, 4, 'f3']])?.id).toBe('relative');
    expect(reloaded.lookup([['relative.jsonl', 1, 2, 'f2'], ['/abs/seg 2.jsonl', 3, 5, 'f3']])).toBeUndefined();
    // Same size and mtime, other first bytes: not the file that was cached.
    expect(reloaded.lookup([['/elsewhere/named.jsonl', 10, 20.25, 'other']])).toBeUndefined();
  });

  it('removes the files of older cache versions once it has written its own', async () => {
    const { mkdir } = await import('node:fs/promises');
    const current = join(dir, 'cache', `catalog-v${CACHE_VERSION}.jsonl`);
    await mkdir(join(dir, 'cache', 'catalog-v3-0123456789abcdef.folds'), { recursive: true });
    await writeFile(join(dir, 'cache', 'catalog-v3-0123456789abcdef.folds', 'a.json'), '{}');
    await writeFile(join(dir, 'cache', 'catalog-v3-0123456789abcdef.jsonl'), '{"version":3}\n{"end":0}\n');
    await writeFile(join(dir, 'cache', 'catalog-v2.jsonl'), '{"version":2}\n{"end":0}\n');
    await writeFile(join(dir, 'cache', 'catalog-v2.keys'), '{}');
    await writeFile(join(dir, 'cache', 'catalog-v1.json'), '{"version":1,"entries":[]}');
    await writeFile(join(dir, 'cache', 'catalog-v1.head.json'), '{}');
    const cache = await CatalogCache.load(current);
    await scanCatalog(locations(), { cache });
    await cache.save();
    const { readdir } = await import('node:fs/promises');
    // Its keys index (cache-keys-index.ts) is written with it.
    expect((await readdir(join(dir, 'cache'))).sort()).toEqual([`catalog-v${CACHE_VERSION}.jsonl`, `catalog-v${CACHE_VERSION}.keys`]);
  });

  it('is one file per set of locations: the same folders in any order share it, another home has its own', () => {
    const env = { XDG_CACHE_HOME: '/c' };
    const one = { roots: { ...noRoots(), codex: ['/a/.codex', '/b/.codex'], claude: ['/a/.claude'] } };
    const path = defaultCachePath(env, '/me', one);
    expect(path).toMatch(new RegExp(`^/c/sessions/catalog-v${CACHE_VERSION}-[0-9a-f]{16}\\.jsonl$`));
    expect(defaultCachePath(env, '/me', { roots: { ...one.roots, codex: ['/b/.codex', '/a/.codex'] } })).toBe(path);
    expect(defaultCachePath(env, '/me', { roots: { ...one.roots, codex: ['/a/.codex'] } })).not.toBe(path);
    expect(defaultCachePath(env, '/me', { roots: { ...one.roots, claw: ['/a/.codex'] } })).not.toBe(path);
    expect(defaultCachePath({}, '/me', one)).toBe(path.replace('/c/', '/me/.cache/'));
  });

  it('a keyed cache removes the one shared file of its version that came before keys', async () => {
    const { mkdir, readdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'cache'), { recursive: true });
    await writeFile(join(dir, 'cache', `catalog-v${CACHE_VERSION}.jsonl`), `{"version":${CACHE_VERSION}}\n`);
    await writeFile(join(dir, 'cache', `catalog-v${CACHE_VERSION}.head.json`), '{}');
    await writeFile(join(dir, 'cache', `catalog-v${CACHE_VERSION}-0123456789abcdef.jsonl`), `{"version":${CACHE_VERSION}}\n`); // another home's: kept
    const path = defaultCachePath({ XDG_CACHE_HOME: dir }, dir, locations()).replace(join(dir, 'sessions'), join(dir, 'cache'));
    const cache = await CatalogCache.load(path);
    await scanCatalog(locations(), { cache });
    await cache.save({ sessions: [], scopeDir: dir });
    const name = path.slice(join(dir, 'cache').length + 1);
    expect((await readdir(join(dir, 'cache'))).sort()).toEqual([`catalog-v${CACHE_VERSION}-0123456789abcdef.jsonl`, name, name.replace('.jsonl', '.head.json'), name.replace('.jsonl', '.keys')].sort());
  });

  it('saves a first screen: the newest rows, newest first', async () => {
    const { result } = await scanWithCache();
    const head = await loadCacheHead(cachePath);
    expect(head!.map((s) => s.id)).toEqual(result.sessions.map((s) => s.id));
    expect(await loadCacheHead(join(dir, 'nowhere.json'))).toBeNull();
  });

  it('forgets files that disappeared', async () => {
    await scanWithCache();
    await rm(join(dir, 'home', '.claude', 'projects', '-home-dev-src-a-web-ui'), { recursive: true });
    const { result } = await scanWithCache();
    expect(result.sessions.map((s) => s.id)).not.toContain('637c5025-a11d-4fce-bb60-2cbeb9eb07a4');
    expect((await CatalogCache.load(cachePath)).sessions().map((s) => s.id)).not.toContain('637c5025-a11d-4fce-bb60-2cbeb9eb07a4');
  });
});
