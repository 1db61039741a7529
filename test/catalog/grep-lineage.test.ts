// A big lineage family (Claude forks share their first message's uuid): grep links each matching row as `list`
// does, and the work grows with the family, not with its square (counted in sessions handed to the row merge).
// Runs the built modules (its workers are the built grep-worker.js).
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Grep from '../../src/catalog/grep.js';
import type { Locations } from '../../src/catalog/locations.js';
import { noRoots } from '../../src/catalog/locations.js';
import type * as MergeRows from '../../src/catalog/merge-rows.js';
import type * as Scan from '../../src/catalog/scan.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

let grep: typeof Grep;
let scan: typeof Scan;
let mergeRows: typeof MergeRows;

const FIXTURE = fileURLToPath(new URL('../fixtures/home/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl', import.meta.url));
const FAMILY = 150;

describe('grep over a big lineage family', () => {
  let home: string;
  const locations = (): Locations => ({ roots: { ...noRoots(), claude: [join(home, '.claude')] }, cwd: home, rootsFromCwds: false });

  beforeAll(async () => {
    grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
    scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
    mergeRows = await importBuilt<typeof MergeRows>('catalog', 'merge-rows.js');
    home = await mkdtemp(join(tmpdir(), 'sessions-grep-lineage-'));
    const project = join(home, '.claude', 'projects', '-home-dev-src-a-api-server');
    await mkdir(project, { recursive: true });
    const text = await readFile(FIXTURE, 'utf8');
    // Copies under new session ids keep every message uuid: one family of FAMILY sessions, of different ages.
    for (let i = 0; i < FAMILY; i++) {
      const id = `5a1999c3-3fef-4a8c-8969-${String(i).padStart(12, '0')}`;
      const path = join(project, `${id}.jsonl`);
      await writeFile(path, text.replaceAll('5a1999c3-3fef-4a8c-8969-b584a1892bda', id));
      await utimes(path, 1_700_000_000 + i, 1_700_000_000 + i);
    }
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('links every matching row to the family parent as list does, merging each row once', async () => {
    const { sessions } = await scan.scanCatalog(locations());
    expect(sessions).toHaveLength(FAMILY);
    expect(sessions.filter((row) => row.forkedFrom !== null)).toHaveLength(FAMILY - 1);
    const merged = vi.spyOn(mergeRows, 'conversations');
    try {
      const rows: Scan.CatalogSession[] = [];
      const { matched } = await grep.grepLocations(locations(), 'request lifecycle', { ...grepEngineOption(), ignoreCase: true, workers: 1, onMatch: (row) => rows.push(row) });
      expect(matched).toBe(FAMILY);
      expect(rows).toEqual(sessions);
      // Sessions handed to the row merge over the whole search: linear in the family (was FAMILY × FAMILY).
      const handed = merged.mock.calls.reduce((sum, [input]) => sum + input.length, 0);
      expect(handed).toBeLessThanOrEqual(2 * FAMILY);
    } finally {
      merged.mockRestore();
    }
  });
});
