// `CatalogCache.lazy`: a cache whose entries are decoded from the file's bytes when they are asked for (grep's
// matches), answering every lookup as the cache `load` reads whole does.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { firstPathHashesInJs, nativeFirstPathHashes } from '../../src/catalog/cache-file-index.js';
import { nativeEngine } from '../../src/core/native.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { cachedHome, stampsOf } from '../helpers/cached-home.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-lazy-cache-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Opened as the browser's content search does (read asynchronously) and as the CLI's grep does (synchronously).
const OPENINGS = [
  { how: 'read asynchronously', lazyAt: (path: string): Promise<CatalogCache> => CatalogCache.lazy(path) },
  { how: 'read synchronously', lazyAt: (path: string): Promise<CatalogCache> => Promise.resolve(CatalogCache.lazySync(path)) },
  // The first synchronous open writes the file's line index; the second reads it, and each line as it is looked up.
  {
    how: 'read line by line',
    lazyAt: (path: string): Promise<CatalogCache> => {
      CatalogCache.lazySync(path);
      return Promise.resolve(CatalogCache.lazySync(path));
    },
  },
];

describe.each(OPENINGS)('a lazy catalog cache, $how', ({ how, lazyAt }) => {
  it('answers every lookup of the fixture home as the loaded cache does', async () => {
    const { sessions, cachePath } = await cachedHome(dir, 'home', `home-${how.split(' ')[1]}`);
    const loaded = await CatalogCache.load(cachePath);
    const lazy = await lazyAt(cachePath);
    expect(lazy.rejected).toBeNull();
    expect(sessions.length).toBeGreaterThan(10);
    let found = 0;
    for (const session of sessions) {
      for (const paths of [session.paths, [session.path]]) {
        const stamps = stampsOf(paths);
        const expected = loaded.lookup(stamps);
        expect(lazy.lookup(stamps)).toEqual(expected);
        if (expected) found++;
      }
    }
    // Most sessions are a file of their own, found by it.
    expect(found).toBeGreaterThan(sessions.length / 2);
    // Decoded entries are not kept: each lookup decodes its line again, and answers the same, in any order.
    for (const session of [...sessions].reverse()) {
      const stamps = stampsOf(session.paths);
      expect(lazy.lookup(stamps)).toEqual(loaded.lookup(stamps));
      expect(lazy.lookup(stamps)).toEqual(loaded.lookup(stamps));
    }
    // A file the cache never saw, and a known file that grew: not answered.
    expect(lazy.lookup([['/nowhere/x.jsonl', 1, 1, '1:0']])).toBeUndefined();
    const [first] = sessions;
    const [stamp] = stampsOf([first!.paths[0]!]);
    expect(lazy.lookup([[stamp![0], stamp![1] + 1, stamp![2], stamp![3]]])).toBeUndefined();
  });

  it('finds an entry whose path holds a quote, a backslash and non-ASCII letters', async () => {
    const home = join(dir, `odd-paths-${how.split(' ')[1]}`);
    const project = join(home, '.claude', 'projects', '-tmp-a"b\\c-é');
    await mkdir(project, { recursive: true });
    const source = join(FIXTURES, 'claude-synthetic', '.claude', 'projects');
    const [folder] = readdirSync(source);
    const [file] = readdirSync(join(source, folder!)).filter((name) => name.endsWith('.jsonl'));
    await writeFile(join(project, file!), await readFile(join(source, folder!, file!)));
    const locations = { ...resolveLocations({ home }, { env: {}, homeDir: home, cwd: home }), rootsFromCwds: false };
    const cachePath = join(dir, `odd-${how.split(' ')[1]}.cache.jsonl`);
    const cache = await CatalogCache.load(cachePath);
    const { sessions } = await scanCatalog(locations, { cache });
    await cache.save();
    const session = sessions.find((s) => s.path.startsWith(project));
    expect(session).toBeDefined();
    expect(await readFile(cachePath, 'utf8')).toContain('a\\"b\\\\c');
    const lazy = await lazyAt(cachePath);
    expect(lazy.lookup(stampsOf(session!.paths))).toEqual((await CatalogCache.load(cachePath)).lookup(stampsOf(session!.paths)));
    expect(lazy.lookup(stampsOf(session!.paths))?.id).toBe(session!.id);
  });

  it('is an empty cache when the file is missing, cut short or of another version, and never writes', async () => {
    const { cachePath, sessions } = await cachedHome(dir, 'claude-synthetic', `cut-${how.split(' ')[1]}`);
    const whole = await readFile(cachePath, 'utf8');
    const stamps = stampsOf(sessions[0]!.paths);
    // cut short: the end line is gone
    await writeFile(cachePath, whole.slice(0, whole.lastIndexOf('{"end"')));
    const cut = await lazyAt(cachePath);
    expect(cut.rejected).not.toBeNull();
    expect(cut.lookup(stamps)).toBeUndefined();
    // another version
    await writeFile(cachePath, whole.replace(/^\{"version":\d+/, '{"version":1'));
    expect((await lazyAt(cachePath)).lookup(stamps)).toBeUndefined();
    // missing
    expect((await lazyAt(join(dir, 'missing.jsonl'))).lookup(stamps)).toBeUndefined();
    // read-only: a store and a save leave the file as it was
    await writeFile(cachePath, whole);
    const lazy = await lazyAt(cachePath);
    expect(lazy.lookup(stamps)).toBeDefined();
    lazy.store(stamps, null);
    await lazy.save();
    expect(await readFile(cachePath, 'utf8')).toBe(whole);
  });
});

describe('the first paths of a cache file', () => {
  it('are hashed by the native engine as in JS: every line of a cache, escapes, files without a conversation, stores, cut lines', async () => {
    const { cachePath } = await cachedHome(dir, 'home', 'first-paths');
    const written = await readFile(cachePath);
    const made = [
      '{"none":[["/h/a.jsonl",1,2,"3:4"]]}',
      '{"store":[["/h/db",1,2,"3:4"]],"rows":[]}',
      '{"id":"x","agent":"codex","paths":["/h/a\\"b.jsonl"],"path":0}',
      '{"id":"x","agent":"codex","paths":["/h/é 🙂.jsonl"]}',
      '{"id":"x","agent":"codex","paths":["/h/cut',
      '{"id":"x","agent":"codex","stamps":[]}',
      `{"id":"${'y'.repeat(400)}","agent":"claude","paths":["/h/late.jsonl"]}`,
      '{"none":[["',
      '',
    ].join('\n');
    const bytes = Buffer.concat([written, Buffer.from(`\n${made}`)]);
    const starts: number[] = [];
    const ends: number[] = [];
    for (let start = 0; start < bytes.length; ) {
      let end = bytes.indexOf(0x0a, start);
      if (end === -1) end = bytes.length;
      starts.push(start);
      ends.push(end);
      start = end + 1;
    }
    const inJs = firstPathHashesInJs(bytes, starts, ends);
    // Every answer is seen: hashes, lines without a first path (the header, strings, the end, a cut one), escapes.
    expect(inJs.filter((hash) => hash >= 0).length).toBeGreaterThan(10);
    expect(inJs.filter((hash) => hash === -1).length).toBeGreaterThan(3);
    expect(inJs.filter((hash) => hash === -2).length).toBe(1);
    const native = nativeFirstPathHashes(bytes, starts, ends);
    // Without the native engine (not built), JS hashes them: nothing to compare.
    if (nativeEngine() === null) return expect(native).toBeNull();
    expect([...native!]).toEqual([...inJs]);
  });
});
