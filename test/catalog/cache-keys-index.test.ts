// The keys index written with the catalog cache (cache-keys-index.ts): `show <id>` reads the lines it names instead
// of the whole cache, and must find exactly what a search of the whole file finds; a keys index that is not the
// file's (stale) or is damaged is not used.
import { appendFile, copyFile, cp, mkdtemp, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findInCache } from '../../src/catalog/cached-find.js';
import { CatalogCache } from '../../src/catalog/cache.js';
import { readEntries, writeEntries } from '../../src/catalog/cache-file.js';
import { makeEntry } from '../../src/catalog/cache-entry.js';
import { CacheFileIndex } from '../../src/catalog/cache-file-index.js';
import { folderNeedle, keysIndexPath } from '../../src/catalog/cache-keys-index.js';
import { resolveLocations, type Locations } from '../../src/catalog/locations.js';
import { resolveSession } from '../../src/catalog/resolve.js';
import { scanCatalog, type CatalogSession } from '../../src/catalog/scan.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-keys-index-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Home {
  readonly locations: Locations;
  readonly cachePath: string;
}

async function homeOf(name: string, as: string): Promise<Home> {
  const home = join(dir, as);
  await cp(join(FIXTURES, name), home, { recursive: true });
  const locations = { ...resolveLocations({ home }, { env: {}, homeDir: home, cwd: home }), rootsFromCwds: false };
  return { locations, cachePath: join(dir, `${as}.cache.jsonl`) };
}

/** A scan with the cache, saving it (and its keys index); every session it finds, sub-agents included. */
async function scanned(home: Home): Promise<CatalogSession[]> {
  const cache = await CatalogCache.load(home.cachePath);
  const result = await scanCatalog(home.locations, { cache });
  await cache.save();
  return [...result.sessions, ...result.subagentSessions];
}

/** findInCache as the CLI runs it, with the index it read the cache through. */
async function keyedFind(home: Home, query: string): Promise<{ session: CatalogSession | null; index: CacheFileIndex | null }> {
  const spy = vi.spyOn(CacheFileIndex, 'keyedSync');
  try {
    const found = await findInCache(home.cachePath, home.locations, query, { synchronous: true });
    const index = spy.mock.results.length > 0 ? (spy.mock.results[0]!.value as CacheFileIndex | null) : null;
    return { session: found?.session ?? null, index };
  } finally {
    spy.mockRestore();
  }
}

/** What findInCache answers from a whole read of the cache (its asynchronous path, which never reads the keys). */
async function wholeFind(home: Home, query: string): Promise<CatalogSession | null> {
  return (await findInCache(home.cachePath, home.locations, query))?.session ?? null;
}

const firstPaths = (entries: readonly { readonly firstPath: string }[] | null): string[] | null => entries?.map((entry) => entry.firstPath) ?? null;

