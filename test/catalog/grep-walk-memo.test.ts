// `sessions grep` keeps what its folder walks found (WalkMemo) with every file system answer they rested on, and
// searches those files without walking while every answer holds. Runs the built modules (its workers are the
// built grep-worker.js).
import { access, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Grep from '../../src/catalog/grep.js';
import type * as Scan from '../../src/catalog/scan.js';
import type * as Formats from '../../src/core/formats/index.js';
import type * as WalkFs from '../../src/core/io/walk-fs.js';
import type * as WalkMemo from '../../src/catalog/walk-memo.js';
import type * as Verdicts from '../../src/catalog/lineage-verdicts.js';
import type * as Printed from '../../src/catalog/printed-rows.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { sessionKey } from '../../src/core/model.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let grep: typeof Grep;
let scan: typeof Scan;
let formats: typeof Formats;
let walkFs: typeof WalkFs;
let memoModule: typeof WalkMemo;
let verdictsModule: typeof Verdicts;
let printedModule: typeof Printed;
let dir: string;

beforeAll(async () => {
  grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
  scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
  formats = await importBuilt<typeof Formats>('core', 'formats', 'index.js');
  walkFs = await importBuilt<typeof WalkFs>('core', 'io', 'walk-fs.js');
  memoModule = await importBuilt<typeof WalkMemo>('catalog', 'walk-memo.js');
  verdictsModule = await importBuilt<typeof Verdicts>('catalog', 'lineage-verdicts.js');
  printedModule = await importBuilt<typeof Printed>('catalog', 'printed-rows.js');
  dir = await mkdtemp(join(tmpdir(), 'sessions-grep-walk-'));
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A memo file (WalkMemo.save): the answers and candidates, the roots, then every path of their groups with a NUL after it. */
interface Saved {
  readonly header: { key: string; answers: WalkFs.WalkAnswer[] } & Record<string, unknown>;
  readonly roots: unknown[][];
  readonly paths: string[];
}

async function readMemo(path: string): Promise<Saved> {
  const text = await readFile(path, 'utf8');
  const [header, roots] = text.split('\n', 2);
  const after = text.slice(header!.length + roots!.length + 2);
  expect(after.endsWith('\0')).toBe(true);
  return { header: JSON.parse(header!) as Saved['header'], roots: JSON.parse(roots!) as unknown[][], paths: after.slice(0, -1).split('\0') };
}

async function writeMemo(path: string, saved: Saved): Promise<void> {
  await writeFile(path, `${JSON.stringify(saved.header)}\n${JSON.stringify(saved.roots)}\n${saved.paths.map((one) => `${one}\0`).join('')}`);
}

/** Every folder under `top` (itself included), deepest first. */
async function folders(top: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(top, { withFileTypes: true })) if (entry.isDirectory()) out.push(...(await folders(join(top, entry.name))));
  out.push(top);
  return out;
}

/** A copy of the fixture home whose folders last changed an hour ago (a memo never trusts a folder changed in the last seconds). */
async function settledHome(name: string): Promise<string> {
  const home = join(dir, name);
  await cp(join(ROOT, 'test', 'fixtures', 'home'), home, { recursive: true });
  await settle(home);
  return home;
}

async function settle(home: string): Promise<void> {
  const hourAgo = new Date(Date.now() - 3600_000);
  for (const folder of await folders(home)) await utimes(folder, hourAgo, hourAgo);
}

const locationsOf = (home: string, cwd = '/nowhere') => resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd });

async function search(home: string, text: string, walkMemo?: string, walkSynchronously = false, cwd?: string): Promise<{ rows: Scan.CatalogSession[]; walks: number }> {
  const walks = Object.values(formats.ADAPTERS).map((adapter) => vi.spyOn(adapter, 'discover'));
  const rows: Scan.CatalogSession[] = [];
  await grep.grepLocations(locationsOf(home, cwd), text, { ...grepEngineOption(), ignoreCase: true, onMatch: (row) => rows.push(row), walkSynchronously, ...(walkMemo === undefined ? {} : { walkMemo }) });
  const count = walks.reduce((calls, spy) => calls + spy.mock.calls.length, 0);
  for (const spy of walks) spy.mockRestore();
  // Rows of agents other than Claude's arrive as workers find them: compare them in one order.
  return { rows: rows.sort((a, b) => (sessionKey(a) < sessionKey(b) ? -1 : 1)), walks: count };
}

