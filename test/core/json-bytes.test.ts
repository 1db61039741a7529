import { describe, expect, it } from 'vitest';

import {
  backslashesBefore,
  decodeScalar,
  KeyNames,
  walkArray,
  decodeString,
  keyIs,
  memberSpan,
  nestedEnd,
  parseSpan,
  stringEnd,
  topLevelScalars,
  topLevelSpan,
  topLevelStringSpans,
  unescapedQuoteBefore,
  unescapedQuoteFrom,
  valueEnd,
  walkObject,
} from '../../src/core/io/json-bytes.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const text = (buf: Buffer, span: { start: number; end: number } | null): string | null => (span === null ? null : buf.toString('utf8', span.start, span.end));

/** Values whose encodings hold every trap: escaped quotes and backslashes, braces and brackets in strings, non-ASCII. */
const TRICKY_STRINGS = [
  '',
  'plain',
  'a "quoted" word',
  'ends with a backslash \\',
  '\\\\"',
  '} ] { [ , : "',
  '{"type":"user","nested":"json in a string"}',
  'line\nbreak\ttab\r',
  'été — 日本語 — 🎉 (a surrogate pair)',
  '\u0000\u001f control',
  '\\u0041 is not an escape here',
];

describe('strings', () => {
  it.each(TRICKY_STRINGS)('finds where %j ends and decodes it', (value) => {
    const encoded = JSON.stringify(value);
    const line = bytes(`${encoded},"next":1`);
    const end = stringEnd(line, 0);
    expect(end).toBe(Buffer.byteLength(encoded));
    expect(decodeString(line, 0, end)).toBe(value);
    expect(valueEnd(line, 0)).toBe(end);
  });

  it('decodes \\u escapes, surrogate pairs and invalid UTF-8 as JSON.parse does', () => {
    const line = bytes('"\\u00e9\\ud83c\\udf89\\/"');
    expect(decodeString(line, 0, line.length)).toBe('é🎉/');
    const invalid = Buffer.concat([bytes('"a'), Buffer.from([0xff, 0xfe]), bytes('b"')]);
    expect(decodeString(invalid, 0, invalid.length)).toBe(JSON.parse(invalid.toString('utf8')));
  });

  it('refuses what is not a string: a raw control character, an unescaped quote, a bad escape', () => {
    for (const raw of ['"a\nb"', '"a"b"', '"\\x"', '"\\u12"', 'nope', '"']) {
      const line = bytes(raw);
      expect(decodeString(line, 0, line.length), raw).toBeNull();
    }
  });

  it('reports a string cut short (-1), however many backslashes precede the end', () => {
    for (const raw of ['"abc', '"abc\\"', '"abc\\\\\\"', '"', '"\\']) expect(stringEnd(bytes(raw), 0), raw).toBe(-1);
    expect(stringEnd(bytes('"abc\\\\"'), 0)).toBe(7);
  });

  it('finds unescaped quotes forwards and backwards from the middle of a string', () => {
    const line = bytes('{"k":"say \\"hi\\" and \\\\","z":1}');
    const middle = line.indexOf('hi');
    const close = unescapedQuoteFrom(line, middle);
    expect(line.toString('utf8', close - 2, close + 1)).toBe('\\\\"');
    const open = unescapedQuoteBefore(line, middle);
    expect(open).toBe(5);
    expect(unescapedQuoteBefore(line, 5)).toBe(3);
    expect(unescapedQuoteBefore(line, 1)).toBe(-1);
    expect(unescapedQuoteBefore(line, middle, 6)).toBe(-1);
    expect(unescapedQuoteFrom(bytes('no quote here'), 0)).toBe(-1);
    expect(backslashesBefore(bytes('a\\\\\\"'), 4)).toBe(3);
    expect(backslashesBefore(bytes('a\\\\\\"'), 4, 2)).toBe(2);
  });
});

