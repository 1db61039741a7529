// grep's rows made at once (MatchRows.rowNow, withLineageNow): the rows `row` and `withLineage` give, told from the
// loaded catalog cache with no promise; undefined until the cache is loaded and where the files must be read again.
import { statSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import type { GrepStamp } from '../../src/catalog/grep-worker.js';
import { MatchRows, ReportedRows } from '../../src/catalog/grep-rows.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { candidateRoots, discoverRoot, isStoreGroup, ScanContext, selectedAdapters, type CatalogSession } from '../../src/catalog/scan.js';
import type { SessionFileGroup } from '../../src/core/formats/types.js';
import { headFingerprint } from '../../src/core/io/lines.js';
import { cachedHome } from '../helpers/cached-home.js';

let dir: string;
let home: string;
let cachePath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-grep-rows-now-'));
  ({ home, cachePath } = await cachedHome(dir, 'home', 'home'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file group of the home, as grep's walks find them, with a context that knows them and their roots' names. */
async function discovered(): Promise<{ groups: SessionFileGroup[]; context: ScanContext }> {
  const locations = { ...resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: home }), rootsFromCwds: false };
  const context = new ScanContext();
  const groups: SessionFileGroup[] = [];
  for (const adapter of selectedAdapters(undefined)) {
    for (const root of await candidateRoots(adapter, locations, context.report)) {
      await context.loadNames(adapter, root);
      groups.push(...(await discoverRoot(adapter, root, context.report)).filter((group) => !isStoreGroup(group)));
    }
  }
  context.registerAll(groups);
  return { groups, context };
}

/** Rows of these groups as a search makes them: each group's stamps as the engine takes them. */
function matchRows(groups: readonly SessionFileGroup[], context: ScanContext): MatchRows {
  const rows = new MatchRows(groups, context, async () => CatalogCache.lazySync(cachePath));
  groups.forEach((group, index) => {
    rows.noteStamps(
      index,
      group.paths.map((path): GrepStamp => {
        const info = statSync(path);
        return [info.size, info.mtimeMs, headFingerprint(path)];
      }),
    );
  });
  return rows;
}

describe('rows made at once from the catalog cache', () => {
  it('gives the row (and its lineage-linked row) `row` gives, for every group whose files are unchanged and alone in their conversation', async () => {
    const { groups, context } = await discovered();
    const now = matchRows(groups, context);
    // Not before the cache is loaded.
    expect(now.rowNow(0)).toBeUndefined();
    await now.row(0);
    now.wantFamilies();
    const made: (CatalogSession | null | undefined)[] = groups.map((_, index) => now.rowNow(index));
    // Families wait for the unsniffed groups' lineages once: linked at once after.
    for (const row of made) if (row) now.withLineageNow(row);
    await new Promise((resolve) => setImmediate(resolve));
    const linkedNow = made.map((row) => (row ? now.withLineageNow(row) : row));

    const { groups: again, context: other } = await discovered();
    const later = matchRows(again, other);
    later.wantFamilies();
    let atOnce = 0;
    for (let index = 0; index < groups.length; index++) {
      if (made[index] === undefined) continue;
      atOnce++;
      const row = await later.row(index);
      expect(made[index]).toEqual(row);
      if (row !== null) expect(linkedNow[index]).toEqual(await later.withLineage(row));
    }
    // Every session of the fixture home but those of several files (or with another file of their id) is made at once.
    expect(atOnce).toBeGreaterThan(groups.length / 2);
    expect(linkedNow.filter((row) => row !== null && row !== undefined && row.agent === 'claude').length).toBeGreaterThan(0);
  });

  it('tells a row alone by the lookups of its id and hint once a merged row was made for another conversation', async () => {
    const { groups, context } = await discovered();
    const reference = matchRows(groups, context);
    await reference.row(0);
    const alone = groups.map((_, index) => reference.rowNow(index));
    const { groups: again, context: other } = await discovered();
    // A second copy of one group: its conversation is now two groups, which `row` merges (kept under their keys).
    const copied = alone.findIndex((row) => row !== undefined && row !== null);
    const rows = matchRows([...again, { ...again[copied]! }], other);
    await rows.row(0);
    expect(rows.rowNow(copied)).toBeUndefined();
    expect(await rows.row(copied)).not.toBeNull();
    const related = vi.spyOn(MatchRows.prototype as unknown as { related: () => Set<number> }, 'related');
    try {
      const made = again.map((_, index) => (index === copied ? alone[index] : rows.rowNow(index)));
      expect(made).toEqual(alone);
      expect(alone.filter((row) => row !== undefined).length).toBeGreaterThan(groups.length / 2);
      // Without a set of the conversation's groups made for each row.
      expect(related).not.toHaveBeenCalled();
    } finally {
      related.mockRestore();
    }
  });

  it('asks the search for what it held once per batch (its maker\'s takeHeld), not once per row made at once', async () => {
    const { groups, context } = await discovered();
    let asked = 0;
    const rows = new MatchRows(groups, context, async () => CatalogCache.lazySync(cachePath), () => {
      asked++;
      return [];
    });
    groups.forEach((group, index) => rows.noteStamps(index, group.paths.map((path): GrepStamp => [statSync(path).size, statSync(path).mtimeMs, headFingerprint(path)])));
    await rows.row(0);
    rows.wantFamilies();
    const before = asked;
    const made = groups.map((_, index) => rows.rowNow(index));
    for (const row of made) if (row) rows.withLineageNow(row);
    expect(made.filter((row) => row !== undefined).length).toBeGreaterThan(groups.length / 2);
    expect(asked).toBe(before);
    rows.takeHeld();
    expect(asked).toBe(before + 1);
  });

  it('leaves a changed file to `row`, which reads it again', async () => {
    const { groups, context } = await discovered();
    const index = groups.findIndex((group) => group.agent === 'codex' && group.paths.length === 1);
    const path = groups[index]!.paths[0]!;
    const before = matchRows(groups, context);
    await before.row(index);
    const cached = before.rowNow(index);
    expect(cached).toBeTruthy();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    await appendFile(path, `${lines[lines.length - 1]}\n`);
    const after = matchRows(groups, context);
    await after.row((index + 1) % groups.length);
    expect(after.rowNow(index)).toBeUndefined();
    const read = await after.row(index);
    expect(read).not.toBeNull();
    expect(read!.id).toBe(cached!.id);
  });
});

describe('the rows a search reported', () => {
  const row = (agent: 'codex' | 'claude', id: string, host?: string): CatalogSession => ({ agent, id, ...(host === undefined ? {} : { host }) }) as CatalogSession;

  it('tells each conversation once, by machine, agent and id', () => {
    const reported = new ReportedRows();
    expect(reported.has(row('codex', 'a'))).toBe(false);
    reported.add(row('codex', 'a'));
    expect(reported.has(row('codex', 'a'))).toBe(true);
    // Another agent's, or another machine's, session of the same id is another row.
    expect(reported.has(row('claude', 'a'))).toBe(false);
    expect(reported.has(row('codex', 'a', 'box'))).toBe(false);
    reported.add(row('codex', 'a', 'box'));
    expect(reported.has(row('codex', 'a', 'box'))).toBe(true);
    expect(reported.has(row('codex', 'a', 'other'))).toBe(false);
    expect(reported.has(row('codex', 'b'))).toBe(false);
  });
});