describe('grep with a walk memo', () => {
  it('searches the files the last walk found without walking while the folders are unchanged, and walks again when one changed', async () => {
    const home = await settledHome('home-a');
    const memo = join(dir, 'a', 'walk.json');
    const plain = await search(home, 'a');
    expect(plain.rows.length).toBeGreaterThan(3);
    expect(plain.walks).toBeGreaterThan(0);

    const first = await search(home, 'a', memo);
    expect(first.rows).toEqual(plain.rows);
    expect(first.walks).toBeGreaterThan(0);
    const written = await stat(memo);

    // (walks recorded asynchronously above, synchronously from here on: the CLI's way)
    const second = await search(home, 'a', memo, true);
    expect(second.rows).toEqual(plain.rows);
    expect(second.walks).toBe(0);
    // nothing was walked, so nothing was written
    expect((await stat(memo)).mtimeMs).toBe(written.mtimeMs);

    // A new session in a folder the memo knows: the folder's mtime moved, the walk runs and finds it.
    const day = join(home, '.codex', 'sessions', '2026', '11', '22');
    const source = join(day, 'rollout-2026-11-22T01-44-42-01a200ed-500e-74e1-88bc-7c2f05604fd8.jsonl');
    const copyId = '01a200ed-500e-74e1-88bc-7c2f05604fd9';
    const copy = (await readFile(source, 'utf8')).replaceAll('01a200ed-500e-74e1-88bc-7c2f05604fd8', copyId).replaceAll('which name is this session under?', 'which zebra-walk-memo is this session under?');
    await writeFile(join(day, `rollout-2026-11-22T01-44-43-${copyId}.jsonl`), copy);
    const third = await search(home, 'zebra-walk-memo', memo, true);
    expect(third.walks).toBeGreaterThan(0);
    expect(third.rows.map((row) => row.id)).toEqual([copyId]);
    // what that synchronous walk recorded holds: the next run does not walk
    await settle(home);
    expect((await search(home, 'zebra-walk-memo', memo, true)).walks).toBeGreaterThan(0);
    const fourth = await search(home, 'zebra-walk-memo', memo, true);
    expect(fourth).toEqual({ rows: third.rows, walks: 0 });
  });

  it("names a Codex session from session_index.jsonl when reading the names takes longer than the search", async () => {
    const home = await settledHome('home-n');
    const memo = join(dir, 'n', 'walk.json');
    // The files are searched without waiting for the names (only rows need them): a slow read must still name the row.
    const names = formats.ADAPTERS.codex.names!;
    const read = names.read.bind(names);
    vi.spyOn(names, 'read').mockImplementation(async (root) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return read(root);
    });
    for (const run of ['walked', 'from the memo'] as const) {
      const found = await search(home, 'which name is this session under', memo, run === 'from the memo');
      expect(found.walks > 0, run).toBe(run === 'walked');
      const row = found.rows.find((r) => r.id === '01a200ed-500e-74e1-88bc-7c2f05604fd8');
      expect(row?.name, run).toBe('api-health');
      expect(row?.title, run).toBe('api-health');
    }
  });

  it('finds a claw workspace made since the memo was written (its parent folder changed)', async () => {
    const home = await settledHome('home-b');
    const memo = join(dir, 'b', 'walk.json');
    await search(home, 'doctor', memo);
    expect((await search(home, 'doctor', memo)).walks).toBe(0);
    const sessions = join(home, 'src', 'claw-code', 'rust', '.claw', 'sessions');
    // a session with a prompt (the other file there is a header only)
    const name = 'session-1775386842352-0.jsonl';
    const id = 'session-1775386842352-0';
    await mkdir(join(home, 'src', 'other', '.claw', 'sessions'), { recursive: true });
    await writeFile(join(home, 'src', 'other', '.claw', 'sessions', 'session-1775386899999-0.jsonl'), (await readFile(join(sessions, name), 'utf8')).replaceAll(id, 'session-1775386899999-0'));
    const after = await search(home, 'doctor', memo);
    expect(after.walks).toBeGreaterThan(0);
    expect(after.rows.map((row) => row.path)).toContain(join(home, 'src', 'other', '.claw', 'sessions', 'session-1775386899999-0.jsonl'));
  });

  it("reports nothing of the search it starts from a memo whose answers no longer hold: a file gone since is neither a row nor a problem", async () => {
    const home = await settledHome('home-e');
    const memo = join(dir, 'e', 'walk.json');
    const before = await search(home, 'which name is this session under', memo);
    const day = join(home, '.codex', 'sessions', '2026', '11', '22');
    const gone = join(day, 'rollout-2026-11-22T01-44-42-01a200ed-500e-74e1-88bc-7c2f05604fd8.jsonl');
    expect(before.rows.map((row) => row.path)).toContain(gone);
    await rm(gone);
    const problems: string[] = [];
    const rows: Scan.CatalogSession[] = [];
    const walks = Object.values(formats.ADAPTERS).map((adapter) => vi.spyOn(adapter, 'discover'));
    const result = await grep.grepLocations(locationsOf(home), 'which name is this session under', {
      ignoreCase: true,
      walkMemo: memo,
      walkSynchronously: true,
      onMatch: (row) => rows.push(row),
      onProblem: (problem) => problems.push(`${problem.path}: ${problem.message}`),
    });
    // the memo's files were searched (the gone one among them), its answers found stale, and the walks ran
    expect(walks.reduce((calls, spy) => calls + spy.mock.calls.length, 0)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(rows.map((row) => row.path)).not.toContain(gone);
    expect(rows.length).toBe(before.rows.length - 1);
    expect(result.matched).toBe(rows.length);
  });

  it('removes the memos earlier versions kept for the same locations once it writes its own, and nothing else', async () => {
    const home = await settledHome('home-v');
    const memo = memoModule.defaultWalkMemoPath({ XDG_CACHE_HOME: join(dir, 'v') }, home, locationsOf(home));
    const [, version, key, run] = /grep-walk-v(\d+)-([0-9a-f]+)-([0-9a-f]+)\.json$/.exec(memo)!;
    expect(Number(version)).toBeGreaterThan(1);
    const beside = (name: string): string => join(memo, '..', name);
    // Earlier versions kept one memo per set of locations, named by its key alone; from version 4, one per run.
    const earlier = [
      ...Array.from({ length: Number(version) - 1 }, (_, at) => beside(`grep-walk-v${at + 1}-${key}.json`)),
      ...Array.from({ length: Number(version) - 4 }, (_, at) => beside(`grep-walk-v${at + 4}-${key}-${run}.json`)),
      beside(`grep-walk-v4-${key}-${'0'.repeat(run!.length)}.json`),
    ];
    const others = [
      beside(`grep-walk-v4-${'0'.repeat(key!.length)}-${run}.json`),
      beside(`grep-walk-v1-${'0'.repeat(key!.length)}.json`),
      beside(`catalog-v1-${key}.jsonl`),
      beside(`grep-walk-v${Number(version) + 1}-${key}.json`),
      beside(`grep-walk-v${Number(version) + 1}-${key}-${run}.json`),
      // another run's memo of the same locations (another directory): kept
      beside(`grep-walk-v${version}-${key}-${'0'.repeat(run!.length)}.json`),
    ];
    await mkdir(beside(''), { recursive: true });
    for (const path of [...earlier, ...others]) await writeFile(path, 'old');
    await search(home, 'a', memo);
    await access(memo);
    for (const path of earlier) await expect(access(path)).rejects.toThrow();
    for (const path of others) expect(await readFile(path, 'utf8')).toBe('old');
  });

  it('keeps one memo per directory and agents a grep runs with: greps from two directories in turn do not walk again', async () => {
    const home = await settledHome('home-d');
    const env = { XDG_CACHE_HOME: join(dir, 'd') };
    const here = memoModule.defaultWalkMemoPath(env, home, locationsOf(home, '/here'));
    const there = memoModule.defaultWalkMemoPath(env, home, locationsOf(home, '/there'));
    const oneAgent = memoModule.defaultWalkMemoPath(env, home, locationsOf(home, '/here'), ['codex']);
    expect(new Set([here, there, oneAgent]).size).toBe(3);
    // The same run's is the same memo.
    expect(memoModule.defaultWalkMemoPath(env, home, locationsOf(home, '/here'))).toBe(here);

    const plain = await search(home, 'a');
    expect((await search(home, 'a', here, true, '/here')).walks).toBeGreaterThan(0);
    expect((await search(home, 'a', there, true, '/there')).walks).toBeGreaterThan(0);
    for (const [memo, cwd] of [[here, '/here'], [there, '/there'], [here, '/here']] as const) {
      expect(await search(home, 'a', memo, true, cwd)).toEqual({ rows: plain.rows, walks: 0 });
    }
  });

  it(`keeps the newest ${4} memos of the same locations (with their lineage verdicts and printed rows), and removes the older ones once it writes its own`, async () => {
    expect(memoModule.WALK_MEMOS_KEPT).toBe(4);
    const home = await settledHome('home-k');
    const env = { XDG_CACHE_HOME: join(dir, 'k') };
    const memos = ['/a', '/b', '/c', '/d', '/e', '/f'].map((cwd) => [cwd, memoModule.defaultWalkMemoPath(env, home, locationsOf(home, cwd))] as const);
    const otherLocations = memoModule.defaultWalkMemoPath(env, home, resolveLocations({ home, roots: { claw: [join(home, 'elsewhere')] } }, { env: {}, homeDir: home, cwd: '/a' }));
    await mkdir(join(otherLocations, '..'), { recursive: true });
    await writeFile(otherLocations, 'other locations');
    const hourAgo = Date.now() / 1000 - 3600;
    for (const [at, [cwd, memo]] of memos.entries()) {
      await search(home, 'a', memo, true, cwd);
      // written in this order, a minute apart (the clock of a fast run can give two the same mtime)
      await utimes(memo, hourAgo + 60 * at, hourAgo + 60 * at);
      // the verdicts a grep of Claude's sessions keeps beside it
      await writeFile(verdictsModule.lineageVerdictsPath(memo), '{}');
      // and the lines a grep printed
      await writeFile(printedModule.printedRowsPath(memo), '{}');
    }
    const left = (await readdir(join(otherLocations, '..'))).filter((name) => name.startsWith('grep-walk-'));
    const keptMemos = memos.slice(-4).flatMap(([, memo]) => [memo, verdictsModule.lineageVerdictsPath(memo), printedModule.printedRowsPath(memo)]);
    expect(left.sort()).toEqual([...keptMemos, otherLocations].map((path) => path.split('/').at(-1)).sort());
    // A memo kept is read: no walk.
    expect((await search(home, 'a', memos[2]![1], true, '/c')).walks).toBe(0);
  });

  it('walks as if there were none when the memo is malformed, of other locations, or names a file in a folder no walk listed', async () => {
    const home = await settledHome('home-c');
    const memo = join(dir, 'c', 'walk.json');
    const plain = await search(home, 'a');
    await search(home, 'a', memo);
    const saved = await readMemo(memo);

    await writeFile(memo, '{"version":2,');
    expect(await search(home, 'a', memo)).toEqual({ rows: plain.rows, walks: expect.any(Number) as number });
    expect((await search(home, 'a', memo)).walks).toBe(0);

    // The answers read and their check started, then the roots' line cut short: walked as if there were no memo.
    await writeFile(memo, `${JSON.stringify(saved.header)}\n${JSON.stringify(saved.roots).slice(0, -2)}\n`);
    const cut = await search(home, 'a', memo);
    expect(cut.rows).toEqual(plain.rows);
    expect(cut.walks).toBeGreaterThan(0);
    expect((await search(home, 'a', memo)).walks).toBe(0);

    // A memo of the first layout (one line, version 1) is another run's.
    await writeFile(memo, `${JSON.stringify({ ...saved.header, version: 1, roots: saved.roots })}\n`);
    const old = await search(home, 'a', memo);
    expect(old.rows).toEqual(plain.rows);
    expect(old.walks).toBeGreaterThan(0);

    await writeMemo(memo, { ...saved, header: { ...saved.header, key: 'another run' } });
    const other = await search(home, 'a', memo);
    expect(other.rows).toEqual(plain.rows);
    expect(other.walks).toBeGreaterThan(0);

    // A group of a file in a folder no walk listed, or named out of a listed one, is not the memo's: the whole memo is
    // dropped. (A root's groups: each path's folder as its place among the `d` answers, the paths after the lines.)
    const listed = saved.header.answers.filter((answer) => answer[0] === 'd').length;
    const at = saved.roots.findIndex((root) => Array.isArray(root[4]) && (root[4] as unknown[][])[0]!.length > 0);
    expect(at).toBeGreaterThan(-1);
    const [folders, counts, idHints, archived] = saved.roots[at]![4] as [number[], number[] | null, (string | null)[], number[]];
    const firstPath = saved.paths.length - saved.roots.slice(at).reduce((sum, root) => sum + (Array.isArray(root[4]) ? (root[4] as unknown[][])[0]!.length : 0), 0);
    const folder = saved.header.answers.filter((answer) => answer[0] === 'd')[folders[0]!]![1];
    /** The memo with one more group in that root: a file `path` in the listed folder `place`. */
    const withGroup = (place: unknown, path: string): Saved => ({
      ...saved,
      roots: saved.roots.map((root, k) => (k === at ? [...root.slice(0, 4), [[...folders, place], counts === null ? null : [...counts, 1], [...idHints, null], archived]] : root)),
      paths: [...saved.paths.slice(0, firstPath + folders.length), path, ...saved.paths.slice(firstPath + folders.length)],
    });
    const forgeries: [string, Saved | string][] = [
      ['a folder no walk listed', withGroup(listed, join(folder, 'gone.jsonl'))],
      ['a name with a separator', withGroup(folders[0], join(folder, 'x', 'gone.jsonl'))],
      ['..', withGroup(folders[0], `${folder}/..`)],
      ['.', withGroup(folders[0], `${folder}/.`)],
      ['an empty name', withGroup(folders[0], `${folder}/`)],
      ['another folder', withGroup(folders[0], join(home, 'gone.jsonl'))],
      ['a folder sharing its start', withGroup(folders[0], `${folder}x/gone.jsonl`)],
      ['a fractional place', withGroup(0.5, join(folder, 'gone.jsonl'))],
      ['a place as text', withGroup('0', join(folder, 'gone.jsonl'))],
      ['a path with no group', { ...saved, paths: [...saved.paths, join(folder, 'gone.jsonl')] }],
      ['a path missing', { ...saved, paths: saved.paths.slice(0, -1) }],
      ['a count past the paths', { ...saved, roots: saved.roots.map((root, k) => (k === at ? [...root.slice(0, 4), [folders, idHints.map(() => 2), idHints, archived]] : root)) }],
      ['an archived place past the groups', { ...saved, roots: saved.roots.map((root, k) => (k === at ? [...root.slice(0, 4), [folders, counts, idHints, [idHints.length]]] : root)) }],
    ];
    const intact = `${JSON.stringify(saved.header)}\n${JSON.stringify(saved.roots)}\n`;
    const bytes = Buffer.from(saved.paths.map((one) => `${one}\0`).join(''));
    forgeries.push(['paths cut short', `${intact}${bytes.subarray(0, -1).toString('latin1')}`]);
    for (const [what, forged] of forgeries) {
      if (typeof forged === 'string') await writeFile(memo, Buffer.from(forged, 'latin1'));
      else await writeMemo(memo, forged);
      const found = await search(home, 'a', memo);
      expect(found.rows, what).toEqual(plain.rows);
      expect([what, found.walks > 0]).toEqual([what, true]);
    }
    // Bytes that are not UTF-8 in a path (its string would not be the file the engine searches).
    const bad = Buffer.concat([Buffer.from(intact), bytes.subarray(0, 1), Buffer.from([0xff]), bytes.subarray(2)]);
    await writeFile(memo, bad);
    expect((await search(home, 'a', memo)).walks).toBeGreaterThan(0);
    // The same memo untouched is read (so each of those was dropped for its forged group).
    await writeMemo(memo, saved);
    expect((await search(home, 'a', memo)).walks).toBe(0);
    // (Twenty searches: past the default timeout on a loaded machine.)
  }, 60_000);
});