describe('values', () => {
  const nested = { a: [1, { b: '}]"' }, [], {}], c: { d: { e: 'ü\\' } }, f: null };

  it('steps over nested objects and arrays whose strings hold braces, brackets and quotes', () => {
    const encoded = JSON.stringify(nested);
    const line = bytes(`${encoded}  ,"after"`);
    expect(nestedEnd(line, 0)).toBe(Buffer.byteLength(encoded));
    expect(valueEnd(line, 0)).toBe(Buffer.byteLength(encoded));
    const array = bytes(JSON.stringify([nested, '[', ']']) + ']');
    expect(valueEnd(array, 0)).toBe(array.length - 1);
  });

  it.each([
    ['123,', 3],
    ['-1.5e+3}', 7],
    ['true]', 4],
    ['null ', 4],
    ['false', 5],
  ])('ends the scalar %j where the next token starts', (raw, end) => {
    expect(valueEnd(bytes(raw), 0)).toBe(end);
  });

  it('treats a scalar at the end of the bytes as cut short unless the bytes are final', () => {
    expect(valueEnd(bytes('12'), 0, true)).toBe(2);
    expect(valueEnd(bytes('12'), 0, false)).toBe(-1);
  });

  it('reports truncated nested values (-1), whatever the truncation cuts', () => {
    const encoded = JSON.stringify(nested);
    for (let cut = 1; cut < Buffer.byteLength(encoded); cut++) {
      expect(valueEnd(bytes(encoded).subarray(0, cut), 0), encoded.slice(0, cut)).toBe(-1);
    }
    expect(valueEnd(bytes(''), 0)).toBe(-1);
  });

  it('parses a span, undefined when it is not JSON', () => {
    const line = bytes('{"u":{"input_tokens":3},"x":[1,}');
    const span = topLevelSpan(bytes('{"u":{"input_tokens":3}}'), 'u');
    expect(parseSpan(bytes('{"u":{"input_tokens":3}}'), span!.start, span!.end)).toEqual({ input_tokens: 3 });
    expect(parseSpan(line, 29, 33)).toBeUndefined();
  });
});

describe('objects', () => {
  const value = {
    type: 'assistant',
    message: { id: 'msg_1', content: [{ type: 'text', text: '"uuid":"not-it" } {' }], usage: { input_tokens: 5 }, uuid: 'nested' },
    'k\u00e9y': 'non-ASCII key',
    'q"k': 'quoted key',
    uuid: 'u-1',
    n: 7,
    ok: true,
    none: null,
  };
  const line = bytes(JSON.stringify(value));

  it('walks the members in order with their key and value spans', () => {
    const seen: [string | null, unknown][] = [];
    const end = walkObject(line, 0, (keyStart, keyEnd, start, end) => {
      seen.push([decodeString(line, keyStart, keyEnd), JSON.parse(line.toString('utf8', start, end))]);
    });
    expect(end).toBe(line.length);
    expect(seen).toEqual(Object.entries(value));
  });

  it('stops when the visitor says so', () => {
    let visits = 0;
    expect(walkObject(line, 0, () => ++visits < 2)).toBe(0);
    expect(visits).toBe(2);
  });

  it('finds a top-level key without being fooled by nested keys or strings that look like keys', () => {
    expect(text(line, topLevelSpan(line, 'uuid'))).toBe('"u-1"');
    expect(text(line, topLevelSpan(line, 'kéy'))).toBe('"non-ASCII key"');
    expect(text(line, topLevelSpan(line, 'q"k'))).toBe('"quoted key"');
    expect(text(line, topLevelSpan(line, 'none'))).toBe('null');
    expect(topLevelSpan(line, 'id')).toBeNull();
    const message = topLevelSpan(line, 'message')!;
    expect(text(line, memberSpan(line, message.start, 'uuid'))).toBe('"nested"');
    expect(parseSpan(line, ...spanArgs(memberSpan(line, message.start, 'usage')))).toEqual({ input_tokens: 5 });
  });

  it('matches keys written with escapes, as JSON.parse reads them', () => {
    const escaped = bytes('{"\\u0075uid":"e-1","t\\"":2}');
    expect(text(escaped, topLevelSpan(escaped, 'uuid'))).toBe('"e-1"');
    expect(keyIs(escaped, 1, 12, 'uuid')).toBe(true);
    expect(keyIs(escaped, 1, 12, 'uuiD')).toBe(false);
    expect(keyIs(bytes('"uuid"'), 0, 6, 'uuid')).toBe(true);
    expect(keyIs(bytes('"uuid"'), 0, 6, 'uuids')).toBe(false);
    expect(text(escaped, topLevelSpan(escaped, 't"'))).toBe('2');
  });

  it('takes the last of repeated keys, as JSON.parse does', () => {
    const repeated = bytes('{"a":1,"b":{"a":2},"a":3}');
    expect(text(repeated, topLevelSpan(repeated, 'a'))).toBe('3');
    expect(topLevelStringSpans(bytes('{"s":"x","t":1,"s":"y","s":4}'), 's')).toEqual([
      { start: 5, end: 8 },
      { start: 19, end: 22 },
    ]);
  });

  it('tolerates whitespace between tokens and a CRLF ending', () => {
    const spaced = bytes(' { "a" : [ 1 , "]" ] ,\t"b" :  "x" } \r');
    expect(text(spaced, topLevelSpan(spaced, 'b'))).toBe('"x"');
    expect(topLevelScalars(spaced, new Set(['a', 'b']))).toEqual({ b: 'x' });
    expect(walkObject(bytes('{}'), 0, () => undefined)).toBe(2);
    expect(walkObject(bytes('{ }'), 0, () => undefined)).toBe(3);
  });

  it('finds nothing in an object that breaks off or is not an object', () => {
    for (let cut = 0; cut < line.length; cut++) {
      expect(topLevelSpan(line.subarray(0, cut), 'uuid'), `cut at ${cut}`).toBeNull();
      expect(topLevelScalars(line.subarray(0, cut), new Set(['type'])), `cut at ${cut}`).toBeNull();
    }
    for (const raw of ['[1,2]', '"s"', '{"a" 1}', '{a:1}', '{"a":1,}']) {
      expect(topLevelSpan(bytes(raw), 'a'), raw).toBeNull();
    }
    // A scalar is not checked while it is stepped over: what a caller takes, it parses, and that refuses it.
    const bad = bytes('{"a":1;"b":2}');
    expect(parseSpan(bad, ...spanArgs(topLevelSpan(bad, 'a')))).toBeUndefined();
  });

  it('decodes the top-level scalars asked for, stepping over objects and arrays', () => {
    expect(topLevelScalars(line, new Set(['type', 'uuid', 'n', 'ok', 'none', 'message', 'kéy', 'absent']))).toEqual({
      type: 'assistant',
      uuid: 'u-1',
      n: 7,
      ok: true,
      none: null,
      kéy: 'non-ASCII key',
    });
  });

  it('refuses a line whose kept scalar is not JSON, or with bytes after the object', () => {
    expect(topLevelScalars(bytes('{"n":12x,"t":"a"}'), new Set(['n']))).toBeNull();
    expect(topLevelScalars(bytes('{"n":1,"t":"a\tb"}'), new Set(['t']))).toBeNull();
    expect(topLevelScalars(bytes('{"n":1} trailing'), new Set(['n']))).toBeNull();
    // A value that is not kept is stepped over, not checked (the scan never parses what it skips).
    expect(topLevelScalars(bytes('{"n":1,"junk":12x}'), new Set(['n']))).toEqual({ n: 1 });
  });

  it('agrees with JSON.parse on every top-level string of real-looking lines', () => {
    const lines = [
      { parentUuid: null, isSidechain: false, message: { role: 'user', content: 'a \\"b\\" {c}' }, uuid: 'x', timestamp: '2026-01-01T00:00:00.000Z' },
      { type: 'session_meta', payload: { id: 'i', cwd: 'C:\\work\\"q" ü', base_instructions: { text: '}'.repeat(5000) } } },
      ...TRICKY_STRINGS.map((s, i) => ({ [`k${i}`]: s, [s]: i })),
    ];
    for (const value of lines) {
      const encoded = bytes(JSON.stringify(value));
      for (const [key, want] of Object.entries(value)) {
        const span = topLevelSpan(encoded, key);
        expect(span, key).not.toBeNull();
        expect(JSON.parse(encoded.toString('utf8', span!.start, span!.end))).toEqual(want);
      }
    }
  });
});

