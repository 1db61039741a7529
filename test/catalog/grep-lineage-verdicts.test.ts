// The lineages a grep was told of the files whose head does not show theirs are kept beside its walk memo: a later grep
// takes them for files with the same stamps instead of asking the catalog cache, asks again for a changed file, and
// ignores a verdicts file that is cut, damaged or another run's; its rows are always the ones `list` gives. Runs the
// built modules (its workers are the built grep-worker.js).
import { appendFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Cache from '../../src/catalog/cache.js';
import type * as Grep from '../../src/catalog/grep.js';
import type * as Verdicts from '../../src/catalog/lineage-verdicts.js';
import type { Locations } from '../../src/catalog/locations.js';
import { noRoots } from '../../src/catalog/locations.js';
import type * as Scan from '../../src/catalog/scan.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

let grep: typeof Grep;
let scan: typeof Scan;
let cacheModule: typeof Cache;
let verdictsModule: typeof Verdicts;

const FIXTURE = fileURLToPath(new URL('../fixtures/home/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl', import.meta.url));
const FIXTURE_ID = '5a1999c3-3fef-4a8c-8969-b584a1892bda';
const FAMILY = 6;
/** Members whose first line is longer than the head grep looks at for a root line (64 KiB): their heads do not show it. */
const HIDDEN = new Set([0, 3, 4]);
const idOf = (i: number): string => `5a1999c3-3fef-4a8c-8969-${String(i).padStart(12, '0')}`;
/** A line longer than the head the search sniffs for a root line. */
const padLine = (id: string): string => `${JSON.stringify({ type: 'mode', mode: 'normal', sessionId: id, pad: 'x'.repeat(70_000) })}\n`;
const SNAPSHOT_ID = 'b7e1d2c3-0000-4000-8000-000000000002';

describe('grep keeps the lineages its heads did not show beside its walk memo', () => {
  let dir: string;
  let home: string;
  let project: string;
  let text: string;
  const locations = (): Locations => ({ roots: { ...noRoots(), claude: [join(home, '.claude')] }, cwd: home, rootsFromCwds: false });
  const memoPath = (): string => join(dir, 'grep-walk.json');
  const cachePath = (): string => join(dir, 'catalog.jsonl');

  beforeAll(async () => {
    grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
    scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
    cacheModule = await importBuilt<typeof Cache>('catalog', 'cache.js');
    verdictsModule = await importBuilt<typeof Verdicts>('catalog', 'lineage-verdicts.js');
    dir = await mkdtemp(join(tmpdir(), 'sessions-grep-lineage-verdicts-'));
    home = join(dir, 'home');
    project = join(home, '.claude', 'projects', '-home-dev-src-a-api-server');
    await mkdir(project, { recursive: true });
    text = await readFile(FIXTURE, 'utf8');
    // Copies under new session ids keep every message uuid: one family, of different ages.
    for (let i = 0; i < FAMILY; i++) {
      const id = idOf(i);
      const path = join(project, `${id}.jsonl`);
      await writeFile(path, (HIDDEN.has(i) ? padLine(id) : '') + text.replaceAll(FIXTURE_ID, id));
      await utimes(path, 1_700_000_000 + i, 1_700_000_000 + i);
    }
    // A file that holds no conversation (file-history snapshots only): no row, no lineage in its head.
    await writeFile(join(project, `${SNAPSHOT_ID}.jsonl`), snapshotLine());
    // `list` wrote the cache.
    const cache = await cacheModule.CatalogCache.load(cachePath());
    await scan.scanCatalog(locations(), { cache });
    await cache.save();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `list`'s rows (a scan without a cache), grep's with the cache and the walk memo, and what the cache was asked. */
  async function rowsOf(): Promise<{ listed: readonly Scan.CatalogSession[]; grepped: Scan.CatalogSession[]; told: (Verdicts.LineageVerdict | undefined)[] }> {
    const { sessions: listed } = await scan.scanCatalog(locations());
    const grepped: Scan.CatalogSession[] = [];
    const asked = vi.spyOn(cacheModule.CatalogCache.prototype, 'cachedLineage');
    try {
      await grep.grepLocations(locations(), 'request lifecycle', {
        ...grepEngineOption(),
        ignoreCase: true,
        workers: 1,
        cache: async () => cacheModule.CatalogCache.lazySync(cachePath()),
        walkMemo: memoPath(),
        walkSynchronously: true,
        onMatch: (row) => grepped.push(row),
      });
      return { listed, grepped, told: asked.mock.results.map((result) => result.value as Verdicts.LineageVerdict | undefined) };
    } finally {
      asked.mockRestore();
    }
  }

  const byId = (rows: readonly Scan.CatalogSession[]): Scan.CatalogSession[] => [...rows].sort((a, b) => a.id.localeCompare(b.id));

  it('asks the cache once, then takes the kept verdicts; a changed file is asked again and its new row linked', async () => {
    const first = await rowsOf();
    expect(first.listed).toHaveLength(FAMILY);
    expect(first.grepped).toEqual(first.listed);
    // The hidden members' lineages and the snapshot file's "no conversation", told by the cache, are kept.
    expect(first.told.filter((answer) => answer?.lineage !== undefined)).toHaveLength(HIDDEN.size);
    expect(first.told.filter((answer) => answer === null)).toHaveLength(1);
    const verdictsFile = verdictsModule.lineageVerdictsPath(memoPath());
    expect(existsSync(verdictsFile)).toBe(true);

    // The next grep asks the cache nothing: the same rows.
    const second = await rowsOf();
    expect(second.told).toEqual([]);
    expect(second.grepped).toEqual(second.listed);

    // A hidden member appended to (a later mtime): its stamps are not the kept ones, so it is looked up (the cache does
    // not know them either: its row is read), the others are not.
    const changed = join(project, `${idOf(0)}.jsonl`);
    const lines = (await readFile(changed, 'utf8')).trimEnd().split('\n');
    await appendFile(changed, `${lines.at(-1)!}\n`);
    await utimes(changed, 1_700_000_100, 1_700_000_100);
    // The file that held no conversation now holds one of the family (behind a long first line: its head still shows no lineage).
    const snapshot = join(project, `${SNAPSHOT_ID}.jsonl`);
    await writeFile(snapshot, snapshotLine() + padLine(SNAPSHOT_ID) + text.replaceAll(FIXTURE_ID, SNAPSHOT_ID));
    await utimes(snapshot, 1_700_000_200, 1_700_000_200);
    // A hidden member now of another lineage (its messages' uuids are not the family's).
    const moved = join(project, `${idOf(3)}.jsonl`);
    await writeFile(moved, padLine(idOf(3)) + otherLineage(text.replaceAll(FIXTURE_ID, idOf(3))));
    await utimes(moved, 1_700_000_300, 1_700_000_300);
    const third = await rowsOf();
    expect(third.told).toEqual([undefined, undefined, undefined]);
    expect(third.listed).toHaveLength(FAMILY + 1);
    expect(byId(third.grepped)).toEqual(byId(third.listed));
    expect(third.grepped.find((row) => row.id === idOf(3))?.lineage).not.toBe(third.grepped.find((row) => row.id === idOf(1))?.lineage);
    expect(third.grepped.find((row) => row.id === SNAPSHOT_ID)?.lineage).toBe(third.grepped.find((row) => row.id === idOf(1))?.lineage);
  });

  it('ignores a verdicts file that is cut, damaged or another run\'s: the cache is asked as before', async () => {
    const verdictsFile = verdictsModule.lineageVerdictsPath(memoPath());
    // `list` ran again (the cache knows the files the first test changed), and a grep kept what the cache told of them.
    const cache = await cacheModule.CatalogCache.load(cachePath());
    await scan.scanCatalog(locations(), { cache });
    await cache.save();
    expect((await rowsOf()).told.filter((answer) => answer !== undefined)).toHaveLength(3);
    const saved = await readFile(verdictsFile, 'utf8');
    expect((await rowsOf()).told).toEqual([]);
    const other = JSON.stringify({ ...(JSON.parse(saved) as object), key: 'another run' });
    const damaged = saved.replace(/\[("[^"]+"),(\d+),/, '[$1,"$2",');
    expect(damaged).not.toBe(saved);
    for (const bad of [saved.slice(0, saved.length >> 1), damaged, other, 'not json']) {
      await writeFile(verdictsFile, bad);
      const run = await rowsOf();
      expect(run.told.filter((answer) => answer !== undefined).length).toBeGreaterThan(0);
      expect(byId(run.grepped)).toEqual(byId(run.listed));
    }
  });
});

function snapshotLine(): string {
  const snapshot = { type: 'file-history-snapshot', messageId: 'a3f0c2d4-0000-4000-8000-000000000001', snapshot: { trackedFileBackups: {}, timestamp: '2026-09-16T09:40:53.310Z' }, isSnapshotUpdate: false };
  return `${JSON.stringify(snapshot)}\n`;
}

/** A transcript whose message uuids are all changed (another conversation's lineage). */
function otherLineage(transcript: string): string {
  return transcript.replace(/"(uuid|parentUuid|leafUuid)":"([0-9a-f]{8})/g, '"$1":"ffffffff');
}