describe('a memo read', () => {
  it("gives each root's groups and their paths as the bytes the native engine takes, in the memo's order", async () => {
    const home = await settledHome('home-p');
    const memo = join(dir, 'p', 'walk.json');
    await search(home, 'a', memo);
    const saved = await readMemo(memo);
    const key = JSON.parse(JSON.stringify(saved.header.key)) as string;
    const read = new memoModule.WalkMemo(memo, key);
    expect(read.read()).toBe(true);
    let packed = 0;
    let last: Buffer | null = null;
    let end = 0;
    for (const root of saved.roots) {
      const walk = read.rootWalk(root[0] as never, root[1] as string);
      if (root[4] === null) {
        expect(walk?.packed).toBeUndefined();
        continue;
      }
      const groups = walk!.groups!;
      const bytes = walk!.packed!;
      // The root's paths follow the last root's, NUL after each: the groups' paths, in order.
      expect(bytes.start).toBe(end);
      expect(bytes.bytes.toString('utf8', bytes.start, bytes.end)).toBe(groups.flatMap((group) => group.paths).map((path) => `${path}\0`).join(''));
      expect(bytes.counts ?? groups.map(() => 1)).toEqual(groups.map((group) => group.paths.length));
      if (last !== null) expect(bytes.bytes).toBe(last);
      last = bytes.bytes;
      end = bytes.end;
      packed += groups.length;
    }
    expect(packed).toBeGreaterThan(3);
    expect(end).toBe(last!.length);
  });

  it('hands those groups to the native engine packed, and finds what the walks find', async () => {
    const nativeGrep = await importBuilt<typeof import('../../src/catalog/native-grep.js')>('catalog', 'native-grep.js');
    if (process.env.SESSIONS_GREP_ENGINE === 'js' || nativeGrep.nativeSearchAddon() === null) return;
    const home = await settledHome('home-h');
    const memo = join(dir, 'h', 'walk.json');
    const plain = await search(home, 'a');
    await search(home, 'a', memo);
    const taken = vi.spyOn(nativeGrep.NativeGrepPool.prototype, 'takePacked');
    const fromMemo = await search(home, 'a', memo, true);
    expect(fromMemo).toEqual({ rows: plain.rows, walks: 0 });
    const saved = await readMemo(memo);
    const groups = saved.roots.reduce((sum, root) => sum + (Array.isArray(root[4]) ? (root[4] as unknown[][])[2]!.length : 0), 0);
    expect(taken.mock.calls.reduce((sum, [sessions]) => sum + sessions.count, 0)).toBe(groups);
  });

  it("makes a root's groups when they are first asked for: a memo with a forged later root reads, gives the others', and is stale", async () => {
    const home = await settledHome('home-l');
    const memo = join(dir, 'l', 'walk.json');
    await search(home, 'a', memo);
    const saved = await readMemo(memo);
    const withGroups = saved.roots.flatMap((root, at) => (Array.isArray(root[4]) && (root[4] as unknown[][])[0]!.length > 0 ? [at] : []));
    expect(withGroups.length).toBeGreaterThan(1);
    // The last root with groups names a file in a folder no walk listed.
    const last = withGroups.at(-1)!;
    const listed = saved.header.answers.filter((answer) => answer[0] === 'd').length;
    const [folders, ...rest] = saved.roots[last]![4] as [number[], ...unknown[]];
    await writeMemo(memo, { ...saved, roots: saved.roots.map((root, k) => (k === last ? [...root.slice(0, 4), [[listed, ...folders.slice(1)], ...rest]] : root)) });
    const key = JSON.parse(JSON.stringify(saved.header.key)) as string;
    const read = new memoModule.WalkMemo(memo, key);
    expect(read.read()).toBe(true);
    const first = saved.roots[withGroups[0]!]!;
    expect(read.rootWalk(first[0] as never, first[1] as string)?.groups?.length).toBe((first[4] as unknown[][])[2]!.length);
    expect(read.rootWalk(saved.roots[last]![0] as never, saved.roots[last]![1] as string)?.groups).toEqual([]);
    expect(read.verify()).toBe(false);
    // A search from it walks again, and finds what the walks find.
    const plain = await search(home, 'a');
    const found = await search(home, 'a', memo, true);
    expect(found.rows).toEqual(plain.rows);
    expect(found.walks).toBeGreaterThan(0);
  });

  it("hands a memo root's files to the native engine before the memo's later roots are looked at", async () => {
    const nativeGrep = await importBuilt<typeof import('../../src/catalog/native-grep.js')>('catalog', 'native-grep.js');
    if (process.env.SESSIONS_GREP_ENGINE === 'js' || nativeGrep.nativeSearchAddon() === null) return;
    const home = await settledHome('home-o');
    const memo = join(dir, 'o', 'walk.json');
    await search(home, 'a', memo);
    const plain = await search(home, 'a');
    // A root is looked at when its names are read (ScanContext.loadNames, once per root found).
    const taken = vi.spyOn(nativeGrep.NativeGrepPool.prototype, 'takePacked');
    const looked = vi.spyOn(scan.ScanContext.prototype, 'loadNames');
    expect(await search(home, 'a', memo, true)).toEqual({ rows: plain.rows, walks: 0 });
    const roots = looked.mock.invocationCallOrder;
    expect(roots.length).toBeGreaterThan(1);
    // The first root's files went to the engine before the next root was looked at.
    expect(roots.filter((at) => at < taken.mock.invocationCallOrder[0]!)).toHaveLength(1);
  });
});

