// A lineage family some of whose files' heads do not show their root line: grep finds those members' lineage in the
// catalog cache's bytes (no row decoded) when their files did not change, and reads a changed file again; either way its
// rows are the ones `list` gives. Runs the built modules (its workers are the built grep-worker.js).
import { appendFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Cache from '../../src/catalog/cache.js';
import type * as Grep from '../../src/catalog/grep.js';
import type { Locations } from '../../src/catalog/locations.js';
import { noRoots } from '../../src/catalog/locations.js';
import type * as Scan from '../../src/catalog/scan.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

let grep: typeof Grep;
let scan: typeof Scan;
let cacheModule: typeof Cache;

const FIXTURE = fileURLToPath(new URL('../fixtures/home/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl', import.meta.url));
const FIXTURE_ID = '5a1999c3-3fef-4a8c-8969-b584a1892bda';
const FAMILY = 6;
/** Members whose first line is longer than the head grep looks at for a root line (64 KiB): their heads do not show it. */
const HIDDEN = new Set([0, 3, 4]);
const idOf = (i: number): string => `5a1999c3-3fef-4a8c-8969-${String(i).padStart(12, '0')}`;

describe('grep over a lineage family whose heads do not all show its root, with a catalog cache', () => {
  let dir: string;
  let home: string;
  let project: string;
  const locations = (): Locations => ({ roots: { ...noRoots(), claude: [join(home, '.claude')] }, cwd: home, rootsFromCwds: false });

  beforeAll(async () => {
    grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
    scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
    cacheModule = await importBuilt<typeof Cache>('catalog', 'cache.js');
    dir = await mkdtemp(join(tmpdir(), 'sessions-grep-lineage-cache-'));
    home = join(dir, 'home');
    project = join(home, '.claude', 'projects', '-home-dev-src-a-api-server');
    await mkdir(project, { recursive: true });
    const text = await readFile(FIXTURE, 'utf8');
    // Copies under new session ids keep every message uuid: one family, of different ages.
    for (let i = 0; i < FAMILY; i++) {
      const id = idOf(i);
      const path = join(project, `${id}.jsonl`);
      const pad = HIDDEN.has(i) ? `${JSON.stringify({ type: 'mode', mode: 'normal', sessionId: id, pad: 'x'.repeat(70_000) })}\n` : '';
      await writeFile(path, pad + text.replaceAll(FIXTURE_ID, id));
      await utimes(path, 1_700_000_000 + i, 1_700_000_000 + i);
    }
    // A file that holds no conversation (file-history snapshots only): no row, no lineage in its head.
    const snapshot = { type: 'file-history-snapshot', messageId: 'a3f0c2d4-0000-4000-8000-000000000001', snapshot: { trackedFileBackups: {}, timestamp: '2026-09-16T09:40:53.310Z' }, isSnapshotUpdate: false };
    await writeFile(join(project, 'b7e1d2c3-0000-4000-8000-000000000002.jsonl'), `${JSON.stringify(snapshot)}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `list`'s rows (a scan without a cache) and grep's with the cache a scan saved at `cachePath`. */
  async function rowsOf(cachePath: string): Promise<{ listed: readonly Scan.CatalogSession[]; grepped: Scan.CatalogSession[] }> {
    const { sessions: listed } = await scan.scanCatalog(locations());
    const grepped: Scan.CatalogSession[] = [];
    await grep.grepLocations(locations(), 'request lifecycle', {
      ...grepEngineOption(),
      ignoreCase: true,
      workers: 1,
      cache: async () => cacheModule.CatalogCache.lazySync(cachePath),
      onMatch: (row) => grepped.push(row),
    });
    return { listed, grepped };
  }

  it('links every row as list does, the hidden members found by their cached lineage, and a changed member read again', async () => {
    const cachePath = join(dir, 'catalog.jsonl');
    const cache = await cacheModule.CatalogCache.load(cachePath);
    await scan.scanCatalog(locations(), { cache });
    await cache.save();
    const told = vi.spyOn(cacheModule.CatalogCache.prototype, 'cachedLineage');
    try {
      const { listed, grepped } = await rowsOf(cachePath);
      expect(listed).toHaveLength(FAMILY);
      // The family's first member (its root: the others are its forks) is one whose head hides the root line.
      const parents = new Set(listed.map((row) => row.forkedFrom).filter((id) => id !== null));
      expect([...parents].some((id) => HIDDEN.has(Number(id!.slice(-12))))).toBe(true);
      expect(grepped).toEqual(listed);
      // Each hidden member's lineage was told by the cache, without its row.
      const answers = told.mock.results.map((result) => result.value as { lineage: string | undefined } | undefined);
      expect(answers.filter((answer) => answer?.lineage !== undefined)).toHaveLength(HIDDEN.size);
      // And the file without a conversation is known to hold none, without its entry decoded.
      expect(answers.filter((answer) => answer === null)).toHaveLength(1);

      // A hidden member whose file changed since the cache was written (a turn appended, a later mtime) is read again:
      // its stamp is not the cached one, so the cache tells nothing of it.
      const changed = join(project, `${idOf(0)}.jsonl`);
      const lines = (await readFile(changed, 'utf8')).trimEnd().split('\n');
      await appendFile(changed, `${lines.at(-1)!}\n`);
      await utimes(changed, 1_700_000_100, 1_700_000_100);
      told.mockClear();
      const after = await rowsOf(cachePath);
      expect(after.grepped).toEqual(after.listed);
      expect(after.grepped.find((row) => row.id === idOf(0))?.updatedAt).toBe(after.listed.find((row) => row.id === idOf(0))?.updatedAt);
      expect(told.mock.results.filter((result) => (result.value as { lineage?: string } | undefined)?.lineage !== undefined)).toHaveLength(HIDDEN.size - 1);
    } finally {
      told.mockRestore();
    }
  });
});
