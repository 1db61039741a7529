// `show ID` finds a full id in the catalog cache without a scan (cached-find.ts): what it finds must be what the scan
// resolves, and anything written since the cache that could change the row must send it back to the scan.
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findInCache } from '../../src/catalog/cached-find.js';
import { CatalogCache } from '../../src/catalog/cache.js';
import { CacheFileIndex } from '../../src/catalog/cache-file-index.js';
import { resolveLocations, type Locations } from '../../src/catalog/locations.js';
import { resolveSession } from '../../src/catalog/resolve.js';
import { groupOf, scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import { ADAPTERS } from '../../src/core/formats/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const HOMES = ['claude-synthetic', 'claude-rules', 'claude-2.1.330', 'codex-synthetic', 'codex-rules'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-cached-find-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Home {
  readonly locations: Locations;
  readonly cachePath: string;
}

async function homeOf(name: string, as = name): Promise<Home> {
  const home = join(dir, as);
  await cp(join(FIXTURES, name), home, { recursive: true });
  const locations = { ...resolveLocations({ home }, { env: {}, homeDir: home, cwd: home }), rootsFromCwds: false };
  return { locations, cachePath: join(dir, `${as}.cache.jsonl`) };
}

/** A scan with the cache (saving it), and every session it finds, sub-agents included. */
async function scanned(home: Home): Promise<CatalogSession[]> {
  return (await scannedWith(home)).all;
}

async function scannedWith(home: Home): Promise<{ all: CatalogSession[]; context: ScanContext }> {
  const cache = await CatalogCache.load(home.cachePath);
  const result = await scanCatalog(home.locations, { cache });
  await cache.save();
  return { all: [...result.sessions, ...result.subagentSessions], context: result.context };
}

/** What `show ID` resolves ID to after a full scan (the scan saves the cache again). */
async function scanFind(home: Home, id: string): Promise<CatalogSession> {
  const found = resolveSession(await scanned(home), id, home.locations.cwd);
  if (found.kind !== 'found') throw new Error(found.message);
  return found.session;
}