function spanArgs(span: { start: number; end: number } | null): [number, number] {
  if (span === null) throw new Error('no span');
  return [span.start, span.end];
}

describe('arrays, scalars and key names', () => {
  it('walks the elements of an array, whatever their strings hold, and refuses one cut short', () => {
    const array = bytes(JSON.stringify([{ type: 'text', text: '] }' }, 'a"]', 3, [null], true]));
    const seen: unknown[] = [];
    expect(walkArray(array, 0, (start, end) => void seen.push(JSON.parse(array.toString('utf8', start, end))))).toBe(array.length);
    expect(seen).toEqual(JSON.parse(array.toString('utf8')));
    for (let cut = 1; cut < array.length; cut++) expect(walkArray(array.subarray(0, cut), 0, () => undefined)).toBe(-1);
    expect(walkArray(bytes('[ ]'), 0, () => undefined)).toBe(3);
    expect(walkArray(bytes('[1,,2]'), 0, () => undefined)).toBe(-1);
    expect(walkArray(bytes('{}'), 0, () => undefined)).toBe(-1);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['null', null],
    ['-12.5e3', -12500],
    ['"été \\u00e9"', 'été é'],
    ['"\\u00e9"', 'é'],
    ['tru', undefined],
    ['nul', undefined],
    ['01', undefined],
    ['"a\tb"', undefined],
  ])('decodes the scalar %s as JSON.parse does', (raw, want) => {
    expect(decodeScalar(bytes(raw), 0, Buffer.byteLength(raw))).toEqual(want);
  });

  it('finds a key among names by its bytes, escaped keys included', () => {
    const names = new KeyNames(['type', 'uuid', 'cwd', 'message']);
    const line = bytes('{"type":1,"uuid":2,"uuiD":3,"\\u0063wd":4,"types":5,"m":6}');
    const found: (string | null)[] = [];
    walkObject(line, 0, (keyStart, keyEnd) => void found.push(names.find(line, keyStart, keyEnd)));
    expect(found).toEqual(['type', 'uuid', null, 'cwd', null, null]);
    expect(() => new KeyNames(['k\u00e9y'])).toThrow();
  });
});
