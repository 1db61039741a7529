// The native search engine (native/search.c) against the JS workers, item by item: the same matches, stamps, heads
// and problems on files made to hit its edges (FIFOs and devices, chunk borders, rejected lines, spellings, case).
// Runs the built modules: the JS pool's workers are the built grep-worker.js (`npm test` builds first). With
// SESSIONS_REQUIRE_NATIVE=1 (CI) the addon must load; without it the native cases are skipped.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { appendFileSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type * as Grep from '../../src/catalog/grep.js';
import type * as NativeGrep from '../../src/catalog/native-grep.js';
import type * as NativeHeld from '../../src/catalog/native-held.js';
import type { GrepItem, GrepStamp } from '../../src/catalog/grep-worker.js';
import type { SniffedLineage, SniffedStamps } from '../../src/catalog/grep-pool-events.js';
import type { Problem } from '../../src/core/formats/types.js';
import { resolveLocations } from '../../src/catalog/locations.js';
import { compileTextSearch } from '../../src/core/io/contains.js';
import { fingerprintOf } from '../../src/core/io/lines.js';
import type * as WalkFs from '../../src/core/io/walk-fs.js';
import type { WalkAnswer } from '../../src/core/io/walk-fs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHUNK = 256 * 1024;
// Loaded before the tests are collected: whether the addon is built decides which run.
const grep = (await import(join(ROOT, 'dist', 'catalog', 'grep.js'))) as typeof Grep;
const native = (await import(join(ROOT, 'dist', 'catalog', 'native-grep.js'))) as typeof NativeGrep;
const nativeHeld = (await import(join(ROOT, 'dist', 'catalog', 'native-held.js'))) as typeof NativeHeld;
const walkFs = (await import(join(ROOT, 'dist', 'core', 'io', 'walk-fs.js'))) as typeof WalkFs;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-native-grep-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const built = (): boolean => native.nativeSearchAddon() !== null;

interface Outcome {
  readonly matched: readonly number[];
  readonly stamps: Readonly<Record<number, readonly GrepStamp[] | null>>;
  readonly lineages: readonly (readonly [number, string | null])[];
  readonly cwds: readonly string[];
  readonly problems: readonly Problem[];
  /** Sessions the pool held back (reported by count) and handed over when asked afterwards. */
  readonly held: number;
}

interface Search {
  readonly text: string;
  readonly ignoreCase?: boolean;
  readonly stamps?: boolean;
  /** Trigram maps (the native engine only). */
  readonly trigrams?: NativeGrep.TrigramMaps;
}

/**
 * What the native engine held of these sessions, taken as a row asks (NativeGrepPool.takeHeld): those it gives back
 * and those it indexed by their root uuid, with their lineages and stamps.
 */
function allHeld(pool: NativeGrep.NativeGrepPool, indexes: readonly number[]): [number, SniffedLineage, SniffedStamps][] {
  const held = new nativeHeld.HeldSessions();
  const out = pool.takeHeld(held);
  for (const index of indexes) {
    const root = held.rootAt(index);
    if (root !== undefined) out.push([index, root, held.stampsAt(index) ?? null]);
  }
  return out;
}

/** One pool (native or JS workers) over the items; what it reported, sorted. */
async function runPool(engine: 'native' | 'js', search: Search, items: readonly GrepItem[]): Promise<Outcome> {
  const data = { text: search.text, ignoreCase: search.ignoreCase ?? false, stamps: search.stamps ?? false };
  const addon = native.nativeSearchAddon();
  const pool =
    engine === 'native'
      ? new native.NativeGrepPool(addon!, 2, search.trigrams === undefined ? data : { ...data, trigrams: search.trigrams })
      : new grep.GrepPool(2, { ...data, count: false, context: null, notConversation: [] });
  const matched: number[] = [];
  const stamps: Record<number, readonly GrepStamp[] | null> = {};
  const lineages: [number, string | null][] = [];
  const cwds: string[] = [];
  const problems: Problem[] = [];
  let held = 0;
  const noteLineages = (lineage: readonly (readonly [number, SniffedLineage, SniffedStamps])[]): void => {
    for (const [index, root, taken] of lineage) {
      lineages.push([index, typeof root === 'function' ? root() : root]);
      // The native engine hands a lineage's stamps over as a function (made when a row needs them).
      if (data.stamps && !matched.includes(index)) stamps[index] = typeof taken === 'function' ? taken() : taken;
    }
  };
  pool.expect(Promise.resolve(items));
  await pool.run({
    onMatch: (index, _found, taken) => {
      matched.push(index);
      if (data.stamps) stamps[index] = taken;
    },
    onBatch: (seen, lineage, heldNow = 0) => {
      cwds.push(...seen);
      noteLineages(lineage);
      held += heldNow;
      return Promise.resolve([]);
    },
    onProblem: (problem) => problems.push(problem),
  });
  // What the native engine held back, asked for once the search is over (as a row linked to its family asks).
  if (pool instanceof native.NativeGrepPool) noteLineages(allHeld(pool, items.map(({ index }) => index)));
  return {
    matched: matched.sort((a, b) => a - b),
    stamps,
    lineages: lineages.sort((a, b) => a[0] - b[0]),
    cwds: [...new Set(cwds)].sort(),
    problems: problems.sort((a, b) => a.path.localeCompare(b.path)),
    held,
  };
}

/** Both engines; they must agree (but for what the native one held back and handed over later), and the native one's outcome is returned. */
async function both(search: Search, items: readonly GrepItem[]): Promise<Outcome> {
  const js = await runPool('js', search, items);
  const fromNative = await runPool('native', search, items);
  expect({ ...fromNative, held: 0 }).toEqual(js);
  return fromNative;
}

let counter = 0;
async function file(content: string | Buffer): Promise<string> {
  const path = join(dir, `f${counter++}.jsonl`);
  await writeFile(path, content);
  return path;
}

const item = (index: number, paths: readonly string[], extra: Partial<GrepItem> = {}): GrepItem => ({ index, agent: 'codex', paths, sniffCwd: false, sniffLineage: false, ...extra });
const meta = (text: string): string => `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"x","instructions":"${text}"}}\n`;
const developer = (text: string): string => `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"${text}"}]}}\n`;
const answer = (text: string): string => `{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"${text}"}]}}\n`;