describe('show of a full id from the cache', () => {
  for (const name of HOMES) {
    it(`finds what the scan resolves, for every session of fixtures/${name}`, async () => {
      const home = await homeOf(name);
      const { all, context } = await scannedWith(home);
      let fast = 0;
      for (const row of all) {
        const found = await findInCache(home.cachePath, home.locations, row.id);
        if (found === null) continue;
        fast++;
        const expected = resolveSession(all, row.id, home.locations.cwd);
        expect(expected.kind).toBe('found');
        expect(found.session).toEqual(expected.kind === 'found' ? expected.session : null);
        // The context looks up the files the transcript may read (a paginated fork's parent's) as the scan's does.
        for (const id of [found.session.id, found.session.forkedFrom ?? '']) {
          expect(found.context.lookup(found.session.agent, id)?.paths).toEqual(context.lookup(found.session.agent, id)?.paths);
        }
      }
      // Only sub-agents (nested by rows not looked at) and agents without bounded folders go to the scan.
      const bounded = all.filter((row) => ADAPTERS[row.agent].rowFolders !== undefined && row.subagent === undefined);
      expect(bounded.length).toBeGreaterThan(0);
      expect(fast).toBe(new Set(bounded.map((row) => row.id)).size);
    });
  }

  it('finds the same read synchronously (the CLI), and searches the file for the id once', async () => {
    const home = await homeOf('claude-synthetic', 'claude-synthetic-sync');
    const all = await scanned(home);
    let compared = 0;
    for (const row of all) {
      const found = await findInCache(home.cachePath, home.locations, row.id);
      const open = vi.spyOn(CacheFileIndex, 'open');
      const read = vi.spyOn(CacheFileIndex, 'keyedSync');
      const lookups = vi.spyOn(CacheFileIndex.prototype, 'entriesOf');
      try {
        const synchronous = await findInCache(home.cachePath, home.locations, row.id, { synchronous: true });
        expect(synchronous?.session).toEqual(found?.session);
        expect(open).not.toHaveBeenCalled();
        expect(read).toHaveBeenCalledTimes(1);
        if (found === null) continue;
        compared++;
        // Its lineage and the parents it names are other lookups; the id itself is looked up once.
        expect(lookups.mock.calls.filter(([id]) => id === row.id)).toHaveLength(1);
      } finally {
        open.mockRestore();
        read.mockRestore();
        lookups.mockRestore();
      }
    }
    expect(compared).toBeGreaterThan(0);
  });

  for (const name of ['claude-synthetic', 'codex-synthetic']) {
    it(`finds a session by the path of its file (absolute or from the cwd) as the scan resolves it, in fixtures/${name}`, async () => {
      const home = await homeOf(name, `${name}-by-path`);
      const all = await scanned(home);
      let fast = 0;
      for (const row of all) {
        for (const query of [row.path, relative(home.locations.cwd, row.path)]) {
          const found = await findInCache(home.cachePath, home.locations, query);
          if (found === null) continue;
          fast++;
          const expected = resolveSession(all, query, home.locations.cwd);
          expect(expected.kind === 'found' ? expected.session : null).toEqual(found.session);
        }
      }
      // Every row the id finds whose path is its first file is found by that path too (a file group's own entry keys others).
      const byId = (await Promise.all(all.map((row) => findInCache(home.cachePath, home.locations, row.id)))).filter((found) => found !== null);
      expect(byId.length).toBeGreaterThan(0);
      expect(fast).toBeGreaterThanOrEqual(2 * byId.filter((found) => found.session.paths[0] === found.session.path).length);
    });
  }

  it('goes to the scan for a path when another file of the same name is cached, and for a path no entry keys', async () => {
    const home = await homeOf('claude-synthetic', 'by-path-copied');
    const row = (await scanned(home)).find((s) => s.id === '5e551011-0000-4000-8000-000000000002')!;
    expect((await findInCache(home.cachePath, home.locations, row.path))?.session).toEqual(await scanFind(home, row.path));
    const other = join(dirname(dirname(row.path)), '-elsewhere');
    await mkdir(other);
    await cp(row.path, join(other, `${row.id}.jsonl`));
    await scanned(home);
    expect(await findInCache(home.cachePath, home.locations, row.path)).toBeNull();
    expect(await findInCache(home.cachePath, home.locations, join(other, 'nothing.jsonl'))).toBeNull();
  });

  it('goes to the scan when there is no cache, and for an id that is only a prefix', async () => {
    const home = await homeOf('claude-synthetic', 'no-cache');
    expect(await findInCache(home.cachePath, home.locations, '5e551011-0000-4000-8000-000000000001')).toBeNull();
    await scanned(home);
    expect(await findInCache(home.cachePath, home.locations, '5e551011-0000-4000-8000-000000000001')).not.toBeNull();
    expect(await findInCache(home.cachePath, home.locations, '5e551011')).toBeNull();
  });

  it('goes to the scan when the session grew since the cache, and finds the grown row after it', async () => {
    const home = await homeOf('claude-synthetic', 'grown');
    const row = (await scanned(home)).find((s) => s.id === '5e551011-0000-4000-8000-000000000001')!;
    const last = (await readFile(row.path, 'utf8')).trimEnd().split('\n').at(-1)!;
    await appendFile(row.path, `${last}\n`);
    expect(await findInCache(home.cachePath, home.locations, row.id)).toBeNull();
    const after = await scanFind(home, row.id);
    expect((await findInCache(home.cachePath, home.locations, row.id))?.session).toEqual(after);
  });

  it("goes to the scan when a fork of the session's lineage was written beside it since the cache", async () => {
    const home = await homeOf('claude-synthetic', 'forked');
    const rows = await scanned(home);
    const parent = rows.find((s) => s.agent === 'claude' && s.lineage !== undefined && s.userTurns >= 2 && s.forkedFrom === null)!;
    const before = (await findInCache(home.cachePath, home.locations, parent.id))!.session;
    const fork = await ADAPTERS.claude.fork(groupOf(parent), { atTurn: 2 }, (await scanCatalog(home.locations)).context);
    // A scan sees the fork in the lineage: the parent's row is what it says; until then the cache must not be trusted.
    expect(await findInCache(home.cachePath, home.locations, parent.id)).toBeNull();
    expect(await findInCache(home.cachePath, home.locations, fork.id)).toBeNull();
    const child = await scanFind(home, fork.id);
    expect(child.forkedFrom).toBe(parent.id);
    expect((await findInCache(home.cachePath, home.locations, fork.id))?.session).toEqual(child);
    expect((await findInCache(home.cachePath, home.locations, parent.id))?.session).toEqual(await scanFind(home, parent.id));
    expect(before.id).toBe(parent.id);
  });

  it('goes to the scan when a file of the same id appeared in another project folder', async () => {
    const home = await homeOf('claude-synthetic', 'copied');
    const row = (await scanned(home)).find((s) => s.id === '5e551011-0000-4000-8000-000000000002')!;
    const other = join(dirname(dirname(row.path)), '-elsewhere');
    await mkdir(other);
    await cp(row.path, join(other, `${row.id}.jsonl`));
    expect(await findInCache(home.cachePath, home.locations, row.id)).toBeNull();
    const merged = await scanFind(home, row.id);
    expect(merged.paths).toHaveLength(2);
    expect((await findInCache(home.cachePath, home.locations, row.id))?.session).toEqual(merged);
  });

  it("goes to the scan when a Codex rollout was written after the session started, and not for one dated before it", async () => {
    const home = await homeOf('codex-synthetic', 'codex-later');
    const rows = await scanned(home);
    const row = rows.find((s) => s.id === '0199c0de-0000-7000-8000-000000000001')!;
    expect(await findInCache(home.cachePath, home.locations, row.id)).not.toBeNull();
    const root = home.locations.roots.codex[0]!;
    const source = await readFile(row.path, 'utf8');
    // A rollout in a date folder long before the session: it cannot join the row (never read for it).
    const old = join(root, 'sessions', '2020', '01', '01');
    await mkdir(old, { recursive: true });
    await writeFile(join(old, 'rollout-2020-01-01T00-00-00-0199c0de-0000-7000-8000-0000000000aa.jsonl'), source.replaceAll(row.id, '0199c0de-0000-7000-8000-0000000000aa'));
    expect((await findInCache(home.cachePath, home.locations, row.id))?.session).toEqual(row);
    // A resume segment of the thread, written the day after: the scan merges it.
    const later = join(root, 'sessions', '2026', '01', '16');
    await mkdir(later, { recursive: true });
    const segment = join(later, `rollout-2026-01-16T09-00-00-${row.id}_0199c0de-0000-7000-8000-0000000000ab.jsonl`);
    await writeFile(segment, source.split('\n')[0]!.concat('\n'));
    await utimes(segment, new Date(), new Date());
    expect(await findInCache(home.cachePath, home.locations, row.id)).toBeNull();
    const merged = await scanFind(home, row.id);
    expect(merged.paths).toContain(segment);
    expect((await findInCache(home.cachePath, home.locations, row.id))?.session).toEqual(merged);
  });
});