describe('synchronous walks', () => {
  it('find what the asynchronous ones find, for every agent, and record answers that hold', async () => {
    const home = join(ROOT, 'examples', 'home');
    const locations = resolveLocations({ home, roots: { claw: [join(home, 'src')] } }, { env: {}, homeDir: home, cwd: join(home, 'src') });
    const walk = async (): Promise<unknown[]> => {
      const out: unknown[] = [];
      const context = new scan.ScanContext();
      for (const adapter of formats.ADAPTER_LIST) {
        const roots = await scan.candidateRoots(adapter, locations, context.report);
        out.push(roots);
        for (const root of await scan.discoveryRoots(adapter, roots)) out.push(await scan.discoverRoot(adapter, root, context.report));
      }
      return out;
    };
    const answers: WalkFs.WalkAnswer[] = [];
    walkFs.recordWalkAnswers((answer) => answers.push(answer));
    const synchronous = await walkFs.whileWalkingSynchronously(walk);
    walkFs.recordWalkAnswers(null);
    const asynchronous = await walk();
    expect(synchronous).toEqual(asynchronous);
    expect(JSON.stringify(synchronous)).toContain('.copilot');
    expect(answers.length).toBeGreaterThan(10);
    // The sample home's folders are as old as the checkout: listings recorded then hold unless just changed.
    for (const answer of answers) if (answer[0] !== 'd' || answer[2] !== null) expect(walkFs.walkAnswerHolds(answer)).toBe(true);
  });

  it('records answers that stop holding when the file system changes', async () => {
    const top = join(dir, 'answers');
    await cp(join(ROOT, 'test', 'fixtures', 'home', 'src'), top, { recursive: true });
    await settle(top);
    const answers: WalkFs.WalkAnswer[] = [];
    walkFs.recordWalkAnswers((answer) => answers.push(answer));
    await walkFs.whileWalkingSynchronously(async () => {
      await walkFs.walkFs.readdir(top);
      await walkFs.walkFs.stat(join(top, 'claw-code')).catch(() => undefined);
      await walkFs.walkFs.stat(join(top, 'nothing')).catch(() => undefined);
      await walkFs.walkFs.realpath(join(top, 'claw-code'));
    });
    walkFs.recordWalkAnswers(null);
    expect(answers.map((answer) => answer[0])).toEqual(['d', 'k', 'k', 'r']);
    expect(answers.every(walkFs.walkAnswerHolds)).toBe(true);
    await writeFile(join(top, 'nothing'), '');
    // the folder listed gained an entry (its mtime moved); the missing path is a file now
    expect(answers.map(walkFs.walkAnswerHolds)).toEqual([false, true, false, true]);
    await rm(join(top, 'claw-code'), { recursive: true });
    expect(walkFs.walkAnswerHolds(answers[1]!)).toBe(false);
    expect(walkFs.walkAnswerHolds(answers[3]!)).toBe(false);
  });
});