describe('the keys index of the catalog cache', () => {
  for (const name of ['home', 'claude-synthetic', 'codex-synthetic', 'copilot-1.0.102-subagent', 'gemini-0.61.0-subagent', 'claw-synthetic']) {
    it(`answers every id, parent, lineage, cwd and folder lookup as a search of the whole file does, in fixtures/${name}`, async () => {
      const home = await homeOf(name, `lookups-${name}`);
      await scanned(home);
      const whole = CacheFileIndex.readSync(home.cachePath)!;
      const keyed = CacheFileIndex.keyedSync(home.cachePath)!;
      expect(keyed.readWhole).toBe(false);
      const rows: CatalogSession[] = [];
      const folders = new Set<string>();
      for await (const [, entry] of readEntries(home.cachePath)) {
        rows.push(...(entry.session !== null ? [entry.session] : []), ...(entry.rows ?? []));
        for (const path of [...(entry.session?.paths ?? []), ...(entry.more ?? []).map(([path]) => path)]) folders.add(dirname(path));
      }
      expect(rows.length).toBeGreaterThan(0);
      let found = 0;
      for (const row of rows) {
        const byId = firstPaths(whole.entriesOf(row.id));
        found += byId?.length ?? 0;
        expect(firstPaths(keyed.entriesOf(row.id))).toEqual(byId);
        const needles = [`"parentId":${JSON.stringify(row.id)}`, `"parentId":${JSON.stringify(row.subagent?.parentId ?? 'none')}`];
        if (row.lineage !== undefined) needles.push(`"lineage":${JSON.stringify(row.lineage)}`);
        if (row.cwd !== null) needles.push(`"cwd":${whole.stringRef(row.cwd)},`);
        for (const needle of needles) {
          expect(firstPaths(keyed.entriesWith(needle)), needle).toEqual(firstPaths(whole.entriesWith(needle)));
          expect(keyed.anyLineWith('"parentId":null}', needle), needle).toBe(whole.anyLineWith('"parentId":null}', needle));
        }
      }
      for (const folder of folders) expect(keyed.stampsIn(folder), folder).toEqual(whole.stampsIn(folder));
      for (const absent of ['0000-absent', 'a"quote', '']) {
        expect(keyed.entriesOf(absent)).toEqual([]);
        expect(keyed.stampsIn(`/absent/${absent}`)).toEqual(new Map());
      }
      expect(found).toBeGreaterThan(0);
      // Only the lines named were read.
      expect(keyed.readWhole).toBe(false);
    });
  }

  it('names the lines of a store of conversations by the members of its rows, as a search of the whole file finds them', async () => {
    const home = await homeOf('claude-synthetic', 'store');
    const rows = (await scanned(home)).filter((row) => row.subagent === undefined);
    const path = join(dir, 'store.cache.jsonl');
    const withParent = { ...rows[1]!, id: 'in-store', subagent: { kind: 'task', parentId: rows[0]!.id } } as CatalogSession;
    const review = { ...rows[2]!, id: 'review', path: '/reviews/review.jsonl', paths: ['/reviews/review.jsonl'], subagent: { kind: 'review', parentId: null } } as CatalogSession;
    // Ids and lineages JSON.stringify writes with escapes.
    const odd = ['a"quote', 'back\\slash', 'ctl\u0001', 'lone\ud800', 'é-ü'].map((id, at) => ({ ...rows[0]!, id, lineage: `${id}-lineage`, path: `/odd/${at}.jsonl`, paths: [`/odd/${at}.jsonl`] }) as CatalogSession);
    await writeEntries(path, [
      ...[...rows, review, ...odd].map((row) => [row.path, makeEntry([[row.path, 1, 2, 'f']], row)] as const),
      ['/store/db.sqlite', { ...makeEntry([['/store/db.sqlite', 3, 4, 'g']], null), rows: [rows[0]!, withParent] }],
    ]);
    const whole = CacheFileIndex.readSync(path)!;
    const keyed = CacheFileIndex.keyedSync(path)!;
    const needles = [`"parentId":${JSON.stringify(rows[0]!.id)}`, `"cwd":${whole.stringRef(rows[0]!.cwd!)},`, ...[rows[0]!, withParent].flatMap((row) => (row.lineage === undefined ? [] : [`"lineage":${JSON.stringify(row.lineage)}`]))];
    for (const needle of needles) {
      const found = whole.entriesWith(needle);
      expect(found?.some((entry) => entry.store), needle).toBe(true);
      expect(firstPaths(keyed.entriesWith(needle)), needle).toEqual(firstPaths(found));
    }
    expect(keyed.stampsIn('/store')).toEqual(whole.stampsIn('/store'));
    for (const row of odd) {
      expect(firstPaths(keyed.entriesOf(row.id)), row.id).toEqual([row.path]);
      expect(firstPaths(keyed.entriesWith(`"lineage":${JSON.stringify(row.lineage)}`)), row.id).toEqual([row.path]);
    }
    // A review that names no parent, of one cwd (found by the pair's own key): as the whole file says, for each cwd.
    const cwds = [...new Set(rows.map((row) => row.cwd).filter((cwd) => cwd !== null))].map((cwd) => `"cwd":${whole.stringRef(cwd)},`);
    const reviews = cwds.map((cwd) => whole.anyLineWith('"parentId":null}', cwd));
    expect(cwds.map((cwd) => keyed.anyLineWith('"parentId":null}', cwd))).toEqual(reviews);
    expect(reviews).toContain(true);
    expect(keyed.readWhole).toBe(false);
  });

  it('finds a session by its id reading only its lines, as the whole read finds it; an unknown id reads nothing', async () => {
    const home = await homeOf('claude-synthetic', 'by-id');
    const all = await scanned(home);
    let compared = 0;
    for (const row of all) {
      const { session, index } = await keyedFind(home, row.id);
      expect(session).toEqual(await wholeFind(home, row.id));
      expect(index?.readWhole).toBe(false);
      if (session === null) continue;
      compared++;
      const expected = resolveSession(all, row.id, home.locations.cwd);
      expect(session).toEqual(expected.kind === 'found' ? expected.session : null);
    }
    expect(compared).toBeGreaterThan(0);
    for (const query of ['5e551011-0000-4000-8000-0000000000ff', '5e551011']) {
      const { session, index } = await keyedFind(home, query);
      expect(session).toBeNull();
      expect(index?.readWhole).toBe(false);
    }
  });

  it('is not used for a cache file it was not written for, nor when damaged: the whole file is read, with the same answers', async () => {
    const home = await homeOf('claude-synthetic', 'stale');
    const other = await homeOf('codex-synthetic', 'stale-other');
    const all = await scanned(home);
    await scanned(other);
    const keys = keysIndexPath(home.cachePath);
    const saved = await readFile(keys);
    const ids = [...new Set(all.map((row) => row.id))];
    const expected = await Promise.all(ids.map((id) => wholeFind(home, id)));
    expect(expected.some((session) => session !== null)).toBe(true);
    const numbersAt = Math.ceil((saved.indexOf(0x0a) + 1) / 8) * 8;
    const flipped = Buffer.from(saved);
    flipped[numbersAt + 3] = flipped[numbersAt + 3]! ^ 0x40;
    const damages: [string, () => Promise<void>][] = [
      // The cache written anew with the same bytes (another file: a new inode) after its keys.
      ['cache rewritten', async () => {
        await copyFile(home.cachePath, `${home.cachePath}.copy`);
        await rename(`${home.cachePath}.copy`, home.cachePath);
      }],
      ["another cache's keys", () => copyFile(keysIndexPath(other.cachePath), keys)],
      ['keys cut short', () => truncate(keys, saved.length - 8)],
      ['a number flipped', () => writeFile(keys, flipped)],
      ['header not JSON', () => writeFile(keys, Buffer.concat([Buffer.from('{"version":1,'), saved.subarray(1)]))],
      ['empty keys', () => writeFile(keys, '')],
    ];
    for (const [what, damage] of damages) {
      await writeFile(keys, saved);
      await damage();
      for (const [at, id] of ids.entries()) {
        const { session, index } = await keyedFind(home, id);
        expect(session, `${what}: ${id}`).toEqual(expected[at]);
        expect(index?.readWhole, what).toBe(true);
      }
    }
  });

  it('goes to the scan for a session changed since the cache, and finds its new row from the keys written with the next save', async () => {
    const home = await homeOf('claude-synthetic', 'changed');
    const row = (await scanned(home)).find((s) => s.id === '5e551011-0000-4000-8000-000000000001')!;
    expect((await keyedFind(home, row.id)).session).toEqual(row);
    const last = (await readFile(row.path, 'utf8')).trimEnd().split('\n').at(-1)!;
    await appendFile(row.path, `${last}\n`);
    expect((await keyedFind(home, row.id)).session).toBeNull();
    const grown = resolveSession(await scanned(home), row.id, home.locations.cwd);
    expect(grown.kind).toBe('found');
    const { session, index } = await keyedFind(home, row.id);
    expect(session).toEqual(grown.kind === 'found' ? grown.session : null);
    expect(session).not.toEqual(row);
    expect(index?.readWhole).toBe(false);
  });

  it("names the entries of every folder of their files, however the path is written", async () => {
    const paths = ['/a/b/c.jsonl', '/a//b.jsonl', '//c.jsonl', '/d.jsonl', '/e/f/', 'relative.jsonl', '/q"uote/x.jsonl', '/back\\slash/x.jsonl', '/ctl\u0001/x.jsonl', '/lone\ud800/x.jsonl', '/é/ü.jsonl'];
    const path = join(dir, 'folders.cache.jsonl');
    await writeEntries(path, paths.map((file) => [file, makeEntry([[file, 1, 2, 'f']], null)] as const));
    const whole = CacheFileIndex.readSync(path)!;
    const keyed = CacheFileIndex.keyedSync(path)!;
    let found = 0;
    for (const file of paths) {
      const stamps = keyed.stampsIn(dirname(file));
      expect(stamps, file).toEqual(whole.stampsIn(dirname(file)));
      if (stamps?.has(file) === true) found++;
    }
    // All but `//c.jsonl`, `/d.jsonl` and `relative.jsonl`, whose folders (`//`, `/`, `.`) no search of the bytes finds
    // either: dirname's answer is not the file's prefix.
    expect(found).toBe(paths.length - 3);
    expect(keyed.readWhole).toBe(false);
    expect(folderNeedle('/a/b "c')).toBe('"/a/b \\"c/');
  });
});
