// A Codex paginated fork (0.16x) holds only its own lines; its early turns are its parent's file up to
// `history_base.end_byte_offset`. grep matches such a fork by the text of those turns, and says so (`inherited`).
// The parent and fork are the real Codex 0.169.0 files of the fixture home, copied into the test's own home.
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Cache from '../../src/catalog/cache.js';
import type * as CatalogGrep from '../../src/catalog/grep-catalog.js';
import type * as Grep from '../../src/catalog/grep.js';
import type * as Inherited from '../../src/catalog/grep-inherited.js';
import type * as Formats from '../../src/core/formats/index.js';
import type { SessionFileGroup } from '../../src/core/formats/types.js';
import type * as Scan from '../../src/catalog/scan.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DAY = join('.codex', 'sessions', '2026', '11', '22');
const PARENT_ID = '01a200ed-500e-74e1-88bc-7c2f05604fd8';
const FORK_ID = '01a200ed-5c85-77b2-b5d4-279df852ebe4';
const GRANDCHILD_ID = '01a200ed-7777-7000-8000-000000000777';
const PARENT = `rollout-2026-11-22T01-44-42-${PARENT_ID}.jsonl`;
const FORK = `rollout-2026-11-22T01-44-45-${FORK_ID}.jsonl`;
const GRANDCHILD = `rollout-2026-11-22T01-50-00-${GRANDCHILD_ID}.jsonl`;

let grep: typeof Grep;
let cacheModule: typeof Cache;
let dir: string;
let home: string;
let inheritedBytes: Buffer;

interface Hit {
  readonly row: Scan.CatalogSession;
  readonly found: Grep.GrepFound;
}

