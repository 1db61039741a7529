// CacheFileIndex.entryOnlyByFirstPath: the lookups of a lazy cache (grep's rows) take an entry without the
// CachedEntry made around it, found by its first path's bytes in the line; the same entry entryByFirstPath finds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEntry } from '../../src/catalog/cache-entry.js';
import { writeEntries } from '../../src/catalog/cache-file.js';
import { CacheFileIndex } from '../../src/catalog/cache-file-index.js';
import type { CatalogSession } from '../../src/catalog/scan.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-entry-only-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function session(id: string, paths: readonly string[], lineage?: string): CatalogSession {
  return {
    id,
    agent: 'claude',
    path: paths[0]!,
    paths: [...paths],
    cwd: '/work/project',
    title: 'fix the build',
    firstPrompt: 'fix the build',
    lastPrompt: 'and the tests',
    name: null,
    userTurns: 2,
    userTurnsExact: true,
    prompts: ['fix the build', 'and the tests'],
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:05:00.000Z',
    forkedFrom: null,
    fork: null,
    ...(lineage === undefined ? {} : { lineage }),
    gitBranch: 'main',
    model: 'opus',
    archived: false,
    usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0 },
    size: 100,
    mtimeMs: 1_700_000_000_000,
    root: '/home/.claude/projects',
  };
}

describe('CacheFileIndex.entryOnlyByFirstPath', () => {
  it('gives the entry entryByFirstPath gives, for plain, escaped, non-ASCII and long paths; nothing for a path not first', async () => {
    const long = `/p/${'x'.repeat(5000)}.jsonl`;
    const firsts = ['/p/a.jsonl', '/p/a.jsonl2', '/p/é-ü.jsonl', '/p/emoji-😀.jsonl', '/p/a"quote.jsonl', '/p/back\\slash.jsonl', '/p/ctl\u0001.jsonl', long, '/p/lone\ud800.jsonl'];
    const rows = firsts.map((path, at) => session(`id-${at}`, [path], at % 2 === 0 ? `lineage-${at}` : undefined));
    const two = session('two-files', ['/p/segment-1.jsonl', '/p/segment-2.jsonl']);
    const path = join(dir, 'cache.jsonl');
    await writeEntries(path, [
      ...rows.map((row) => [row.path, makeEntry([[row.path, 100, 1_700_000_000_000, '40:0badf00d']], row)] as const),
      [two.path, makeEntry([[two.paths[0]!, 1, 2, 'f'], [two.paths[1]!, 3, 4, 'g']], two, 7)],
      ['/p/none.jsonl', makeEntry([['/p/none.jsonl', 5, 6, 'h']], null)],
    ]);
    for (const open of [(file: string) => CacheFileIndex.readSync(file), (file: string) => CacheFileIndex.openSync(file)]) {
      const index = open(path)!;
      // The expectations from an index of their own: entryByFirstPath keeps what it decodes.
      const expecting = open(path)!;
      for (const first of [...firsts, two.path, '/p/none.jsonl']) {
        const expected = expecting.entryByFirstPath(first);
        expect(expected, first).toBeDefined();
        expect(index.entryOnlyByFirstPath(first), first).toEqual(expected!.entry);
      }
      expect(index.entryOnlyByFirstPath('/p/a.jsonl')!.session!.id).toBe('id-0');
      expect(index.entryOnlyByFirstPath(long)!.session!.id).toBe('id-7');
      expect(index.entryOnlyByFirstPath('/p/é-ü.jsonl')!.session!.lineage).toBe('lineage-2');
      expect(index.entryOnlyByFirstPath(two.path)).toMatchObject({ fold: 7, more: [[two.paths[1], 3, 4, 'g']] });
      expect(index.entryOnlyByFirstPath('/p/none.jsonl')).toEqual({ session: null, size: 5, mtimeMs: 6, fingerprint: 'h' });
      // A file that is not its entry's first, a prefix of a first path, a path the cache never saw.
      for (const other of [two.paths[1]!, '/p/a.json', '/p/nowhere.jsonl', `${long}x`]) expect(index.entryOnlyByFirstPath(other), other).toBeUndefined();
    }
  });
});
