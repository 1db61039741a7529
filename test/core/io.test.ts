import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLines, createFileAtomic } from '../../src/core/io/atomic.js';
import { FINGERPRINT_BYTES, foldLines, headFingerprint, indexReads, jsonObjects, newLineStats, readJsonLines, readLineBatches, readLines, type RawLine } from '../../src/core/io/lines.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-io-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(path: string, options = {}): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const line of readLines(path, options)) out.push(line);
  return out;
}

describe('readLines', () => {
  it('returns offsets, strips CRLF, and flags an unterminated last line', async () => {
    const path = join(dir, 'a.jsonl');
    await writeFile(path, '{"a":1}\r\n{"b":2}\n{"c":');
    const lines = await collect(path, { chunkSize: 3 });
    expect(lines.map((l) => [l.offset, l.bytes.toString(), l.terminated])).toEqual([
      [0, '{"a":1}', true],
      [9, '{"b":2}', true],
      [17, '{"c":', false],
    ]);
  });

  it('reads the same lines into one reused chunk buffer, lines crossing chunks included', async () => {
    const path = join(dir, 'reuse.jsonl');
    const text = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, text: 'é'.repeat(i % 37) })).join('\r\n') + '\n{"tail":';
    await writeFile(path, text);
    const copied: [number, string, boolean][] = [];
    for await (const line of readLines(path, { chunkSize: 64, reuseChunk: true })) copied.push([line.offset, Buffer.from(line.bytes).toString(), line.terminated]);
    const fresh = (await collect(path, { chunkSize: 64 })).map((l): [number, string, boolean] => [l.offset, l.bytes.toString(), l.terminated]);
    expect(copied).toEqual(fresh);
    expect(copied).toHaveLength(201);
    // A smaller first read (a screen's start) changes no line, whether it ends inside a line or not.
    for (const firstChunkSize of [1, 5, 100, 1 << 20]) {
      const small: [number, string, boolean][] = [];
      for await (const line of readLines(path, { chunkSize: 64, firstChunkSize, reuseChunk: true })) small.push([line.offset, Buffer.from(line.bytes).toString(), line.terminated]);
      expect(small).toEqual(fresh);
    }
  });

  it('joins a line of many megabytes across chunks', async () => {
    const path = join(dir, 'big.jsonl');
    const big = JSON.stringify({ text: 'x'.repeat(20 * 1024 * 1024) });
    await writeFile(path, `{"first":true}\n${big}\n{"last":true}\n`);
    const lines = await collect(path, { chunkSize: 1 << 16 });
    expect(lines).toHaveLength(3);
    expect(lines[1]!.bytes.length).toBe(big.length);
    expect(lines[2]!.offset).toBe(15 + big.length + 1);
  });

  it('stops before an end offset without returning the crossing line', async () => {
    const path = join(dir, 'e.jsonl');
    await writeFile(path, '{"a":1}\n{"b":2}\n{"c":3}\n');
    expect((await collect(path, { end: 16 })).map((l) => l.bytes.toString())).toEqual(['{"a":1}', '{"b":2}']);
    expect((await collect(path, { end: 12 })).map((l) => l.bytes.toString())).toEqual(['{"a":1}']);
  });
});

describe('readLineBatches', () => {
  it('hands on a chunk\'s lines at once, the same lines readLines gives, one batch per chunk that ends a line', async () => {
    const path = join(dir, 'batches.jsonl');
    const long = JSON.stringify({ text: 'y'.repeat(300) });
    const text = Array.from({ length: 50 }, (_, i) => (i % 9 === 4 ? long : JSON.stringify({ i, text: 'é'.repeat(i % 11) }))).join('\r\n') + '\n{"tail":';
    await writeFile(path, text);
    for (const options of [{ chunkSize: 64 }, { chunkSize: 64, reuseChunk: true }, { chunkSize: 1 << 20 }, { chunkSize: 100, end: 2000 }]) {
      const batches: [number, string, boolean][][] = [];
      for await (const lines of readLineBatches(path, options)) {
        expect(lines.length).toBeGreaterThan(0);
        batches.push(lines.map((l): [number, string, boolean] => [l.offset, Buffer.from(l.bytes).toString(), l.terminated]));
      }
      const { reuseChunk: _reused, ...fresh } = options as { reuseChunk?: boolean };
      const one = (await collect(path, fresh)).map((l): [number, string, boolean] => [l.offset, l.bytes.toString(), l.terminated]);
      expect(batches.flat()).toEqual(one);
      // A file of many chunks comes in many batches; one chunk holding every line, in one (and the unterminated tail).
      if (options.chunkSize === 1 << 20) expect(batches.map((b) => b.length)).toEqual([50, 1]);
      else expect(batches.length, JSON.stringify(options)).toBeGreaterThan(3);
    }
  });
});

