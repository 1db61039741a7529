// The browser's content search over its catalog (grepCatalog): the rows it finds are the rows the folder-walking
// search finds (mapped to the catalog by path, as the browser maps them), on the sample home and the fixture home,
// for words common, rare, absent, cased and escaped; a session is searched in every file it has; a session that
// appears or grows while the search runs is searched (again) when it is added; nothing is added once it is done.
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as AppGrep from '../../src/app/grep.js';
import type * as CatalogGrep from '../../src/catalog/grep-catalog.js';
import type * as NativeGrep from '../../src/catalog/native-grep.js';
import type * as Scan from '../../src/catalog/scan.js';
import type * as Formats from '../../src/core/formats/index.js';
import { resolveLocations, type Locations } from '../../src/catalog/locations.js';
import { sessionKey } from '../../src/core/model.js';
import { catalogSession } from '../ui/helpers.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let appGrep: typeof AppGrep;
let catalogGrep: typeof CatalogGrep;
let nativeGrep: typeof NativeGrep;
let scan: typeof Scan;
let formats: typeof Formats;
let dir: string;

beforeAll(async () => {
  appGrep = await importBuilt<typeof AppGrep>('app', 'grep.js');
  catalogGrep = await importBuilt<typeof CatalogGrep>('catalog', 'grep-catalog.js');
  nativeGrep = await importBuilt<typeof NativeGrep>('catalog', 'native-grep.js');
  scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
  formats = await importBuilt<typeof Formats>('core', 'formats', 'index.js');
  dir = await mkdtemp(join(tmpdir(), 'sessions-grep-catalog-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The rows the folder walk finds (what the browser did before: each hit's first path the catalog knows). */
async function walkRows(locations: Locations, rows: readonly Scan.CatalogSession[], text: string): Promise<string[]> {
  const byPath = new Map<string, Scan.CatalogSession>();
  for (const row of rows) for (const path of row.paths) byPath.set(path, row);
  const byKey = new Map(rows.map((row) => [sessionKey(row), row]));
  const found = new Set<string>();
  await appGrep.grepPlace({ kind: 'local' }, text, {
    ...grepEngineOption(),
    engine: grepEngineOption().engine ?? 'native',
    ignoreCase: true,
    count: false,
    context: 80,
    readSnippets: false,
    local: { locations },
    onFiles: (hit) => {
      const row = hit.key !== undefined ? byKey.get(hit.key) : hit.paths.map((path) => byPath.get(path)).find((one) => one !== undefined);
      if (row) found.add(sessionKey(row));
    },
  });
  return [...found].sort();
}

/** The rows the catalog's search finds: its own, and the stores' (searched by their walk, as the browser does). */
async function catalogRows(locations: Locations, rows: readonly Scan.CatalogSession[], text: string): Promise<string[]> {
  const found = new Set<string>();
  const search = catalogGrep.grepCatalog(rows, text, { ...grepEngineOption(), ignoreCase: true, onFound: (row) => found.add(sessionKey(row)) });
  const stores = formats.ADAPTER_LIST.filter((adapter) => adapter.store !== undefined).map((adapter) => adapter.agent);
  const byKey = new Map(rows.map((row) => [sessionKey(row), row]));
  await Promise.all([
    search.done,
    appGrep.grepPlace({ kind: 'local' }, text, {
      engine: grepEngineOption().engine ?? 'native',
      ignoreCase: true,
      count: false,
      readSnippets: false,
      agents: stores,
      local: { locations },
      onFiles: (hit) => {
        const row = hit.key === undefined ? undefined : byKey.get(hit.key);
        if (row) found.add(sessionKey(row));
      },
    }),
  ]);
  return [...found].sort();
}

describe('content search over the catalog', () => {
  it.each([
    ['the sample home', 'examples/home'],
    ['the fixture home', 'test/fixtures/home'],
  ])('finds the rows the folder walk finds, in %s', async (_name, relative) => {
    const home = join(dir, relative.replaceAll('/', '-'));
    await cp(join(ROOT, relative), home, { recursive: true });
    const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: '/nowhere' });
    const { sessions } = await scan.scanCatalog(locations);
    expect(sessions.length).toBeGreaterThan(10);
    const counts: number[] = [];
    for (const word of ['the', 'health', 'README', 'Explain', 'zqxv-absent-kjw', '"cwd"', 'ünïcødé', 'fn main']) {
      const walked = await walkRows(locations, sessions, word);
      expect(await catalogRows(locations, sessions, word), word).toEqual(walked);
      counts.push(walked.length);
    }
    // The words tell rows apart: some match many, some few, one none.
    expect(Math.max(...counts)).toBeGreaterThan(10);
    expect(counts).toContain(0);
    expect(counts.some((count) => count > 0 && count < Math.max(...counts))).toBe(true);
  });

  it('searches every file of a session: text in its second file only is found', async () => {
    const folder = join(dir, 'two-files');
    await mkdir(folder, { recursive: true });
    const line = (text: string): string => `${JSON.stringify({ timestamp: '2026-11-01T10:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } })}\n`;
    await writeFile(join(folder, 'a.jsonl'), line('nothing here'));
    await writeFile(join(folder, 'b.jsonl'), line('the word pelican is here'));
    const row = catalogSession({ id: 'two', path: join(folder, 'b.jsonl'), paths: [join(folder, 'a.jsonl'), join(folder, 'b.jsonl')] });
    const other = catalogSession({ id: 'one', path: join(folder, 'a.jsonl'), paths: [join(folder, 'a.jsonl')] });
    const found: string[] = [];
    const search = catalogGrep.grepCatalog([other, row], 'PELICAN', { ...grepEngineOption(), ignoreCase: true, onFound: (session) => found.push(session.id) });
    expect(await search.done).toMatchObject({ matched: 1 });
    expect(found).toEqual(['two']);
  });

  it('hands the engine a catalog at once, searched again as the first search packed it, and a changed catalog anew', async (context) => {
    const addon = nativeGrep.nativeSearchAddon() as { push: (...args: unknown[]) => void } | null;
    if (addon === null || grepEngineOption().engine === 'js') return context.skip();
    const folder = join(dir, 'searched-again');
    await mkdir(folder, { recursive: true });
    const line = (text: string): string => `${JSON.stringify({ timestamp: '2026-11-01T10:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } })}\n`;
    const row = async (name: string, text: string): Promise<Scan.CatalogSession> => {
      await writeFile(join(folder, `${name}.jsonl`), line(text));
      return catalogSession({ id: name, path: join(folder, `${name}.jsonl`), paths: [join(folder, `${name}.jsonl`)] });
    };
    const rows = [await row('a', 'an otter swam'), await row('b', 'nothing'), await row('c', 'the OTTER again')];
    const pushed: unknown[] = [];
    const push = addon.push;
    addon.push = (...args: unknown[]): void => {
      pushed.push(args[4]);
      push(...args);
    };
    try {
      const search = async (list: readonly Scan.CatalogSession[]): Promise<string[]> => {
        const found: string[] = [];
        const before = pushed.length;
        const running = catalogGrep.grepCatalog(list, 'otter', { ignoreCase: true, engine: 'native', onFound: (session) => found.push(session.id) });
        // The engine has the sessions when the search is returned (not a turn of the event loop later).
        expect(pushed).toHaveLength(before + 1);
        await running.done;
        return found.sort();
      };
      expect(await search(rows)).toEqual(['a', 'c']);
      expect(await search(rows)).toEqual(['a', 'c']);
      // The same rows: the same paths buffer, not packed again.
      expect(pushed).toHaveLength(2);
      expect(pushed[1]).toBe(pushed[0]);
      // The catalog changed (a new array of rows): its rows are handed over as they are now.
      const changed = [...rows.slice(0, 2), await row('d', 'an otter too')];
      expect(await search(changed)).toEqual(['a', 'd']);
      expect(pushed).toHaveLength(3);
      expect(pushed[2]).not.toBe(pushed[0]);
      expect(String(pushed[2]).split('\0')).toContain(join(folder, 'd.jsonl'));
    } finally {
      addon.push = push;
    }
  });

  it('searches a session that appears or grows while it runs when it is added, once; nothing once it is done', async () => {
    const folder = join(dir, 'live');
    await mkdir(folder, { recursive: true });
    const line = (text: string): string => `${JSON.stringify({ timestamp: '2026-11-01T10:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } })}\n`;
    const path = (name: string): string => join(folder, `${name}.jsonl`);
    await writeFile(path('first'), line('a walrus was here first'));
    await writeFile(path('grows'), line('nothing yet'));
    const first = catalogSession({ id: 'first', path: path('first'), paths: [path('first')] });
    const grows = catalogSession({ id: 'grows', path: path('grows'), paths: [path('grows')] });
    const appears = catalogSession({ id: 'appears', path: path('appears'), paths: [path('appears')] });
    const found: string[] = [];
    let added: boolean | null = null;
    const search = catalogGrep.grepCatalog([first, grows], 'walrus', {
      ...grepEngineOption(),
      ignoreCase: false,
      onFound: (session) => {
        found.push(session.id);
        if (session.id !== 'first') return;
        // While the search runs: one session's file grows by the text, another's file is written with it, and their
        // rows are handed over (the watcher's, read again); a session that matched already is not searched again.
        added = search.add(
          appendFile(path('grows'), line('then a walrus came'))
            .then(() => writeFile(path('appears'), line('a new walrus')))
            .then(() => [grows, appears, first]),
        );
      },
    });
    expect(await search.done).toMatchObject({ matched: 3 });
    expect(found.sort()).toEqual(['appears', 'first', 'grows']);
    expect(added).toBe(true);
    // Done: nothing more is searched.
    expect(search.add([appears])).toBe(false);
  });
});