async function search(text: string, extra: Partial<Grep.GrepOptions> = {}): Promise<Map<string, Hit>> {
  const hits = new Map<string, Hit>();
  const locations = resolveLocations({ home }, { env: {}, homeDir: home, cwd: '/nowhere' });
  await grep.grepLocations(locations, text, { ...grepEngineOption(), agents: ['codex'], ...extra, onMatch: (row, found) => hits.set(row.id, { row, found }) });
  return hits;
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

beforeAll(async () => {
  grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
  cacheModule = await importBuilt<typeof Cache>('catalog', 'cache.js');
  dir = await mkdtemp(join(tmpdir(), 'sessions-grep-inherited-'));
  home = join(dir, 'home');
  await mkdir(join(home, DAY), { recursive: true });
  for (const name of [PARENT, FORK]) await copyFile(join(ROOT, 'test', 'fixtures', 'home', DAY, name), join(home, DAY, name));
  const fork = await readFile(join(home, DAY, FORK), 'utf8');
  const header = JSON.parse(fork.slice(0, fork.indexOf('\n'))) as { payload: { history_base: { end_byte_offset: number } } };
  inheritedBytes = (await readFile(join(home, DAY, PARENT))).subarray(0, header.payload.history_base.end_byte_offset);
  // A fork of the fork (as Codex writes one: its own id, its base the whole fork file).
  const grandchild = fork
    .replaceAll(FORK_ID, GRANDCHILD_ID)
    .replace(`"forked_from_id":"${PARENT_ID}"`, `"forked_from_id":"${FORK_ID}"`)
    .replace(/"history_base":\{[^}]*\}/, `"history_base":{"thread_id":"${FORK_ID}","end_ordinal_exclusive":60,"end_byte_offset":${Buffer.byteLength(fork)}}`);
  await writeFile(join(home, DAY, GRANDCHILD), grandchild.split('\n').slice(0, 1).join('\n') + '\n');
  // Text the parent holds only after the fork point: no fork inherits it.
  await appendFile(
    join(home, DAY, PARENT),
    `${JSON.stringify({ timestamp: '2026-11-22T01:59:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'quetzal after the fork' }] } })}\n`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('grep and the turns a Codex fork inherits', () => {
  it('lists the fork, and its fork, by text that is only in the inherited part of the parent file', async () => {
    expect(occurrences(inheritedBytes.toString('utf8'), 'health check')).toBeGreaterThan(0);
    expect(await readFile(join(home, DAY, FORK), 'utf8')).not.toContain('health check');
    const hits = await search('health check', { count: true, context: 20 });
    expect([...hits.keys()].sort()).toEqual([PARENT_ID, FORK_ID, GRANDCHILD_ID].sort());
    expect(hits.get(PARENT_ID)!.found.inherited).toBeUndefined();
    expect(hits.get(FORK_ID)!.found.inherited).toBe(true);
    expect(hits.get(GRANDCHILD_ID)!.found.inherited).toBe(true);
    // The count is the inherited bytes' own (the parent's later turns are not the fork's).
    expect(hits.get(FORK_ID)!.found.matches).toBe(occurrences(inheritedBytes.toString('utf8'), 'health check'));
    expect(hits.get(FORK_ID)!.found.snippet?.match).toBe('health check');
    expect(hits.get(FORK_ID)!.row.forkedFrom).toBe(PARENT_ID);
  });

  it('does not list a fork for text its parent holds only after the fork point', async () => {
    const hits = await search('quetzal');
    expect([...hits.keys()]).toEqual([PARENT_ID]);
  });

  it('reads the groups\' ids only once a group that did not match is a fork (a common word leaves few, rarely forks)', async () => {
    const { inheritedMatches } = await importBuilt<typeof Inherited>('catalog', 'grep-inherited.js');
    let idsRead = 0;
    const groupOf = (name: string, id: string): SessionFileGroup => ({
      agent: 'codex',
      paths: [join(home, DAY, name)],
      get idHint() {
        idsRead++;
        return id;
      },
      root: join(home, '.codex', 'sessions'),
      archived: false,
    });
    const search = { text: 'health check', ignoreCase: false, count: false, context: null, notConversation: null };
    const matched = new Map([[0, { matches: 0, snippet: null }]]);
    // The parent matched; a group of the same file did not, and is no fork: nothing inherits, no id read.
    expect(await inheritedMatches([groupOf(PARENT, PARENT_ID), groupOf(PARENT, PARENT_ID)], matched, search, undefined, () => undefined)).toEqual([]);
    expect(idsRead).toBe(0);
    // The fork did not match in its own file: its parent is found by id, and it matches by what it inherits.
    const found = await inheritedMatches([groupOf(PARENT, PARENT_ID), groupOf(PARENT, PARENT_ID), groupOf(FORK, FORK_ID)], matched, search, undefined, () => undefined);
    expect(found.map(({ index, found }) => [index, found.inherited])).toEqual([[2, true]]);
    expect(idsRead).toBeGreaterThan(0);
  });

  it('gives the same rows when the rows come from the catalog cache', async () => {
    const cachePath = join(dir, 'catalog.jsonl');
    const scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
    const cache = await cacheModule.CatalogCache.load(cachePath);
    const locations = resolveLocations({ home }, { env: {}, homeDir: home, cwd: '/nowhere' });
    await scan.scanCatalog(locations, { cache });
    await cache.save();
    const hits = await search('health check', { cache: () => cacheModule.CatalogCache.load(cachePath) });
    expect([...hits.keys()].sort()).toEqual([PARENT_ID, FORK_ID, GRANDCHILD_ID].sort());
    expect(hits.get(GRANDCHILD_ID)!.found.inherited).toBe(true);
  });

  it("the browser's search reads a fork's base once per row: a later search of the same rows reads no header again", async () => {
    const scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
    const catalogGrep = await importBuilt<typeof CatalogGrep>('catalog', 'grep-catalog.js');
    const formats = await importBuilt<typeof Formats>('core', 'formats', 'index.js');
    const locations = resolveLocations({ home }, { env: {}, homeDir: home, cwd: '/nowhere' });
    const { sessions: rows } = await scan.scanCatalog(locations, {});
    const history = formats.ADAPTERS.codex.inheritedHistory!;
    const base = history.base.bind(history);
    const read: string[] = [];
    (history as { base: typeof history.base }).base = (group) => {
      read.push(group.idHint ?? '');
      return base(group);
    };
    try {
      const found = async (list: readonly Scan.CatalogSession[]): Promise<Map<string, boolean>> => {
        const hits = new Map<string, boolean>();
        await catalogGrep.grepCatalog(list, 'health check', { ...grepEngineOption(), ignoreCase: true, onFound: (row, what) => hits.set(row.id, what.inherited === true) }).done;
        return hits;
      };
      const first = await found(rows);
      expect([...first].sort()).toEqual(([[PARENT_ID, false], [FORK_ID, true], [GRANDCHILD_ID, true]] as [string, boolean][]).sort());
      expect(read.sort()).toEqual([FORK_ID, GRANDCHILD_ID].sort());
      read.length = 0;
      expect(await found(rows)).toEqual(first);
      expect(read).toEqual([]);
      // A row made again (the watcher re-read its file) is a new object: its base is read again.
      const again = rows.map((row) => (row.id === FORK_ID ? { ...row } : row));
      expect(await found(again)).toEqual(first);
      expect(read).toEqual([FORK_ID]);
    } finally {
      (history as { base: typeof history.base }).base = base;
    }
  });
});