describe('readLineBatches reading ahead', () => {
  it("keeps a reused chunk's batch intact while the next chunk is read, however long the reader holds it", async () => {
    const path = join(dir, 'ahead.jsonl');
    const text = Array.from({ length: 300 }, (_, i) => JSON.stringify({ i, text: String.fromCharCode(97 + (i % 26)).repeat(i % 50) })).join('\n') + '\n';
    await writeFile(path, text);
    const expected = (await collect(path, { chunkSize: 128 })).map((l): [number, string] => [l.offset, l.bytes.toString()]);
    const seen: [number, string][] = [];
    for await (const lines of readLineBatches(path, { chunkSize: 128, reuseChunk: true })) {
      // The read of the next chunk (into the other buffer) has ended by now: this batch's bytes must be unchanged.
      await new Promise((resolve) => setTimeout(resolve, 2));
      for (const line of lines) seen.push([line.offset, line.bytes.toString()]);
    }
    expect(seen).toEqual(expected);
  });

  it('closes the file when the reader stops early, with a read still under way', async () => {
    const path = join(dir, 'early.jsonl');
    await writeFile(path, Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i })).join('\n') + '\n');
    // Descriptors of this process open on the file (Linux: /proc/self/fd links to what each names).
    const openOnFile = (): number =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === path;
        } catch {
          return false; // closed meanwhile
        }
      }).length;
    for (let round = 0; round < 20; round++) {
      for await (const lines of readLineBatches(path, { chunkSize: 256, reuseChunk: round % 2 === 0 })) {
        expect(lines[0]!.offset).toBe(0);
        break;
      }
    }
    // Every handle was closed (none of the 20 left open), and the file reads whole again.
    expect(openOnFile()).toBe(0);
    expect((await collect(path, { chunkSize: 256 })).length).toBe(1000);
  });
});

describe('jsonObjects / readJsonLines', () => {
  it('skips and counts malformed and partial lines, survives non-UTF-8 bytes', async () => {
    const path = join(dir, 'm.jsonl');
    await writeFile(
      path,
      Buffer.concat([
        Buffer.from('{"ok":1}\nnot json\n\n[1,2]\n{"bad":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}\n{"partial":'),
      ]),
    );
    const stats = newLineStats();
    const objects = await readJsonLines(path, stats);
    expect(objects.map((o) => o.value)).toEqual([{ ok: 1 }, { bad: '\ufffd\ufffd' }]);
    expect(stats).toEqual({ malformed: 2, partial: 1 });
  });

  it('treats blank lines as nothing', () => {
    const stats = newLineStats();
    const lines = [{ offset: 0, bytes: Buffer.from('  \t'), terminated: true }];
    expect([...jsonObjects(lines, stats)]).toEqual([]);
    expect(stats).toEqual({ malformed: 0, partial: 0 });
  });
});

