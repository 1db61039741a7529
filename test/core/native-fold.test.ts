// The index's line fields judged by the native engine (native/fields.c): the verdict on each line must be exactly
// JSON.parse's on the line's UTF-8-decoded text, the fields handed back must be the parsed line's, and a fold fed by
// the engine must end where the fold without it ends. With SESSIONS_REQUIRE_NATIVE=1 (CI) the engine must load;
// without it the native cases are skipped (the JS path is then the only one).
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeLine, nativeIndexBatch, showLineReader } from '../../src/core/formats/claude/native-fold.js';
import { addIndexLine } from '../../src/core/formats/claude/indexed.js';
import { ClaudeScan } from '../../src/core/formats/claude/scan.js';
import { foldLines, jsonObjects, newLineStats, readLineBatches, readLineChunks } from '../../src/core/io/lines.js';
import { rawLines } from '../helpers/files.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const built = judgeLine(Buffer.from('{}')) !== null;

/** JSON.parse's verdict on a line, as the fold counts it. */
function parseVerdict(bytes: Buffer): 'blank' | 'malformed' | 'object' {
  if (bytes.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d)) return 'blank';
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? 'object' : 'malformed';
  } catch {
    return 'malformed';
  }
}

/** The engine's verdict as the same three (a big line is left to JS: not judged here). */
function nativeVerdict(bytes: Buffer): 'blank' | 'malformed' | 'object' | 'big' {
  const { verdict } = judgeLine(bytes)!;
  return verdict === 'parse' || verdict === 'fields' ? 'object' : verdict;
}

/** What the fold reads of a parsed line (ClaudeScan.add, isClaudeUserTurn, usageOf), to compare with the fields handed back. */
function foldView(value: Record<string, unknown>): unknown {
  const text = (v: unknown): unknown => v;
  const record = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  const message = record(value.message);
  const usage = message === null ? null : record(message.usage);
  const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  // Only a user line's content is read (for a prompt): an answer's blocks are not.
  const blocks = value.type === 'user' && message !== null && Array.isArray(message.content) ? message.content.map(record).filter((b) => b !== null) : [];
  return {
    type: text(value.type),
    uuid: text(value.uuid),
    parentUuid: text(value.parentUuid),
    logicalParentUuid: text(value.logicalParentUuid),
    timestamp: text(value.timestamp),
    sessionId: text(value.sessionId),
    cwd: text(value.cwd),
    gitBranch: text(value.gitBranch),
    requestSessionId: text(value.requestSessionId),
    lastPrompt: text(value.lastPrompt),
    content: value.type === 'user' && message !== null && !Array.isArray(message.content) ? message.content : null,
    origin: record(value.origin) === null ? null : { kind: record(value.origin)!.kind },
    flags: [value.isSidechain === true, value.isMeta === true, value.isCompactSummary === true],
    message: message === null ? null : { model: message.model, id: message.id },
    usage: usage === null ? null : [count(usage.input_tokens), count(usage.output_tokens), count(usage.cache_read_input_tokens), count(usage.cache_creation_input_tokens)],
    toolResult: blocks.some((b) => b.type === 'tool_result'),
    text: blocks.some((b) => b.type === 'text'),
  };
}

/** The engine's verdict as show's read judges a line (at any length), as the three JSON.parse gives. */
function wholeVerdict(bytes: Buffer): string {
  const { verdict } = judgeLine(bytes, true)!;
  // A line left to JSON.parse (nested deeper than the engine tracks, an escaped key) is judged by it.
  if (verdict === 'parse') return parseVerdict(bytes);
  return verdict === 'fields' ? 'object' : verdict;
}