describe('events of a search from an unchecked memo', () => {
  const events = () => {
    const seen: string[] = [];
    return {
      seen,
      events: {
        onMatch: (index: number) => seen.push(`match ${index}`),
        onProblem: (problem: { path: string }) => seen.push(`problem ${problem.path}`),
        onBatch: (cwds: readonly string[]) => {
          seen.push(`batch ${cwds.join(',')}`);
          return Promise.resolve([{ index: 9, agent: 'claw' as const, paths: ['/w/s.jsonl'], sniffCwd: false, sniffLineage: false }]);
        },
      },
    };
  };

  it('are held until the memo holds, then reported in order', async () => {
    let open!: (ok: boolean) => void;
    const { seen, events: inner } = events();
    const gated = grep.gatedEvents(new Promise((resolve) => (open = resolve)), inner);
    gated.onMatch(1, { matches: 0, snippet: null }, null);
    gated.onProblem({ path: '/gone', message: 'ENOENT' });
    const more = gated.onBatch(['/w'], []);
    gated.onMatch(2, { matches: 0, snippet: null }, null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    open(true);
    expect(await more).toHaveLength(1);
    expect(seen).toEqual(['match 1', 'problem /gone', 'batch /w', 'match 2']);
    gated.onMatch(3, { matches: 0, snippet: null }, null);
    expect(seen.at(-1)).toBe('match 3');
  });

  it('are dropped when it does not, and a batch then brings no more work', async () => {
    let open!: (ok: boolean) => void;
    const { seen, events: inner } = events();
    const gated = grep.gatedEvents(new Promise((resolve) => (open = resolve)), inner);
    gated.onMatch(1, { matches: 0, snippet: null }, null);
    const more = gated.onBatch(['/w'], []);
    open(false);
    expect(await more).toEqual([]);
    gated.onProblem({ path: '/gone', message: 'ENOENT' });
    expect(await gated.onBatch(['/x'], [])).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
  });
});

describe('the answers a memo keeps', () => {
  it('are each checked once, without those a listed folder implies', async () => {
    const answers: WalkFs.WalkAnswer[] = [
      ['d', '/h/p', 5, 9],
      ['k', '/h/p', 'd'], // a listed folder is a directory
      ['k', '/h/p/.claw', '-'], // missing directly in a listed folder
      ['k', '/h/p/.claw', '-'],
      ['k', '/h/p/.claw/sessions', '-'], // its folder was not listed
      ['k', '/h/p/.claw/sessions', '-'],
      ['k', '/h/q', 'd'], // not listed
      ['k', '/h/p/file', 'f'], // a kind other than missing: kept
      ['r', '/h/p', '/h/p'],
      ['r', '/h/p', '/h/p'],
      ['d', '/h/p', 5, 9],
    ];
    expect(memoModule.essentialAnswers(answers)).toEqual([
      ['d', '/h/p', 5, 9],
      ['k', '/h/p/.claw/sessions', '-'],
      ['k', '/h/q', 'd'],
      ['k', '/h/p/file', 'f'],
      ['r', '/h/p', '/h/p'],
    ]);
  });

  it('still see a claw workspace made in a listed cwd whose missing answer was left out', async () => {
    const home = await settledHome('home-d');
    const memo = join(dir, 'd', 'walk.json');
    await search(home, 'doctor', memo);
    const saved = (await readMemo(memo)).header;
    expect(saved.answers).toEqual(memoModule.essentialAnswers(saved.answers));
    expect((await search(home, 'doctor', memo, true)).walks).toBe(0);
    // a cwd the walks listed (claw-code/rust), whose '.port_sessions' was looked for and missing
    const cwd = join(home, 'src', 'claw-code', 'rust');
    const ports = join(cwd, '.port_sessions');
    expect(saved.answers.some((answer) => answer[0] === 'd' && answer[1] === cwd)).toBe(true);
    expect(saved.answers.some((answer) => answer[1] === ports)).toBe(false);
    await mkdir(ports);
    const sessions = join(cwd, '.claw', 'sessions');
    await writeFile(join(ports, 'session-1775386899998-0.jsonl'), (await readFile(join(sessions, 'session-1775386842352-0.jsonl'), 'utf8')).replaceAll('session-1775386842352-0', 'session-1775386899998-0'));
    const after = await search(home, 'doctor', memo, true);
    expect(after.walks).toBeGreaterThan(0);
    expect(after.rows.map((row) => row.path)).toContain(join(ports, 'session-1775386899998-0.jsonl'));
  });
});