describe('the native search engine', () => {
  it('is built where it must be (CI sets SESSIONS_REQUIRE_NATIVE=1)', () => {
    if (process.env.SESSIONS_REQUIRE_NATIVE === '1') expect(built()).toBe(true);
    else expect(typeof built()).toBe('boolean');
  });

  it.skipIf(!built())('refuses FIFOs, devices, folders and missing files without blocking, and reports them as the JS engine does', async () => {
    const fifo = join(dir, 'fifo.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const device = join(dir, 'device.jsonl');
    await symlink('/dev/zero', device);
    const folder = join(dir, 'folder.jsonl');
    await mkdir(folder);
    const gone = join(dir, 'gone.jsonl');
    await symlink(join(dir, 'nowhere'), gone);
    const real = await file(answer('needle here'));
    const outcome = await both({ text: 'needle' }, [item(0, [fifo, real]), item(1, [device]), item(2, [folder]), item(3, [gone])]);
    expect(outcome.matched).toEqual([0]);
    expect(outcome.problems).toEqual(
      [
        { path: fifo, message: 'not a regular file (a FIFO)' },
        { path: device, message: 'not a regular file (a device)' },
        { path: folder, message: 'not a regular file (a directory)' },
        { path: gone, message: `ENOENT: no such file or directory, stat '${gone}'` },
      ].sort((a, b) => a.path.localeCompare(b.path)),
    );
  });

  it.skipIf(!built())('finds a match across the 256 KiB chunk border, at every offset around it', async () => {
    const word = 'border-needle';
    const items: GrepItem[] = [];
    const opening = '{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"';
    for (let shift = -word.length; shift <= 1; shift++) {
      const filler = 'x'.repeat(CHUNK + shift - opening.length);
      items.push(item(items.length, [await file(`${opening}${filler}${word} end"}]}}\n`)]));
    }
    // Twice the chunk: the second border.
    items.push(item(items.length, [await file(`${opening}${'y'.repeat(2 * CHUNK - 5 - opening.length)}${word}"}]}}\n`)]));
    const outcome = await both({ text: word }, items);
    expect(outcome.matched).toEqual(items.map((one) => one.index));
    expect((await both({ text: 'border-needle-not' }, items)).matched).toEqual([]);
  });

  it.skipIf(!built())('finds the text when the byte it is looked for by is everywhere (the engine then searches otherwise)', async () => {
    // The probe's rarest byte is `b`: in these files it is every other byte, for megabytes.
    const word = 'ab-ab';
    const filler = 'xb'.repeat(CHUNK * 4);
    const items = [
      item(0, [await file(answer(`${filler} ${word} ${filler}`))]),
      item(1, [await file(answer(`${filler} ab-a b ${filler}`))]),
      item(2, [await file(answer(`${filler}${filler} ${word}`))]),
    ];
    // Past the switch the probe's two rarest bytes are compared 16 places at a time (SSE2): the text at every place
    // among 16, and near misses (both of those bytes where they belong, another byte wrong), up to the file's end.
    // Mid-chunk, and ending right at a 256 KiB read's end (the last place a view has), past the first 1 MiB.
    const opening = answer('').slice(0, answer('').indexOf('"text":"') + '"text":"'.length);
    for (let shift = 0; shift < 18; shift++) {
      items.push(item(items.length, [await file(answer(`${filler}${'x'.repeat(shift)}${word}${'xb'.repeat(64)}`))]));
      items.push(item(items.length, [await file(answer(`${filler}${'x'.repeat(shift)}ab-xb ab-a ${'xb'.repeat(64)}`))]));
      const end = 5 * CHUNK - shift;
      items.push(item(items.length, [await file(answer(`${'xb'.repeat((end - opening.length - word.length) / 2)}${'x'.repeat((end - opening.length - word.length) % 2)}${word} tail`))]));
    }
    const found = (await both({ text: word }, items)).matched;
    expect(found).toEqual([0, 2, ...Array.from({ length: 18 }, (_, shift) => [3 + 3 * shift, 5 + 3 * shift]).flat()]);
  });

  it.skipIf(!built())('does not count hits in lines the adapter rejects, and goes on to a real hit after them', async () => {
    const word = 'lintel';
    const onlyRejected = await file(meta(word) + developer(word) + answer('nothing'));
    const thenReal = await file(meta(word) + developer(word) + answer(`a ${word} here`));
    // More rejected lines with hits than the engine hands over at once.
    const many = Array.from({ length: 40 }, () => developer(`${word} ${word}`)).join('');
    const manyThenReal = await file(meta(word) + many + answer(word));
    const manyOnly = await file(meta(word) + many);
    // A rejected line across the chunk border with hits on both sides, then a real hit on the next line.
    const longMeta = meta(`${word} ${'z'.repeat(CHUNK)} ${word} ${'z'.repeat(100)} ${word}`);
    const longThenReal = await file(longMeta + answer(word));
    const longOnly = await file(longMeta + answer('none'));
    // A real hit in the same chunk as a rejected one, earlier in the file than the rejected line.
    const realFirst = await file(answer(word) + meta(word));
    const outcome = await both({ text: word }, [
      item(0, [onlyRejected]),
      item(1, [thenReal]),
      item(2, [manyThenReal]),
      item(3, [manyOnly]),
      item(4, [longThenReal]),
      item(5, [longOnly]),
      item(6, [realFirst]),
      item(7, [onlyRejected, thenReal]),
    ]);
    expect(outcome.matched).toEqual([1, 2, 4, 6, 7]);
  });

  it.skipIf(!built())('asks JS about a line holding one of its needles, and counts one holding none without asking', async () => {
    const word = 'transom';
    const user = (text: string): string => `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"${text}"}]}}\n`;
    // `"input_text"` is a needle of Codex's rule: both lines are asked about; the injected one is rejected.
    const typed = await file(user(`fix the ${word}`));
    const injected = await file(user(`<environment_context>${word}</environment_context>`));
    // The rejected line first, then one with no needle: the second counts (the first is never asked about then).
    const injectedThenAnswer = await file(user(`<environment_context>${word}</environment_context>`) + answer(word));
    const outcome = await both({ text: word }, [item(0, [typed]), item(1, [injected]), item(2, [injectedThenAnswer])]);
    expect(outcome.matched).toEqual([0, 2]);
  });

  it.skipIf(!built())('ignores case in both ways the search compiles it (chunks lowered, or hits compared folded)', async () => {
    const lowered = compileTextSearch('Release NOTES', { ignoreCase: true });
    expect(lowered.foldChunks).toBe(true);
    const folded = compileTextSearch('#42[XyZ]', { ignoreCase: true });
    expect(folded.foldChunks).toBe(false);
    const a = await file(answer('see the rElEaSe notes'));
    const b = await file(answer('issue #42[xyz] closed'));
    const items = [item(0, [a]), item(1, [b])];
    expect((await both({ text: 'Release NOTES', ignoreCase: true }, items)).matched).toEqual([0]);
    expect((await both({ text: 'Release NOTES' }, items)).matched).toEqual([]);
    expect((await both({ text: '#42[XyZ]', ignoreCase: true }, items)).matched).toEqual([1]);
    expect((await both({ text: '#42[XyZ]' }, items)).matched).toEqual([]);
  });

  it.skipIf(!built())('finds the raw, JSON-escaped and \\u-escaped spellings of the text', async () => {
    const raw = await file(answer('schöne grüße'));
    const escaped = await file(answer('sch\\u00f6ne gr\\u00fc\\u00dfe'));
    const quoted = await file(answer('say \\"hi\\" now'));
    const other = await file(answer('schone grusse'));
    const items = [item(0, [raw]), item(1, [escaped]), item(2, [quoted]), item(3, [other])];
    expect((await both({ text: 'grüße' }, items)).matched).toEqual([0, 1]);
    expect((await both({ text: 'SCHÖNE', ignoreCase: true }, items)).matched).toEqual([]);
    expect((await both({ text: 'schÖne', ignoreCase: true }, items)).matched).toEqual([]);
    expect((await both({ text: 'say "hi"' }, items)).matched).toEqual([2]);
  });

  it.skipIf(!built())("takes the stamps Node's fstat and the catalog's fingerprint give, for opened and unopened files", async () => {
    const first = await file(answer('stamp-needle'));
    const second = await file(answer('x'.repeat(100)));
    const empty = await file('');
    const outcome = await both({ text: 'stamp-needle', stamps: true }, [item(0, [first, second]), item(1, [empty, second]), item(2, [second], { agent: 'claude', sniffLineage: true })]);
    const expected = (path: string): GrepStamp => {
      const stats = statSync(path);
      return [stats.size, stats.mtimeMs, fingerprintOf(readFileSync(path).subarray(0, 64))];
    };
    expect(outcome.matched).toEqual([0]);
    expect(outcome.stamps[0]).toEqual([expected(first), expected(second)]);
    expect(outcome.stamps[2]).toEqual([expected(second)]);
    expect(outcome.stamps[1]).toBeUndefined();
  });

  it.skipIf(!built())("cuts each head's cwd and lineage as cwdInHead and the adapter's lineageInHead read them", async () => {
    const claude = (uuid: string, parent: string | null, extra = ''): string => `{"parentUuid":${parent === null ? 'null' : `"${parent}"`}${extra},"type":"user","uuid":"${uuid}","message":{"role":"user","content":"hi"}}\n`;
    const rooted = await file(claude('11111111-0000-0000-0000-000000000001', null) + claude('11111111-0000-0000-0000-000000000002', '11111111-0000-0000-0000-000000000001'));
    const compacted = await file(claude('22222222-0000-0000-0000-000000000001', null, ',"logicalParentUuid":"x"') + claude('22222222-0000-0000-0000-000000000002', null));
    const unrooted = await file(claude('33333333-0000-0000-0000-000000000002', '33333333-0000-0000-0000-000000000001'));
    const plain = await file('{"type":"session_meta","payload":{"cwd":"/home/dev/plain"}}\n');
    const escaped = await file('{"type":"session_meta","payload":{"cwd":"C:\\\\Users\\\\dev"}}\n');
    const emptyCwd = await file('{"type":"session_meta","payload":{"cwd":""}}\n');
    const tagged = await file('{"type":"message","content":"<cwd>  /home/dev/tagged </cwd>"}\n');
    const outcome = await both({ text: 'absent-text' }, [
      item(0, [rooted], { agent: 'claude', sniffLineage: true }),
      item(1, [compacted], { agent: 'claude', sniffLineage: true }),
      item(2, [unrooted], { agent: 'claude', sniffLineage: true }),
      item(3, [join(dir, 'missing.jsonl'), rooted], { agent: 'claude', sniffLineage: true }),
      item(4, [plain], { sniffCwd: true }),
      item(5, [escaped], { sniffCwd: true }),
      item(6, [emptyCwd, tagged], { sniffCwd: true }),
      item(7, [tagged], { sniffCwd: true }),
    ]);
    expect(outcome.lineages).toEqual([
      [0, '11111111-0000-0000-0000-000000000001'],
      [1, '22222222-0000-0000-0000-000000000002'],
      [2, null],
      [3, '11111111-0000-0000-0000-000000000001'],
    ]);
    expect(outcome.cwds).toEqual(['/home/dev/plain', '/home/dev/tagged', 'C:\\Users\\dev']);
  });

  it.skipIf(!built())("reads a Claude head's root uuid itself where its bytes are plain, as claudeRootInHead reads it", async () => {
    const lines = [
      '{"parentUuid":null,"type":"user","uuid":"u-plain","message":{"role":"user","content":"hi"}}\n',
      '{"parentUuid":null,"message":{"uuid":"inner","content":[{"uuid":"deeper"}]},"uuid":"u-nested"}\n',
      '{"parentUuid":null,"uuid":"first","uuid":"u-last"}\n',
      '{"parentUuid":null,"uuid":"u-\\u0034"}\n',
      '{"parentUuid":null,"u\\u0075id":"u-escaped-key"}\n',
      '{"parentUuid":null,"uuid":5}\n',
      '{"parentUuid":null,"uuid":""}\n',
      '{"parentUuid":null,"uuid":"u-broken"\n{"parentUuid":null,"uuid":"u-after-broken"}\n',
      '{"parentUuid":null,"uuid":"u-cut-short"}',
      '{"parentUuid":null,"logicalParentUuid":"x","uuid":"u-compacted"}\n{"parentUuid":null,"uuid":"u-after-compact"}\n',
      '{"parentUuid":null,"uuid":"ü-wide"}\n',
      '{ "parentUuid":null , "uuid" : "u-spaced" }\r\n',
      '{"parentUuid":null,"text":"a \\" } { [","uuid":"u-after-quote"}\n',
      '{"parentUuid":null,"type":"user"}\n{"parentUuid":null,"uuid":"u-second-line"}\n',
      '{"parentUuid":"p","uuid":"u-not-root"}\n',
    ];
    const items: GrepItem[] = [];
    for (const [index, text] of lines.entries()) items.push(item(index, [await file(text)], { agent: 'claude', sniffLineage: true }));
    const outcome = await both({ text: 'absent-text' }, items);
    expect(outcome.lineages).toEqual([
      [0, 'u-plain'],
      [1, 'u-nested'],
      [2, 'u-last'],
      [3, 'u-4'],
      [4, 'u-escaped-key'],
      [5, null],
      [6, null],
      [7, 'u-after-broken'],
      [8, null],
      [9, 'u-after-compact'],
      [10, 'ü-wide'],
      [11, 'u-spaced'],
      [12, 'u-after-quote'],
      [13, 'u-second-line'],
      [14, null],
    ]);
    // The plain ones come as strings (no head walked in JS); an escape in the uuid or its key leaves it to JS.
    const pool = new native.NativeGrepPool(native.nativeSearchAddon()!, 2, { text: 'absent-text', ignoreCase: false, stamps: false });
    pool.expect(Promise.resolve(items));
    await pool.run({ onMatch: () => undefined, onBatch: () => Promise.resolve([]), onProblem: () => undefined });
    const kinds = Object.fromEntries(allHeld(pool, items.map(({ index }) => index)).map(([index, lineage]) => [index, typeof lineage]));
    expect(kinds).toEqual({ 0: 'string', 1: 'string', 2: 'string', 3: 'function', 4: 'function', 5: 'object', 6: 'object', 7: 'string', 8: 'object', 9: 'string', 10: 'string', 11: 'string', 12: 'string', 13: 'string', 14: 'object' });
  });

  it.skipIf(!built())('holds the lineages and stamps of sessions that matched nothing until they are asked for, counting them as seen', async () => {
    const claude = (uuid: string, text: string): string => `{"parentUuid":null,"type":"user","uuid":"${uuid}","message":{"role":"user","content":"${text}"}}\n`;
    const matching = await file(claude('44444444-0000-0000-0000-000000000001', 'held-needle'));
    const quiet = await file(claude('55555555-0000-0000-0000-000000000001', 'nothing here'));
    const unrooted = await file('{"parentUuid":"x","type":"user","uuid":"y","message":{"role":"user","content":"nothing"}}\n');
    const addon = native.nativeSearchAddon()!;
    const pool = new native.NativeGrepPool(addon, 2, { text: 'held-needle', ignoreCase: false, stamps: true });
    const reported: number[] = [];
    let held = 0;
    pool.expect(Promise.resolve([matching, quiet, unrooted].map((path, index) => item(index, [path], { agent: 'claude', sniffLineage: true }))));
    await pool.run({
      onMatch: () => undefined,
      onBatch: (_cwds, lineages, heldNow = 0) => {
        reported.push(...lineages.map(([index]) => index));
        held += heldNow;
        return Promise.resolve([]);
      },
      onProblem: () => undefined,
    });
    // Only the match's lineage came in a batch; the two others were counted, and are read when asked, once.
    expect(reported).toEqual([0]);
    expect(held).toBe(2);
    const asked = allHeld(pool, [0, 1, 2]).map(([index, lineage, stamps]) => [index, typeof lineage === 'function' ? lineage() : lineage, typeof stamps === 'function' ? stamps() : stamps] as const);
    const stampOf = (path: string): GrepStamp => [statSync(path).size, statSync(path).mtimeMs, fingerprintOf(readFileSync(path).subarray(0, 64))];
    expect(asked.sort((a, b) => a[0] - b[0])).toEqual([
      [1, '55555555-0000-0000-0000-000000000001', [stampOf(quiet)]],
      [2, null, [stampOf(unrooted)]],
    ]);
    expect(allHeld(pool, [0, 1, 2])).toEqual([]);
  });

  it.skipIf(!built())('packs every held session as it is done, past the first thousand, with its own lineage and stamps', async () => {
    const paths: string[] = [];
    for (let at = 0; at < 1500; at++) {
      paths.push(await file(`{"parentUuid":null,"type":"user","uuid":"held-${at}","message":{"role":"user","content":"${'x'.repeat(at % 300)}"}}\n`));
    }
    const pool = new native.NativeGrepPool(native.nativeSearchAddon()!, 2, { text: 'absent-needle', ignoreCase: false, stamps: true });
    pool.expect(Promise.resolve(paths.map((path, index) => item(index, [path], { agent: 'claude', sniffLineage: true }))));
    await pool.run({ onMatch: () => undefined, onBatch: () => Promise.resolve([]), onProblem: () => undefined });
    const asked = allHeld(pool, paths.map((_path, index) => index)).map(([index, lineage, stamps]) => [index, typeof lineage === 'function' ? lineage() : lineage, (typeof stamps === 'function' ? stamps() : stamps)?.[0]?.[0]] as const);
    expect(asked.sort((a, b) => a[0] - b[0])).toEqual(paths.map((path, index) => [index, `held-${index}`, statSync(path).size]));
  });

  it.skipIf(!built())('keeps the held sessions whose root uuid it read as the engine packed them, found by that uuid; gives back only those JS reads', async () => {
    const rooted = (uuid: string): string => `{"parentUuid":null,"type":"user","uuid":"${uuid}","message":{"role":"user","content":"nothing"}}\n`;
    const heads = [rooted('root-a'), rooted('root-b'), rooted('root-a'), rooted('ü-wide'), rooted('esc\\u0061ped'), '{"type":"summary","summary":"none"}\n'];
    const paths: string[] = [];
    for (const head of heads) paths.push(await file(head));
    const pool = new native.NativeGrepPool(native.nativeSearchAddon()!, 2, { text: 'absent-needle', ignoreCase: false, stamps: true });
    pool.expect(Promise.resolve(paths.map((path, index) => item(index, [path], { agent: 'claude', sniffLineage: true }))));
    await pool.run({ onMatch: () => undefined, onBatch: () => Promise.resolve([]), onProblem: () => undefined });
    const held = new nativeHeld.HeldSessions();
    // Given back: a uuid past ASCII (compared as the string it decodes to), one JS decodes, a head with none.
    const given = pool.takeHeld(held).map(([index, lineage]) => [index, typeof lineage === 'function' ? lineage() : lineage] as const);
    expect(given.sort((a, b) => a[0] - b[0])).toEqual([
      [3, 'ü-wide'],
      [4, 'escaped'],
      [5, null],
    ]);
    // Kept: found by their uuid, in the order held, with their stamps; no other uuid finds them.
    expect([...held.withLineage('root-a')].sort()).toEqual([0, 2]);
    expect(held.withLineage('root-b')).toEqual([1]);
    expect([held.withLineage('root-c'), held.withLineage('ü-wide'), held.withLineage('root-')]).toEqual([[], [], []]);
    expect(held.stampsAt(1)?.[0]?.[0]).toBe(statSync(paths[1]!).size);
    expect([held.rootAt(0), held.rootAt(3), held.stampsAt(5)]).toEqual(['root-a', undefined, undefined]);
  });
});

describe('grep with and without the native engine', () => {
  const HOME = join(ROOT, 'test', 'fixtures', 'home');
  const locations = () => resolveLocations({ home: HOME, roots: { claw: [join(HOME, 'src')] } }, { env: {}, homeDir: HOME, cwd: '/nowhere' });
  const grepIds = async (module: typeof Grep, engine: 'native' | 'js', text: string): Promise<{ engine: string; ids: string[] }> => {
    const ids: string[] = [];
    const result = await module.grepLocations(locations(), text, { engine, onMatch: (row) => ids.push(`${row.agent}:${row.id}`) });
    return { engine: result.engine, ids: ids.sort() };
  };

  it.skipIf(!built())('reports the same rows on both engines, and which engine searched', async () => {
    for (const text of ['auth test', 'src/', 'never-written-7c1f']) {
      const js = await grepIds(grep, 'js', text);
      const fromNative = await grepIds(grep, 'native', text);
      expect(js.engine).toBe('js');
      expect(fromNative.engine).toBe('native');
      expect(fromNative.ids).toEqual(js.ids);
    }
    expect((await grepIds(grep, 'native', 'auth test')).ids.length).toBeGreaterThan(0);
  });

  it.skipIf(!built())('reports the same rows with trigram maps of every file, as they are made and once they are there', async () => {
    const maps = await mkdtemp(join(tmpdir(), 'sessions-grep-maps-'));
    try {
      const withMaps = async (text: string): Promise<string[]> => {
        const ids: string[] = [];
        await grep.grepLocations(locations(), text, { engine: 'native', trigrams: { dir: join(maps, 'made'), minBytes: 1 }, onMatch: (row) => ids.push(`${row.agent}:${row.id}`) });
        return ids.sort();
      };
      for (const text of ['never-written-7c1f', 'auth test', 'src/', 'never-written-7c1f', 'auth test']) {
        expect([text, await withMaps(text)]).toEqual([text, (await grepIds(grep, 'js', text)).ids]);
      }
      expect(readdirSync(join(maps, 'made')).filter((name) => name.endsWith('.tri')).length).toBeGreaterThan(10);
    } finally {
      await rm(maps, { recursive: true, force: true });
    }
  });

  it.skipIf(!built())('gives the same counts and snippets on both engines (the native one hands matching sessions to JS workers)', async () => {
    const found = async (engine: 'native' | 'js', text: string): Promise<{ engine: string; hits: string[] }> => {
      const hits: string[] = [];
      const result = await grep.grepLocations(locations(), text, {
        engine,
        ignoreCase: true,
        count: true,
        context: 20,
        onMatch: () => undefined,
        onFiles: (group, what) => hits.push(JSON.stringify([group.paths, what.matches, what.snippet])),
      });
      return { engine: result.engine, hits: hits.sort() };
    };
    for (const text of ['auth test', 'src/', 'never-written-7c1f']) {
      const js = await found('js', text);
      const fromNative = await found('native', text);
      expect(fromNative.engine).toBe('native');
      expect(fromNative.hits).toEqual(js.hits);
    }
    const counted = (await found('native', 'auth test')).hits.map((hit) => JSON.parse(hit) as [string[], number, unknown]);
    expect(counted.some(([, matches, snippet]) => matches > 1 && snippet !== null)).toBe(true);
  });

  it.skipIf(!built())("checks a walk memo's answers as walkAnswerHolds does, one by one and all together", async () => {
    const base = join(dir, 'answers-ünï');
    await mkdir(join(base, 'folder', 'inner'), { recursive: true });
    await writeFile(join(base, 'file.jsonl'), '{}\n');
    await symlink(join(base, 'folder'), join(base, 'link'));
    await symlink(join(base, 'nowhere'), join(base, 'dangling'));
    spawnSync('mkfifo', [join(base, 'fifo')]);
    const folder = statSync(join(base, 'folder'));
    const paths = ['folder', 'folder/inner', 'file.jsonl', 'link', 'dangling', 'fifo', 'missing', 'file.jsonl/below', 'link/inner'].map((name) => join(base, name));
    const answers: WalkAnswer[] = [
      ['d', join(base, 'folder'), folder.mtimeMs, folder.ino],
      ['d', join(base, 'folder'), folder.mtimeMs + 1, folder.ino],
      ['d', join(base, 'folder'), folder.mtimeMs, folder.ino + 1],
      ['d', join(base, 'folder'), null, folder.ino],
      ['d', join(base, 'file.jsonl'), statSync(join(base, 'file.jsonl')).mtimeMs, statSync(join(base, 'file.jsonl')).ino],
      ['d', join(base, 'link'), folder.mtimeMs, folder.ino],
      ...paths.flatMap((path) => (['f', 'd', 'o', '-'] as const).map((kind): WalkAnswer => ['k', path, kind])),
      ...paths.flatMap((path): WalkAnswer[] => [
        ['r', path, null],
        ['r', path, path],
        ['r', path, join(base, 'folder')],
        ['r', path, join(base, 'folder', 'inner')],
      ]),
      ['k', 'with\0nul', '-'],
    ];
    const one = answers.map((answer) => [answer, native.nativeAnswersHold([answer]) ?? walkFs.walkAnswerHolds(answer)]);
    expect(one).toEqual(answers.map((answer) => [answer, walkFs.walkAnswerHolds(answer)]));
    // Each kind of answer both holds and fails somewhere above (the comparison can fail).
    for (const kind of ['d', 'k', 'r']) expect(new Set(one.filter(([answer]) => (answer as WalkAnswer)[0] === kind).map(([, holds]) => holds))).toEqual(new Set([true, false]));
    const holding = answers.filter((answer) => walkFs.walkAnswerHolds(answer));
    expect(native.nativeAnswersHold(holding)).toBe(true);
    expect(native.nativeAnswersHold([...holding, ['k', join(base, 'file.jsonl'), 'd']])).toBe(false);
    expect(native.nativeAnswersHold([['k', 'with\0nul', '-']])).toBeNull();
    // The same check on another thread says the same of each answer and of them all.
    const later = await Promise.all(answers.map((answer) => native.nativeAnswersHoldLater([answer]) ?? walkFs.walkAnswerHolds(answer)));
    expect(later).toEqual(one.map(([, holds]) => holds));
    expect(await native.nativeAnswersHoldLater(holding)).toBe(true);
    expect(await native.nativeAnswersHoldLater([...holding, ['k', join(base, 'file.jsonl'), 'd']])).toBe(false);
    expect(native.nativeAnswersHoldLater([['k', 'with\0nul', '-']])).toBeNull();
  });

  it.skipIf(!built())('checks many real paths of one folder together as each alone (its parent resolved once)', async () => {
    const base = join(dir, 'reals');
    await mkdir(join(base, 'folder', 'inner'), { recursive: true });
    await writeFile(join(base, 'file.jsonl'), '{}\n');
    await symlink(join(base, 'folder'), join(base, 'link'));
    await symlink(join(base, 'nowhere'), join(base, 'dangling'));
    // The folder reached through a link of its own (the bench homes are), and spellings realpath must normalise.
    const via = join(dir, 'reals-via-link');
    await symlink(base, via);
    const names = ['folder', 'link', 'dangling', 'missing', 'file.jsonl', 'folder/inner', 'link/inner', 'folder/../file.jsonl', 'folder/./inner', 'folder//inner', 'folder/inner/', 'file.jsonl/below', 'link/..'];
    const paths = [...names.map((name) => `${via}/${name}`), ...names.map((name) => `${base}/${name}`), via, '/'];
    const real = (path: string): string | null => {
      try {
        return realpathSync.native(path);
      } catch {
        return null;
      }
    };
    const right = paths.map((path): WalkAnswer => ['r', path, real(path)]);
    expect(right.filter((answer) => answer[2] === null).length).toBeGreaterThan(2);
    expect(right.every((answer) => walkFs.walkAnswerHolds(answer))).toBe(true);
    expect(native.nativeAnswersHold(right)).toBe(true);
    // Each wrong answer is seen after the right ones before it (their parents resolved already).
    right.forEach((answer, at) => {
      const wrong: WalkAnswer = ['r', answer[1], answer[2] === null ? base : null];
      expect(walkFs.walkAnswerHolds(wrong)).toBe(false);
      expect([answer[1], native.nativeAnswersHold([...right.slice(0, at), wrong])]).toEqual([answer[1], false]);
      expect([answer[1], native.nativeAnswersHold([...right.slice(0, at), ['r', answer[1], `${answer[2] ?? base}x`]])]).toEqual([answer[1], false]);
    });
  });

  it('falls back to the JS engine when the addon is absent, with the same rows', async () => {
    // The built package without native/: the addon cannot load.
    const copy = await mkdtemp(join(tmpdir(), 'sessions-no-native-'));
    try {
      await cp(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
      // The source maps point at ../src.
      await symlink(join(ROOT, 'src'), join(copy, 'src'));
      await writeFile(join(copy, 'package.json'), readFileSync(join(ROOT, 'package.json')));
      await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
      const without = (await import(join(copy, 'dist', 'catalog', 'grep.js'))) as typeof Grep;
      const fallback = await grepIds(without, 'native', 'auth test');
      expect(fallback.engine).toBe('js');
      expect(fallback.ids.length).toBeGreaterThan(0);
      expect(fallback.ids).toEqual((await grepIds(grep, 'js', 'auth test')).ids);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});

describe('trigram maps of big files (native/search.c)', () => {
  /** TRI_MAP_BYTES in native/search.c: a map's bits, at the end of its file. */
  const MAP_BYTES = 512 * 1024;
  let maps: string;
  beforeAll(async () => {
    maps = await mkdtemp(join(tmpdir(), 'sessions-trigrams-'));
  });
  afterAll(async () => {
    await rm(maps, { recursive: true, force: true });
  });

  /** The native pool over one session file, with maps kept in `maps` for files of `minBytes` or more. */
  async function nativeMatches(text: string, path: string, options: { ignoreCase?: boolean; minBytes?: number; trigrams?: boolean } = {}): Promise<boolean> {
    const trigrams = options.trigrams === false ? undefined : { dir: maps, minBytes: options.minBytes ?? 1 };
    return (await runPool('native', { text, ignoreCase: options.ignoreCase ?? false, trigrams }, [item(0, [path])])).matched.length === 1;
  }
  const mapFiles = (): string[] => readdirSync(maps).filter((name) => name.endsWith('.tri'));
  const onlyMap = (): string => {
    const found = mapFiles();
    expect(found).toHaveLength(1);
    return join(maps, found[0]!);
  };
  /** Clear a map's bits (its header kept): it then says the file holds no trigram, which a search trusts while the file is as it was. */
  const blank = (map: string): void => {
    const bytes = readFileSync(map);
    bytes.fill(0, bytes.length - MAP_BYTES);
    writeFileSync(map, bytes);
  };
  const lines = [answer('plain word, then CamelCase'), answer('she said \\"hi there\\" and left'), answer('a caf\\u00e9 in the old town'), answer('naïve unicode and 项目'), answer('prefix-only-word')].join('');

  beforeEach(async () => {
    await rm(maps, { recursive: true, force: true });
    await mkdir(maps);
  });

  it.skipIf(!built())('is made by a search that reads a big file to its end, and never hides text the file holds', async () => {
    const path = await file(lines);
    expect(await nativeMatches('zzqqxx-absent', path, { minBytes: 1e9 })).toBe(false);
    expect(mapFiles()).toEqual([]); // smaller than minBytes
    expect(await nativeMatches('hi', path)).toBe(true);
    expect(mapFiles()).toEqual([]); // matched: not read to the end
    expect(await nativeMatches('zzqqxx-absent', path)).toBe(false);
    const map = onlyMap();
    const written = statSync(map).mtimeMs;
    // Every spelling a text has in a file (raw, JSON-escaped, \u-escaped), with and without case folding, and texts
    // that are not there: the same answer with the map as without one, and as the JS engine gives.
    const texts: [string, boolean][] = [
      ['plain word', false],
      ['she said "hi there"', false],
      ['café', false],
      ['naïve unicode', false],
      ['项目', false],
      ['CamelCase', false],
      ['CAMELCASE', false],
      ['CAMELCASE', true],
      ['prefix-only-word', false],
      ['zzqqxx-absent', false],
      ['PREFIX-ONLY-WORDS', true],
    ];
    for (const [text, ignoreCase] of texts) {
      const js = await runPool('js', { text, ignoreCase }, [item(0, [path])]);
      expect([text, ignoreCase, await nativeMatches(text, path, { ignoreCase })]).toEqual([text, ignoreCase, js.matched.length === 1]);
      expect([text, await nativeMatches(text, path, { ignoreCase, trigrams: false })]).toEqual([text, js.matched.length === 1]);
    }
    expect(texts.filter(([text, ignoreCase]) => text.includes('absent') || (text === 'CAMELCASE' && !ignoreCase))).toHaveLength(2);
    // Nothing was appended: the map was not written again.
    expect(statSync(map).mtimeMs).toBe(written);
  });

  it.skipIf(!built())('rules out no text a real session holds: pieces of a Claude Code file, in any case, and texts it lacks', async () => {
    const source = readFileSync(join(ROOT, 'test', 'fixtures', 'home', '.claude', 'projects', '-home-dev-src-a--n-c-d----', '328cfc0d-0846-4702-9243-c6354d61457d.jsonl'));
    const path = await file(source);
    expect(await nativeMatches('zzqqxx-absent', path)).toBe(false);
    onlyMap();
    // A fixed sequence (a linear congruential generator), so a failure names the same texts every run.
    let seed = 12345;
    const next = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const decoded = source.toString('utf8');
    const texts: [string, boolean][] = [];
    for (let n = 0; n < 120; n++) {
      const at = next(decoded.length - 16);
      texts.push([decoded.slice(at, at + 3 + next(10)), next(2) === 1]);
    }
    for (let n = 0; n < 30; n++) texts.push([Array.from({ length: 3 + next(6) }, () => String.fromCharCode(97 + next(26))).join(''), next(2) === 1]);
    let found = 0;
    for (const [text, ignoreCase] of texts) {
      const withMap = await nativeMatches(text, path, { ignoreCase });
      expect([text, ignoreCase, withMap]).toEqual([text, ignoreCase, await nativeMatches(text, path, { ignoreCase, trigrams: false })]);
      if (withMap) found++;
    }
    // Most pieces are found (a piece can sit only in lines no hit counts in, or cut an escape), most made-up texts not.
    expect(found).toBeGreaterThan(60);
    expect(found).toBeLessThan(texts.length);
  });

  it.skipIf(!built())('is trusted for the lines it covers while the file only grew: what was appended is searched, and mapped', async () => {
    const path = await file(lines);
    expect(await nativeMatches('zzqqxx-absent', path)).toBe(false);
    const map = onlyMap();
    blank(map);
    // The blank map rules out every text: the covered lines are not read (what a real map does for absent text).
    expect(await nativeMatches('prefix-only-word', path)).toBe(false);
    appendFileSync(path, answer('tail-only-word'));
    expect(await nativeMatches('tail-only-word', path)).toBe(true);
    expect(await nativeMatches('prefix-only-word', path)).toBe(false);
    // That search read the appended line to the end: the map covers it now.
    expect(readFileSync(map).subarray(-MAP_BYTES).some((byte) => byte !== 0)).toBe(true);
    // A line the search found unterminated is searched again once it is finished.
    appendFileSync(path, answer('second tail').slice(0, 40));
    expect(await nativeMatches('zzqqxx-absent', path)).toBe(false);
    appendFileSync(path, answer('second tail').slice(40));
    expect(await nativeMatches('second tail', path)).toBe(true);
  });

  const WHOLE_SECOND = 1_700_000_000;

  it.skipIf(!built())('rules out a word each of whose trigrams the file holds, by a 4-gram it lacks', async () => {
    // par, ars, rsi, sin and ing are all here; pars, arsi and rsin are not.
    const path = await file(answer('spare cars, versions, raising') + answer('a line that will say: xxxxxxx.') + answer('the last line'));
    utimesSync(path, WHOLE_SECOND, WHOLE_SECOND);
    expect(await nativeMatches('zzqqxx-absent', path)).toBe(false);
    onlyMap();
    // The word is written into a covered line, mtime put back: a map that rules it out leaves that line unread.
    writeFileSync(path, readFileSync(path, 'utf8').replace('xxxxxxx', 'parsing'));
    utimesSync(path, WHOLE_SECOND, WHOLE_SECOND);
    expect((await runPool('js', { text: 'parsing' }, [item(0, [path])])).matched).toEqual([0]);
    expect(await nativeMatches('parsing', path, { trigrams: false })).toBe(true);
    expect(await nativeMatches('parsing', path)).toBe(false);
    expect(await nativeMatches('PARSING', path, { ignoreCase: true })).toBe(false);
    // Texts whose every trigram and 4-gram the map holds are searched: found where they are.
    expect(await nativeMatches('versions, raising', path)).toBe(true);
    expect(await nativeMatches('spare', path)).toBe(true);
  });

  it.skipIf(!built())('holds the 4-grams that cross a 256 KiB chunk border, made by a search for a 3-byte text', async () => {
    // A 3-byte text carries 2 bytes from one chunk to the next: a 4-gram that begins 3 bytes before the border is
    // still in the map.
    const word = 'qwerty';
    const opening = answer('').slice(0, answer('').indexOf('"text":"') + '"text":"'.length);
    for (let before = 1; before <= word.length; before++) {
      const path = await file(`${opening}${'x'.repeat(CHUNK - before - opening.length)}${word} end"}]}}\n`);
      await rm(maps, { recursive: true, force: true });
      await mkdir(maps);
      expect(await nativeMatches('zqj', path)).toBe(false);
      onlyMap();
      expect([before, await nativeMatches(word, path)]).toEqual([before, true]);
      expect([before, await nativeMatches('qwerti', path)]).toEqual([before, false]);
    }
  });


  it.skipIf(!built())('is not trusted once the file was rewritten: same size and mtime changed, bytes changed before its end, shorter, or replaced', async () => {
    const cases: [string, (path: string) => Promise<void>][] = [
      ['rewritten in place, same size', async (path) => writeFile(path, readFileSync(path))],
      [
        'a byte changed just before the last line, mtime put back',
        async (path) => {
          const bytes = readFileSync(path);
          const at = bytes.lastIndexOf('prefix-only-word') - 5;
          bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61;
          writeFileSync(path, bytes);
          utimesSync(path, WHOLE_SECOND, WHOLE_SECOND);
        },
      ],
      ['shorter', async (path) => writeFile(path, lines.slice(0, lines.lastIndexOf('\n', lines.length - 2) + 1) + answer('prefix-only-word'))],
      [
        'replaced by another file',
        async (path) => {
          await writeFile(`${path}.new`, lines);
          renameSync(`${path}.new`, path);
        },
      ],
    ];
    for (const [what, change] of cases) {
      const path = await file(lines);
      // An mtime a change can put back exactly (whole seconds: no nanoseconds lost on the way).
      utimesSync(path, WHOLE_SECOND, WHOLE_SECOND);
      await rm(maps, { recursive: true, force: true });
      await mkdir(maps);
      expect(await nativeMatches('zzqqxx-absent', path)).toBe(false);
      blank(onlyMap());
      expect([what, await nativeMatches('prefix-only-word', path)]).toEqual([what, false]);
      await change(path);
      expect([what, await nativeMatches('prefix-only-word', path)]).toEqual([what, true]);
    }
  });
});

describe('pruning the trigram maps', () => {
  it('removes the folder of the maps of an older version beside this version\'s, and nothing beside another folder', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'sessions-trigram-versions-'));
    try {
      const { dir } = native.trigramMapsBeside(join(cache, 'catalog.jsonl'));
      for (const folder of [dir, join(cache, 'grep-trigrams-v1'), join(cache, 'other')]) {
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, '0123456789abcdef.tri'), 'map');
      }
      await native.pruneTrigramMaps(join(cache, 'other'));
      expect(readdirSync(cache).sort()).toEqual(['grep-trigrams-v1', 'grep-trigrams-v2', 'other']);
      await native.pruneTrigramMaps(dir);
      expect(readdirSync(cache).sort()).toEqual(['grep-trigrams-v2', 'other']);
      expect(readdirSync(dir)).toEqual(['0123456789abcdef.tri']);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it.skipIf(!built())('removes the maps of files that are gone, then the oldest, down to the number kept', async () => {
    const maps = await mkdtemp(join(tmpdir(), 'sessions-trigram-prune-'));
    try {
      const big = (word: string): Promise<string> => file(answer(`${word} `.repeat(200)));
      const [gone, kept, older] = await Promise.all([big('gone'), big('kept'), big('older')]);
      for (const path of [gone, older, kept]) {
        expect((await runPool('native', { text: 'zzqqxx-absent', trigrams: { dir: maps, minBytes: 1 } }, [item(0, [path])])).matched).toEqual([]);
      }
      const named = (): string[] =>
        readdirSync(maps)
          .map((name) => readFileSync(join(maps, name)))
          .map((bytes) => bytes.toString('utf8', 80, 80 + bytes.readUInt32LE(72)))
          .sort();
      expect(named()).toEqual([gone, kept, older].sort());
      const oldest = readdirSync(maps).find((name) => readFileSync(join(maps, name)).includes(older))!;
      utimesSync(join(maps, oldest), 1_000_000, 1_000_000);
      await rm(gone);
      // Left by writers an hour and more ago (removeStaleTemps' rule): one whose process is gone (pid 2^22 + 1 is above
      // Linux's pid_max), one still writing (this one).
      writeFileSync(join(maps, `0123456789abcdef.tri.${2 ** 22 + 1}.7f00`), 'cut short');
      writeFileSync(join(maps, `0123456789abcdef.tri.${process.pid}.7f00`), 'being written');
      for (const pid of [2 ** 22 + 1, process.pid]) utimesSync(join(maps, `0123456789abcdef.tri.${pid}.7f00`), 1_000_000, 1_000_000);
      await native.pruneTrigramMaps(maps, 3);
      expect(readdirSync(maps).filter((name) => !name.endsWith('.tri'))).toEqual([`0123456789abcdef.tri.${process.pid}.7f00`]);
      rmSync(join(maps, `0123456789abcdef.tri.${process.pid}.7f00`));
      expect(named()).toHaveLength(3); // not over the number kept: left alone
      await native.pruneTrigramMaps(maps, 1);
      expect(named()).toEqual([kept]);
    } finally {
      await rm(maps, { recursive: true, force: true });
    }
  });
});