/** Every verdict the engine gives on `bytes` and on each of its prefixes, against JSON.parse's (show's judging too, at any length). */
function expectSameVerdicts(bytes: Buffer, label: string, step = 1): number {
  let judged = 0;
  for (let cut = bytes.length; cut >= 0; cut -= cut === bytes.length ? 1 : step) {
    const line = bytes.subarray(0, cut);
    if (line.includes(0x0a)) continue;
    const whole = cut === bytes.length || (line.length >= 4096 && cut % Math.ceil(bytes.length / 16) < step);
    if (line.length >= 4096 && !whole) continue;
    const expected = parseVerdict(line);
    if (line.length < 4096) expect(nativeVerdict(line), `${label} cut at ${cut}: ${line.toString('utf8').slice(0, 120)}`).toBe(expected);
    // Show's judging (the same pass on a short line): the whole line, and some 16 of a long line's long prefixes.
    if (whole) expect(wholeVerdict(line), `${label} cut at ${cut}, whole: ${line.toString('utf8').slice(0, 120)}`).toBe(expected);
    judged++;
  }
  return judged;
}

async function claudeFixtureLines(): Promise<Buffer[]> {
  const files = (await readdir(FIXTURES, { recursive: true })).filter((name) => name.includes('claude') && name.endsWith('.jsonl'));
  const lines: Buffer[] = [];
  for (const name of files) lines.push(...(await rawLines(join(FIXTURES, name))));
  return lines;
}