describe('foldLines', () => {
  const fold = async (path: string, start = 0): Promise<{ lines: string[]; result: Awaited<ReturnType<typeof foldLines>> }> => {
    const lines: string[] = [];
    const result = await foldLines(path, start, (line) => lines.push(`${line.offset}:${line.bytes.toString()}`));
    return { lines, result };
  };

  it('hands every complete line over once, with offsets, and returns the unterminated last one apart', async () => {
    const path = join(dir, 'f.jsonl');
    await writeFile(path, '{"a":1}\r\n{"b":2}\n{"c":');
    const { lines, result } = await fold(path);
    expect(lines).toEqual(['0:{"a":1}', '9:{"b":2}']);
    expect(result).toMatchObject({ size: 22, end: 17, partial: { offset: 17, terminated: false } });
    expect(result.partial!.bytes.toString()).toBe('{"c":');
  });

  it('goes on from an offset, reading only the bytes after it', async () => {
    const path = join(dir, 'g.jsonl');
    const first = Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ i })).join('\n') + '\n';
    await writeFile(path, `${first}{"last":true}\n`);
    const before = indexReads.bytes;
    const { lines, result } = await fold(path, Buffer.byteLength(first));
    expect(lines).toEqual([`${Buffer.byteLength(first)}:{"last":true}`]);
    expect(result.end).toBe(result.size);
    // The appended line plus the fingerprint's first bytes, nothing else.
    expect(indexReads.bytes - before).toBe(Buffer.byteLength('{"last":true}\n') + FINGERPRINT_BYTES);
  });

  it('joins a line longer than a chunk (a big file is read in 1 MiB chunks)', async () => {
    const path = join(dir, 'h.jsonl');
    const header = JSON.stringify({ type: 'session_meta', text: 'h'.repeat(3_000_000) });
    await writeFile(path, `${header}\n{"i":1}\n`);
    const seen: number[] = [];
    await foldLines(path, 0, (line) => seen.push(line.bytes.length));
    expect(seen).toEqual([header.length, 7]);
  });

  it('fingerprints the first bytes: same size and mtime, other first bytes, another fingerprint', async () => {
    const path = join(dir, 'p.jsonl');
    await writeFile(path, '{"id":"aaaa"}\n');
    const one = headFingerprint(path);
    await writeFile(path, '{"id":"bbbb"}\n');
    expect(headFingerprint(path)).not.toBe(one);
    expect((await fold(path)).result.fingerprint).toBe(headFingerprint(path));
  });
});

describe('createFileAtomic', () => {
  it('creates the file with mode 0600 and leaves no temp file', async () => {
    const path = join(dir, 'sub', 'new.jsonl');
    await createFileAtomic(path, [Buffer.from('one\n'), Buffer.from('two\n')]);
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(dir, 'sub'))).toEqual(['new.jsonl']);
  });

  it('never overwrites an existing file', async () => {
    const path = join(dir, 'exists.jsonl');
    await writeFile(path, 'original');
    await expect(createFileAtomic(path, 'new')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path, 'utf8')).toBe('original');
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(dir)).toEqual(['exists.jsonl']);
  });
});

