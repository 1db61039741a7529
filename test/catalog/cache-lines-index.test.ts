// A cache file's line index (CacheFileIndex.openSync): written beside the cache by the first synchronous open, then
// read instead of the whole cache, with each entry line read when it is looked up; never used for another file than
// the one it was made for (a session changed and the cache saved again: the next grep gives the new row).
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { CacheFileIndex } from '../../src/catalog/cache-file-index.js';
import { linesIndexPath } from '../../src/catalog/cache-lines-index.js';
import { cachedHome, stampsOf } from '../helpers/cached-home.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-cache-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a cache file line index', () => {
  it('is written by the first synchronous open, and the next reads the cache line by line, answering as a whole read', async () => {
    const { sessions, cachePath } = await cachedHome(dir, 'home', 'answers');
    expect(existsSync(linesIndexPath(cachePath))).toBe(false);
    const whole = CacheFileIndex.openSync(cachePath)!;
    expect(whole.readWhole).toBe(true);
    expect(existsSync(linesIndexPath(cachePath))).toBe(true);
    const lines = CacheFileIndex.openSync(cachePath)!;
    expect(lines.readWhole).toBe(false);
    expect(sessions.length).toBeGreaterThan(10);
    let found = 0;
    for (const session of [...sessions].reverse()) {
      for (const path of new Set([...session.paths, session.path])) {
        const entry = lines.entryByFirstPath(path);
        expect(entry).toEqual(whole.entryByFirstPath(path));
        if (entry !== undefined) found++;
        const [stamp] = stampsOf([path]);
        expect(lines.lineageOfExact(stamp!)).toEqual(whole.lineageOfExact(stamp!));
      }
    }
    expect(found).toBeGreaterThan(sessions.length / 2);
    // Still line by line; a lookup that needs the whole file (entries by id) reads it, and answers as before.
    expect(lines.readWhole).toBe(false);
    const [first] = sessions;
    expect(lines.entriesOf(first!.id)).toEqual(whole.entriesOf(first!.id));
    expect(lines.readWhole).toBe(true);
    expect(lines.entryByFirstPath(first!.paths[0]!)).toEqual(whole.entryByFirstPath(first!.paths[0]!));
  });

  it('gives way to one read of the whole file when more lookups are coming than it would read line by line', async () => {
    const { sessions, cachePath } = await cachedHome(dir, 'home', 'expected');
    const whole = CacheFileIndex.openSync(cachePath)!;
    // As many as it reads one by one (4096 at least): line by line still.
    const few = CatalogCache.lazySync(cachePath);
    few.expectLookups(4096);
    const lines = CacheFileIndex.openSync(cachePath)!;
    lines.expectLookups(4096);
    expect(lines.readWhole).toBe(false);
    // More (a common word's matches): the whole file now, before any lookup, with the same answers.
    lines.expectLookups(4097);
    expect(lines.readWhole).toBe(true);
    const many = CatalogCache.lazySync(cachePath);
    many.expectLookups(4097);
    for (const session of sessions) {
      const path = session.paths[0]!;
      expect(lines.entryByFirstPath(path)).toEqual(whole.entryByFirstPath(path));
      expect(many.lookup(stampsOf(session.paths))).toEqual(few.lookup(stampsOf(session.paths)));
    }
  });

  it('is not used once the cache was saved again: a changed session gets its new row, and the index is made anew', async () => {
    const { sessions, cachePath, rescan } = await cachedHome(dir, 'claude-synthetic', 'changed');
    CatalogCache.lazySync(cachePath);
    const before = readFileSync(linesIndexPath(cachePath));
    expect(CacheFileIndex.openSync(cachePath)!.readWhole).toBe(false);
    // A new turn in one session (the agent appends), and `list` saves the cache again.
    const session = sessions.find((one) => one.agent === 'claude' && one.paths.length === 1)!;
    const [path] = session.paths;
    const last = readFileSync(path!, 'utf8').trimEnd().split('\n').at(-1)!;
    const line = JSON.parse(last) as { uuid?: string; timestamp?: string };
    appendFileSync(path!, `${JSON.stringify({ ...JSON.parse(last), parentUuid: line.uuid, uuid: '5e551011-ffff-4000-8000-00000000ffff', type: 'user', isMeta: false, message: { role: 'user', content: 'a later question about the stale index' }, timestamp: '2030-01-01T00:00:00.000Z' })}\n`);
    const now = (await rescan()).find((one) => one.id === session.id)!;
    expect(now.updatedAt).not.toBe(session.updatedAt);
    const index = CacheFileIndex.openSync(cachePath)!;
    expect(index.readWhole).toBe(true);
    expect(readFileSync(linesIndexPath(cachePath))).not.toEqual(before);
    expect(CatalogCache.lazySync(cachePath).lookup(stampsOf(session.paths))).toEqual(now);
    expect(CacheFileIndex.openSync(cachePath)!.readWhole).toBe(false);
    expect(CatalogCache.lazySync(cachePath).lookup(stampsOf(session.paths))).toEqual(now);
  });

  it('is not used for a file it was not made for, nor when it is damaged', async () => {
    const { sessions, cachePath } = await cachedHome(dir, 'claude-synthetic', 'other');
    CacheFileIndex.openSync(cachePath);
    const index = linesIndexPath(cachePath);
    const written = readFileSync(index);
    const stamps = stampsOf(sessions[0]!.paths);
    const expected = CatalogCache.lazySync(cachePath).lookup(stamps);
    expect(expected).toBeDefined();
    // The same bytes written again (another inode's times): read whole, and the index made for it.
    writeFileSync(cachePath, readFileSync(cachePath));
    expect(CacheFileIndex.openSync(cachePath)!.readWhole).toBe(true);
    expect(CatalogCache.lazySync(cachePath).lookup(stamps)).toEqual(expected);
    // Damaged: cut short, or numbers missing.
    for (const damaged of [written.subarray(0, 20), written.subarray(0, written.length - 8)]) {
      writeFileSync(index, damaged);
      expect(CacheFileIndex.openSync(cachePath)!.readWhole).toBe(true);
      writeFileSync(index, damaged);
      expect(CatalogCache.lazySync(cachePath).lookup(stamps)).toEqual(expected);
    }
  });
});