const b = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('the native line fields', () => {
  it('is built where it must be (CI sets SESSIONS_REQUIRE_NATIVE=1)', () => {
    if (process.env.SESSIONS_REQUIRE_NATIVE === '1') expect(built).toBe(true);
  });

  it.skipIf(!built)("judges every line as JSON.parse does: grammar, escapes, control characters, UTF-8, depth", () => {
    const emoji = b('{"type":"user","text":"😀 done"}');
    const cases: Buffer[] = [
      b(''), b('   '), b('\t \r'), b('{}'), b(' { } '), b('{}\r'), b('{\r\n}'.replace('\n', ' ')), b('[]'), b('null'), b('1'), b('"s"'), b('true'),
      b('{"a":1,}'), b('{,"a":1}'), b('{"a" 1}'), b('{"a":1 "b":2}'), b('{"a":1}}'), b('{"a":1} x'), b('{"a":[1,]}'), b('{"a":[,1]}'), b('{a:1}'), b("{'a':1}"),
      // numbers
      ...['0', '-0', '01', '-01', '1.', '.5', '1.5', '-', '1e', '1e+', '1e-3', '1E5', '2.5e-3', '+1', '0x10', 'NaN', 'Infinity', '1.0e+999', '00', '-.5', '1..2', '1e5.5', '123456789012345678901234567890'].map((n) => b(`{"n":${n}}`)),
      // literals
      ...['true', 'false', 'null', 'tru', 'True', 'nul', 'falsey', 'undefined'].map((l) => b(`{"v":${l}}`)),
      // escapes, lone surrogates in \u escapes
      ...['\\"', '\\\\', '\\/', '\\b\\f\\n\\r\\t', '\\u00e9', '\\uD800', '\\uDC00x', '\\uD83D\\uDE00', '\\u12', '\\u12G4', '\\x41', '\\a', '\\', '\\u', "\\'"].map((e) => b(`{"s":"${e}"}`)),
      b('{"t\\u0079pe":"user","uuid":"u"}'), b('{"type":"us\\u0065r"}'),
      // control characters raw in strings and outside them
      ...[0x00, 0x01, 0x09, 0x0d, 0x1f, 0x7f].map((c) => Buffer.concat([b('{"s":"a'), Buffer.from([c]), b('b"}')])),
      Buffer.concat([b('{"s":1,'), Buffer.from([0x0b]), b('"t":2}')]), Buffer.concat([b('{"s":1,'), Buffer.from([0x0c]), b('"t":2}')]),
      // invalid UTF-8: U+FFFD in a string is valid, outside a string it is not; a BOM is not whitespace
      Buffer.concat([b('{"s":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]), b('"}')]),
      Buffer.concat([b('{"s":"'), Buffer.from([0xe2, 0x82]), b('"}')]),
      Buffer.concat([b('{"s":"x"'), Buffer.from([0xc2, 0xa0]), b('}')]),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('{"s":1}')]),
      Buffer.concat([b('{"s":1}'), Buffer.from([0x80])]),
      // duplicate keys: the last wins
      b('{"type":"user","type":"assistant","uuid":"a","uuid":"b","message":{"model":"m1"},"message":{"model":"m2","id":"x","usage":{"input_tokens":1,"input_tokens":7}}}'),
      // nesting
      b(`{"d":${'['.repeat(1500)}${']'.repeat(1500)}}`), b(`{"d":${'['.repeat(1500)}${']'.repeat(1499)}}`), b(`{"d":${'{"a":'.repeat(600)}1${'}'.repeat(600)}}`),
      emoji,
    ];
    let judged = 0;
    for (const line of cases) judged += expectSameVerdicts(line, 'case');
    expect(judged).toBeGreaterThan(100);
    // A line cut inside the emoji (4 bytes) at each of its bytes: a string cut open is malformed, closed it is valid.
    const at = emoji.indexOf(0xf0);
    for (let k = 1; k < 4; k++) {
      const cut = Buffer.concat([emoji.subarray(0, at + k), emoji.subarray(at + 4)]);
      expect(nativeVerdict(cut)).toBe(parseVerdict(cut));
      expect(nativeVerdict(cut)).toBe('object');
    }
    expect(nativeVerdict(b(`{"d":${'['.repeat(2100)}${']'.repeat(2100)}}`))).toBe('big');
    // Show's judging takes lines of any length: long strings, deep nesting past what it tracks (left to JSON.parse).
    const long = b(`{"type":"attachment","uuid":"u","attachment":{"content":"${'x\\n'.repeat(300000)}"}}`);
    expect(judgeLine(long, true)!.verdict).toBe('fields');
    expect(judgeLine(long.subarray(0, long.length - 3), true)!.verdict).toBe('malformed');
    for (const depth of [4000, 4096, 4097, 4098, 9000]) {
      const deep = b(`{"uuid":"u","d":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect(wholeVerdict(deep), `depth ${depth}`).toBe('object');
      expect(wholeVerdict(deep.subarray(0, deep.length - 2)), `depth ${depth} cut`).toBe('malformed');
      expect(wholeVerdict(Buffer.concat([deep.subarray(0, deep.length - 2), b(',]}')])), `depth ${depth} changed`).toBe('malformed');
    }
    expect(judgeLine(b(`{"uuid":"u","d":${'['.repeat(4000)}${']'.repeat(4000)}}`), true)!.verdict).toBe('fields');
    expect(judgeLine(b(`{"uuid":"u","d":${'['.repeat(9000)}${']'.repeat(9000)}}`), true)!.verdict).toBe('parse');
  });

  it.skipIf(!built)('judges every Claude fixture line, every prefix of it and every byte of it changed, as JSON.parse does', async () => {
    const lines = await claudeFixtureLines();
    expect(lines.length).toBeGreaterThan(400);
    let judged = 0;
    // A fixed sequence (no randomness between runs): each line with some byte replaced by a structural one.
    const swaps = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x00, 0x0d, 0x20, 0x31, 0x2d, 0x65, 0x2e, 0xf0, 0x75];
    let seed = 7;
    for (const [index, line] of lines.entries()) {
      judged += expectSameVerdicts(line, `fixture line ${index}`, line.length > 600 ? 7 : 1);
      for (let k = 0; k < 24 && line.length > 0; k++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const mutated = Buffer.from(line);
        mutated[seed % line.length] = swaps[(seed >>> 8) % swaps.length]!;
        const expected = parseVerdict(mutated);
        if (mutated.length < 4096) expect(nativeVerdict(mutated), `fixture line ${index} changed at ${seed % line.length}`).toBe(expected);
        expect(wholeVerdict(mutated), `fixture line ${index} changed at ${seed % line.length}, whole`).toBe(expected);
        judged++;
      }
    }
    expect(judged).toBeGreaterThan(20000);
  }, 60_000);

  it.skipIf(!built)('hands back the fields of a line it describes as the parsed line holds them, and leaves prompts and titles to JS', async () => {
    const lines = [
      ...(await claudeFixtureLines()),
      b('{"type":"assistant","uuid":"a\\"1","parentUuid":null,"timestamp":1700000000000,"sessionId":"s","cwd":"/é","isSidechain":true,"isMeta":false,"message":{"id":"m","model":"claude","usage":{"input_tokens":-0,"output_tokens":"9","cache_read_input_tokens":5,"cache_creation_input_tokens":null}}}'),
      b('{"type":"assistant","uuid":"a","message":{"usage":{"input_tokens":1.5}}}'),
      b('{"type":"assistant","uuid":"a","message":{"usage":{"input_tokens":1e3}}}'),
      b('{"type":"assistant","uuid":"a","message":{"usage":{"input_tokens":123456789012345678}}}'),
      b('{"type":"assistant","uuid":"a","message":"text","message":{"model":{"x":1},"usage":[1]}}'),
      b('{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}'),
      b('{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result"},{"type":"text","text":"/init"}]}}'),
      b('{"type":"user","uuid":"u","message":{"content":[{"type":"text","type":"tool_result"}]}}'),
      b('{"type":"user","uuid":"u","message":{"content":"a prompt"}}'),
      b('{"type":"user","uuid":"u","message":{"content":"<command-name>/init</command-name>\\n"},"origin":{"kind":"task"},"origin":{"kind":"human","x":1}}'),
      b('{"type":"user","uuid":"u","message":{"content":"a prompt","content":[{"type":"text","text":"b"}]}}'),
      b('{"type":"user","uuid":"u","message":{"content":["x"]},"origin":[]}'),
      b('{"type":"user","uuid":"u","isMeta":true,"message":{"content":"\\u003clocal-command-caveat>"},"origin":{}}'),
      b('{"type":"last-prompt","lastPrompt":"fix the \\"bug\\"","sessionId":"s"}'),
      b('{"type":"ai-title","aiTitle":"t"}'),
      b('{"type":7,"uuid":"u"}'),
      b('{"uuid":"u","parentUuid":"p","timestamp":{"a":1},"gitBranch":false}'),
    ];
    let described = 0;
    for (const line of lines) {
      if (parseVerdict(line) !== 'object' || line.length >= 4096) continue;
      const judged = judgeLine(line)!;
      const parsed = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
      const type = parsed.type;
      const blocks = foldView(parsed) as { toolResult: boolean; text: boolean };
      // Titles, names and content blocks with text are parsed whole; a prompt written as one string is handed back.
      const message = parsed.message as Record<string, unknown> | null | undefined;
      const stringContent = message !== null && typeof message === 'object' && !Array.isArray(message) && typeof message.content === 'string';
      if ((type !== undefined && typeof type !== 'string') || ['custom-title', 'agent-name', 'ai-title', 'summary'].includes(type as string) || (type === 'user' && !stringContent && (!blocks.toolResult || blocks.text))) {
        expect(judged.verdict, line.toString().slice(0, 120)).toBe('parse');
        continue;
      }
      if (judged.verdict === 'parse') continue;
      expect(judged.verdict).toBe('fields');
      expect(foldView(judged.value!), line.toString().slice(0, 200)).toEqual({ ...(foldView(parsed) as object), text: false });
      described++;
    }
    expect(described).toBeGreaterThan(200);
  });
});

describe('a fold fed by the native engine', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-native-fold-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The scan a file folds to, with or without the engine, as plain JSON. */
  async function folded(path: string, native: boolean): Promise<unknown> {
    const scan = new ClaudeScan(true);
    const stats = newLineStats();
    const file = await foldLines(path, 0, (line) => addIndexLine(scan, line, stats), native ? nativeIndexBatch(scan, stats) : undefined);
    return JSON.parse(JSON.stringify({ scan: { ...scan, nodes: [...scan.nodes], usage: [...scan.usageById] }, chain: scan.activeChain().map((n) => n.uuid), stats, end: file.end }));
  }

  it.skipIf(!built)('ends where the fold without it ends, for every Claude fixture and for lines cut, changed and doubled', async () => {
    const files = (await readdir(FIXTURES, { recursive: true })).filter((name) => name.includes('claude') && name.endsWith('.jsonl'));
    const lines = await claudeFixtureLines();
    // One file of every fixture line, each also cut in half, with a byte changed, with CRLF, and blank lines between.
    const mixed: Buffer[] = [];
    for (const [index, line] of lines.entries()) {
      mixed.push(line, line.subarray(0, line.length >> 1));
      const changed = Buffer.from(line);
      if (changed.length > 0) changed[(index * 31) % changed.length] = [0x22, 0x7d, 0x5c, 0x2c][index % 4]!;
      mixed.push(changed, Buffer.concat([line, b('\r')]), b(index % 5 === 0 ? '  ' : ''));
    }
    const mixedPath = join(dir, 'mixed.jsonl');
    await writeFile(mixedPath, Buffer.concat(mixed.flatMap((line) => [line, b('\n')])));
    // Big enough to be read in several chunks (lines cross chunk boundaries).
    const bigPath = join(dir, 'big.jsonl');
    const repeated: Buffer[] = [];
    for (let size = 0; size < 3.5 * (1 << 20); ) {
      for (const line of lines) {
        repeated.push(line, b('\n'));
        size += line.length + 1;
      }
    }
    await writeFile(bigPath, Buffer.concat(repeated));
    for (const path of [...files.map((name) => join(FIXTURES, name)), mixedPath, bigPath]) {
      expect(await folded(path, true), path).toEqual(await folded(path, false));
    }
    const stats = ((await folded(mixedPath, true)) as { stats: { malformed: number } }).stats;
    expect(stats.malformed).toBeGreaterThan(100);
  });
});

/**
 * What show's one-pass fold (LinearFold in stream.ts, ClaudeMessageFold, isClaudeUserTurn) reads of a line: nothing of
 * a line with no uuid, a system line whole, of a user line or an answer its flags, time, origin's kind and message's id
 * and content, and of any other line its uuid, type, parent and two flags, as the fold reads them.
 */
function linearView(value: Record<string, unknown>): unknown {
  if (typeof value.uuid !== 'string' || value.uuid.length === 0) return null;
  if (value.type === 'system') return value;
  const record = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  const node = {
    uuid: value.uuid,
    type: typeof value.type === 'string' ? value.type : '',
    parentUuid: typeof value.parentUuid === 'string' && value.parentUuid.length > 0 ? value.parentUuid : null,
    isSidechain: value.isSidechain === true,
    isMeta: value.isMeta === true,
  };
  if (value.type !== 'user' && value.type !== 'assistant') return node;
  const origin = record(value.origin);
  const message = record(value.message);
  return {
    ...node,
    isCompactSummary: value.isCompactSummary === true,
    timestamp: value.timestamp,
    origin: origin === null ? null : { kind: origin.kind },
    message: message === null ? null : { id: message.id, content: message.content },
  };
}

describe("show's reading of a file's lines", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-show-lines-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Each line's offset and what the one-pass fold reads of it, and the lines counted malformed and partial. */
  async function read(path: string, how: 'native' | 'js' | 'parsed'): Promise<{ lines: [number, unknown][]; malformed: number; partial: number }> {
    const stats = newLineStats();
    const lines: [number, unknown][] = [];
    const keep = (offset: number, value: Record<string, unknown>): void => {
      const view = linearView(value);
      if (view !== null) lines.push([offset, view]);
    };
    if (how === 'parsed') {
      for await (const batch of readLineBatches(path)) for (const line of jsonObjects(batch, stats)) keep(line.offset, line.value);
    } else {
      const readChunk = showLineReader(stats, how === 'native');
      for await (const chunk of readLineChunks(path, { reuseChunk: true, chunkSize: 1 << 16 })) readChunk(chunk, keep);
    }
    return { lines, ...stats };
  }

  it('hands the fold what parsing every line gives it, for every Claude fixture line, cut, changed, long and doubled', async () => {
    const lines = await claudeFixtureLines();
    const mixed: Buffer[] = [];
    for (const [index, line] of lines.entries()) {
      mixed.push(line, line.subarray(0, line.length >> 1));
      const changed = Buffer.from(line);
      if (changed.length > 0) changed[(index * 31) % changed.length] = [0x22, 0x7d, 0x5c, 0x2c, 0x5b][index % 5]!;
      mixed.push(changed, Buffer.concat([line, b('\r')]), b(index % 5 === 0 ? '  ' : ''));
    }
    mixed.push(
      b(`{"type":"attachment","uuid":"big","parentUuid":"p","isMeta":true,"attachment":{"content":"${'y'.repeat(200000)}"}}`),
      b(`{"type":"attachment","uuid":"big2","attachment":{"content":"${'y'.repeat(200000)}`),
      b(`{"type":"progress","uuid":"deep","d":${'['.repeat(5000)}${']'.repeat(5000)}}`),
      b('{"type":"attachment","uuid":"","parentUuid":"p"}'),
      b('{"type":"attachment","uuid":7,"parentUuid":"p"}'),
      b('{"type":"attachment","uuid":"after-7","parentUuid":7}'),
      b('{"type":"attachment","uuid":"","parentUuid":"p"}'),
      b('{"type":"user","uuid":"after-empty","parentUuid":"","message":{"content":"x"}}'),
      b('{"type":"user","uuid":"after-user","parentUuid":"after-empty","message":{"content":"y"}}'),
      b('{"type":"attachment","u\\u0075id":"esc-key","parentUuid":"p"}'),
      b('{"type":"att\\u0061chment","uuid":"esc\\u0041","parentUuid":"p\\"q","isSidechain":true,"isSidechain":false}'),
      b('{"type":"us\\u0065r","uuid":"u1","message":{"content":"hi"}}'),
      b('{"type":"user","uuid":"u3","timestamp":17,"origin":{"kind":7},"origin":{"kind":"task"},"message":{"content":[{"type":"text","text":"a"}],"id":"x","content":[{"type":"tool_result","content":[{"type":"text","text":"\\u00e9"}],"is_error":true}]},"isCompactSummary":true}'),
      b('{"type":"user","uuid":"u4","origin":"human","message":"text","isMeta":true,"isSidechain":true}'),
      b('{"type":"user","uuid":"u5","message":{"content":{"not":"an array"}},"message":{"id":{"a":[1,2.50,-0]},"content":null}}'),
      b('{"type":"assistant","uuid":"a1","message":{"id":"m\\"1","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"n":1.0e2,"s":"\\ud83d\\ude00","deep":[[[{}]]]}}],"usage":{"input_tokens":1.5}}}'),
      b('{"type":"assistant","uuid":"a2","message":{"content":"plain","content":"again \\t"},"timestamp":"2026-01-01T00:00:00Z"}'),
      b('{"type":["user"],"uuid":"u2","parentUuid":null,"isMeta":true}'),
      b('{"type":"system","uuid":"s1","subtype":"compact_boundary"}'),
      b('{"uuid":"no-type","parentUuid":""}'),
      b('[{"uuid":"array"}]'),
      b('{"type":"attachment","uuid":"last-unterminated"'),
    );
    const path = join(dir, 'mixed.jsonl');
    await writeFile(path, Buffer.concat(mixed.flatMap((line, i) => (i === mixed.length - 1 ? [line] : [line, b('\n')]))));
    const expected = await read(path, 'parsed');
    expect(expected.malformed).toBeGreaterThan(100);
    expect(expected.partial).toBe(1);
    expect(await read(path, 'js')).toEqual(expected);
    if (built) expect(await read(path, 'native')).toEqual(expected);
  });
});