describe('appendLines', () => {
  it('appends after a missing final newline without gluing lines', async () => {
    const path = join(dir, 'ap.jsonl');
    await writeFile(path, '{"a":1}');
    await appendLines(path, ['{"b":2}']);
    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
  });

  it('refuses to create a file', async () => {
    await expect(appendLines(join(dir, 'missing.jsonl'), ['x'])).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('fileContainsSync', () => {
  it('finds a needle across a chunk boundary, in any of its JSON spellings, case-folded on request', async () => {
    const { compileTextSearch, fileContainsSync, jsonNeedles } = await import('../../src/core/io/contains.js');
    const path = join(dir, 'big.jsonl');
    const filler = 'x'.repeat((256 << 10) - 5);
    await writeFile(path, `${filler}NEEDLE-across\n${JSON.stringify({ text: 'say "hi"\nthen é', id: 'Order-4242-X' })}\n`);
    const has = (text: string, ignoreCase = false): boolean => fileContainsSync(path, compileTextSearch(text, { ignoreCase }));
    expect(has('NEEDLE-across')).toBe(true);
    expect(has('say "hi"\nthen é')).toBe(true);
    expect(has('needle-across')).toBe(false);
    expect(has('needle-across', true)).toBe(true);
    expect(has('absent')).toBe(false);
    expect(has('order-4242-x', true)).toBe(true);
    expect(has('order-4242-y', true)).toBe(false);
    expect(has('ordex-4242-x', true)).toBe(false);
    expect(has('')).toBe(false);
    expect(jsonNeedles('é"').map((b) => b.toString())).toEqual(['é"', 'é\\"', '\\u00e9\\"']);
  });

  it('finds every spelling of a needle at every position around the chunk boundaries', async () => {
    const { compileTextSearch, fileContainsSync, searchBuffer } = await import('../../src/core/io/contains.js');
    const chunk = 256 << 10;
    const cases: [text: string, written: string, ignoreCase?: boolean][] = [
      ['kumquat-zebra-7781', 'kumquat-zebra-7781'],
      ['C:\\temp "x"', JSON.stringify('C:\\temp "x"').slice(1, -1)],
      ['grüße, 世界', 'grüße, 世界'],
      ['grüße, 世界', 'gr\\u00fc\\u00dfe, \\u4e16\\u754c'],
      ['为什么', '\\u4e3a\\u4ec0\\u4e48'],
      // Ignoring case: chunks lowered (no letter-free probe) and not (the probe is "7781").
      ['ECONNRESET', 'econnreset', true],
      ['Kumquat-Zebra-7781', 'KUMQUAT-zebra-7781', true],
    ];
    expect(compileTextSearch('ECONNRESET', { ignoreCase: true }).foldChunks).toBe(true);
    expect(compileTextSearch('Kumquat-Zebra-7781', { ignoreCase: true }).foldChunks).toBe(false);
    for (const [text, written, ignoreCase] of cases) {
      const search = compileTextSearch(text, { ignoreCase });
      const buffer = searchBuffer(search);
      for (const at of [0, chunk - written.length, chunk - 3, chunk - 1, chunk, chunk + 5, 2 * chunk - 2]) {
        const path = join(dir, 'boundary.jsonl');
        const bytes = Buffer.alloc(at + written.length * 3 + 10, 0x61);
        const length = bytes.write(written, at, 'utf8');
        await writeFile(path, bytes.subarray(0, Math.max(at + length + 3, chunk + 10)));
        expect(fileContainsSync(path, search, buffer), `${text} written as ${written} at ${at}`).toBe(true);
        // One byte of it changed: no match.
        bytes[at + length - 1] = 0x0a;
        await writeFile(path, bytes.subarray(0, Math.max(at + length + 3, chunk + 10)));
        expect(fileContainsSync(path, search, buffer), `${text} broken at ${at}`).toBe(false);
      }
    }
  });
});

describe('fileMatchesSync and snippets', () => {
  it('counts every match once, across chunk boundaries and spellings, and finds the first', async () => {
    const { compileTextSearch, fileMatchesSync, searchBuffer } = await import('../../src/core/io/contains.js');
    const chunk = 256 << 10;
    const path = join(dir, 'count.jsonl');
    const bytes = Buffer.alloc(3 * chunk, 0x61);
    // raw at the start, JSON-escaped (\u) across the first boundary, raw again across the second
    const places = [10, chunk - 4, 2 * chunk - 2];
    bytes.write('café-42', places[0]!, 'utf8');
    bytes.write('caf\\u00e9-42', places[1]!, 'utf8');
    bytes.write('café-42', places[2]!, 'utf8');
    await writeFile(path, bytes);
    const search = compileTextSearch('café-42');
    expect(fileMatchesSync(path, search, searchBuffer(search))).toMatchObject({ count: 3, first: { offset: 10, length: Buffer.byteLength('café-42') } });
    const none = compileTextSearch('café-43');
    expect(fileMatchesSync(path, none)).toEqual({ count: 0, first: null, places: [] });
    // the first match of each line (a system prompt is one line, however many matches it holds)
    await writeFile(path, 'ab ab ab\nxx ab\nab\n');
    expect(fileMatchesSync(path, compileTextSearch('ab')).places.map((place) => place.offset)).toEqual([0, 12, 15]);
    // overlapping occurrences of a repeating needle are each counted once per position
    await writeFile(path, 'xx abab abab xx');
    expect(fileMatchesSync(path, compileTextSearch('abab')).count).toBe(2);
  });

  it('placesOnly: the same places as a whole read, read only until no later byte can change them', async () => {
    const { compileTextSearch, fileMatchesSync, searchBuffer } = await import('../../src/core/io/contains.js');
    const search = compileTextSearch('needle');
    const chunk = searchBuffer(search).length;
    const path = join(dir, 'places.jsonl');
    // Ten lines with a match in the first chunk, then many more chunks of matches: a whole read counts them all.
    const head = Array.from({ length: 10 }, (_, i) => `{"n":${i},"text":"a needle here"}`).join('\n');
    const filler = `\n${'{"text":"x needle y"}\n'.repeat(Math.ceil((4 * chunk) / 22))}`;
    await writeFile(path, head + filler);
    const whole = fileMatchesSync(path, search);
    const first = fileMatchesSync(path, search, searchBuffer(search), undefined, undefined, Infinity, true);
    expect(first.places).toEqual(whole.places);
    expect(first.places).toHaveLength(8);
    expect(whole.count).toBeGreaterThan(4 * 180);
    expect(first.count).toBeLessThan(whole.count / 2); // stopped after the first chunk
    // Fewer than eight lines with a match: read to the end, as a whole read.
    await writeFile(path, `{"text":"one needle"}\n${'{"text":"hay"}\n'.repeat(Math.ceil((3 * chunk) / 15))}{"text":"last needle"}\n`);
    const sparse = fileMatchesSync(path, search, searchBuffer(search), undefined, undefined, Infinity, true);
    expect(sparse).toEqual(fileMatchesSync(path, search));
    expect(sparse.places).toHaveLength(2);
  });

  it('shows the JSON string the match is in, unescaped, cut to the context each side', async () => {
    const { snippetIn } = await import('../../src/core/io/snippet.js');
    const line = Buffer.from(JSON.stringify({ type: 'message', text: 'first line\nthe "rate limiter" drops requests \u001b[31mred\u001b[0m at night', id: 'x' }));
    const at = line.indexOf('rate limiter');
    expect(snippetIn(line, at, 'rate limiter'.length, 100)).toMatchObject({ lead: '{"type":"message","text":', opened: true, before: 'first line the "', match: 'rate limiter', after: '" drops requests red at night' });
    expect(snippetIn(line, at, 'rate limiter'.length, 6)).toMatchObject({ before: '…the "', match: 'rate limiter', after: '" drop…' });
  });

  it('never starts or ends a side inside a control sequence: a match in a window title\'s payload shows none of it', async () => {
    const { snippetIn } = await import('../../src/core/io/snippet.js');
    const snippet = (text: string, word: string, context = 40, prefix = '{"text":') => {
      const line = Buffer.from(`${prefix}${JSON.stringify(text)}}`);
      const needle = JSON.stringify(word).slice(1, -1); // as the file holds it
      expect(line.indexOf(needle)).toBeGreaterThan(-1);
      return snippetIn(line, line.indexOf(needle), Buffer.byteLength(needle), context);
    };
    for (const [open, close] of [['\u001b]0;', '\u0007'], ['\u001b]0;', '\u001b\\'], ['\u009d0;', '\u009c'], ['\u009d0;', '\u0007'], ['\u0090q', '\u009c']]) {
      const found = snippet(`look ${open}PWNED-TITLE here${close} after`, 'TITLE');
      expect(found, JSON.stringify(open)).toMatchObject({ before: 'look ', match: '', after: ' after' });
    }
    // in a CSI's parameters, and a match that is partly visible
    expect(snippet('red \u001b[31;1m text', '1;1')).toMatchObject({ before: 'red ', match: '', after: ' text' });
    expect(snippet('ab\u001b[31mcd ef', 'b\u001b[31mc')).toMatchObject({ before: 'a', match: 'bc', after: 'd ef' });
    // the string opened before the bytes read, inside a payload: the snippet starts after the payload's end
    const line = Buffer.from(`${'x'.repeat(50)}PAYLOAD-REST\u0007 shown text match here"}`);
    expect(snippetIn(line, line.indexOf('match'), 5, 40)).toMatchObject({ opened: false, before: 'shown text ', match: 'match', after: ' here' });
  });
});

