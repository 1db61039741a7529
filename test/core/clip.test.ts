import { describe, expect, it } from 'vitest';
import { clipJsonStrings, clipRawLine, takeClipMarks, unmarkMessages, type ClipLimits } from '../../src/core/io/clip.js';
import { jsonObjects, newLineStats } from '../../src/core/io/lines.js';
import type { Message } from '../../src/core/model.js';

// eslint-disable-next-line no-control-regex -- the clip mark
const MARK = /\u0000(\d+)\u0000$/;

/** Parse a clipped line and check every string against the original: whole, or a prefix plus the bytes left out. */
function expectFaithfulClip(original: unknown, clipped: Buffer, writtenByStringify = true): number {
  const parsed: unknown = JSON.parse(clipped.toString('utf8'));
  expect(clipped.toString('utf8')).not.toContain('\uFFFD');
  let cutBytes = 0;
  const walk = (a: unknown, b: unknown): void => {
    if (typeof a === 'string' && typeof b === 'string') {
      const mark = MARK.exec(b);
      if (!mark) {
        expect(b).toBe(a);
        return;
      }
      const kept = b.slice(0, mark.index);
      expect(a.startsWith(kept)).toBe(true);
      // The count is of encoded bytes: what JSON.stringify wrote for the original minus what was kept.
      const encoded = (s: string): number => Buffer.byteLength(JSON.stringify(s)) - 2;
      if (writtenByStringify) expect(Number(mark[1])).toBe(encoded(a) - encoded(kept));
      cutBytes += Number(mark[1]);
      return;
    }
    if (Array.isArray(a)) {
      expect(Array.isArray(b)).toBe(true);
      expect((b as unknown[]).length).toBe(a.length);
      a.forEach((item, i) => walk(item, (b as unknown[])[i]));
      return;
    }
    if (a !== null && typeof a === 'object') {
      expect(Object.keys(b as object)).toEqual(Object.keys(a));
      for (const [key, value] of Object.entries(a)) walk(value, (b as Record<string, unknown>)[key]);
      return;
    }
    expect(b).toEqual(a);
  };
  walk(original, parsed);
  return cutBytes;
}

const limits = (other: number, text = other): ClipLimits => ({ text, other });

describe('clipJsonStrings', () => {
  it('returns the very same buffer when no string is long', () => {
    const line = Buffer.from(JSON.stringify({ type: 'message', text: 'short', n: 3 }));
    expect(clipJsonStrings(line, limits(64))).toBe(line);
    const long = Buffer.from(JSON.stringify({ a: 'x'.repeat(60), b: 'y'.repeat(60) }));
    expect(clipJsonStrings(long, limits(64))).toBe(long);
  });

  it('cuts a long value to the limit and counts what it left out', () => {
    const value = { type: 'function_call_output', call_id: 'c1', output: 'abcdefghij'.repeat(1000) };
    const clipped = clipJsonStrings(Buffer.from(JSON.stringify(value)), limits(100));
    expect(clipped.length).toBeLessThan(200);
    const parsed = JSON.parse(clipped.toString()) as typeof value;
    expect(parsed.type).toBe('function_call_output');
    expect(parsed.call_id).toBe('c1');
    expect(parsed.output.startsWith('abcdefghij'.repeat(10))).toBe(true);
    expect(takeClipMarks(parsed.output)).toEqual({ text: `${'abcdefghij'.repeat(10)}…`, clippedBytes: 9900 });
  });

  it('never cuts inside an escape sequence, whatever the limit', () => {
    const text = 'a\\"b\\\\"\n\t\u0001"q\\u0041\\'.repeat(40);
    const value = { output: text, after: 'kept "as is"' };
    const line = Buffer.from(JSON.stringify(value));
    for (let limit = 10; limit < 60; limit++) expect(expectFaithfulClip(value, clipJsonStrings(line, limits(limit)))).toBeGreaterThan(0);
  });

  it('keeps \\u escapes whole and never leaves half of a surrogate pair', () => {
    // As some writers escape everything outside ASCII.
    const line = Buffer.from(`{"output":"${'x\\u00e9\\ud83d\\ude00\\u4e2d'.repeat(30)}"}`);
    const original = JSON.parse(line.toString()) as { output: string };
    for (let limit = 8; limit < 50; limit++) {
      const clipped = clipJsonStrings(line, limits(limit));
      expectFaithfulClip(original, clipped, false);
      const kept = (JSON.parse(clipped.toString()) as { output: string }).output.replace(MARK, '');
      expect(kept.at(-1)!.charCodeAt(0) >= 0xd800 && kept.at(-1)!.charCodeAt(0) <= 0xdbff).toBe(false);
    }
  });

  it('cuts multi-byte UTF-8 only between characters', () => {
    const value = { text: 'é中😀a'.repeat(100) };
    const line = Buffer.from(JSON.stringify(value));
    for (let limit = 4; limit < 40; limit++) expectFaithfulClip(value, clipJsonStrings(line, limits(limit)));
  });

  it('clips every long string of a nested line and leaves keys, numbers and short strings alone', () => {
    const value = {
      timestamp: '2026-01-01T00:00:00Z',
      type: 'response_item',
      payload: {
        type: 'message',
        content: [
          { type: 'output_text', text: 'T'.repeat(500) },
          { type: 'output_text', text: 'short' },
          { type: 'input_image', image_url: `data:image/png;base64,${'A'.repeat(3000)}` },
        ],
        nested: { deeper: [['x'.repeat(300), 7, null, true]] },
      },
      ordinal: 12,
    };
    const clipped = clipJsonStrings(Buffer.from(JSON.stringify(value)), limits(50, 200));
    const parsed = JSON.parse(clipped.toString()) as typeof value;
    // `"text"` values get the text limit, other strings the lower one.
    expect(takeClipMarks(parsed.payload.content[0]!.text!).text).toBe(`${'T'.repeat(200)}…`);
    expect(takeClipMarks(parsed.payload.content[2]!.image_url!).text.length).toBe(51);
    expect(expectFaithfulClip(value, clipped)).toBe(300 + 3022 - 50 + 300 - 50);
  });

  it('leaves a line whose string does not end untouched, so the parse still reports it', () => {
    const partial = Buffer.from(`{"type":"response_item","payload":{"output":"${'x'.repeat(500)}`);
    expect(clipJsonStrings(partial, limits(50))).toBe(partial);
    const stats = newLineStats();
    const raw = clipRawLine({ offset: 0, bytes: partial, terminated: true }, limits(50));
    expect([...jsonObjects([raw], stats)]).toEqual([]);
    expect(stats.malformed).toBe(1);
  });

  it('gives a clipped line memory of its own', () => {
    const chunk = Buffer.from(`{"a":"b"}\n{"c":"${'d'.repeat(100)}"}\n`);
    const short = clipRawLine({ offset: 0, bytes: chunk.subarray(0, 9), terminated: true }, limits(50));
    expect(short.bytes.buffer === chunk.buffer && short.bytes.byteOffset === chunk.byteOffset).toBe(false);
    expect(short.bytes.toString()).toBe('{"a":"b"}');
  });
});

describe('unmarkMessages', () => {
  it('moves clip marks out of every kind of block into clippedBytes', () => {
    const mark = (n: number): string => `\u0000${n}\u0000`;
    const messages: Message[] = [
      { role: 'assistant', userTurn: false, blocks: [{ type: 'text', text: `long${mark(10)}` }, { type: 'text', text: 'whole' }] },
      { role: 'assistant', userTurn: false, blocks: [{ type: 'tool_use', id: 'c', name: 'exec', input: JSON.stringify({ cmd: `x${mark(5)}` }) }] },
      { role: 'tool', userTurn: false, blocks: [{ type: 'tool_result', toolUseId: 'c', output: `a${mark(7)}\nb${mark(8)}`, isError: false }] },
      { role: 'assistant', userTurn: false, blocks: [{ type: 'reasoning', summary: `r${mark(3)}`, encrypted: true }] },
      { role: 'system', userTurn: false, blocks: [{ type: 'compaction', summary: `c${mark(2)}` }] },
    ];
    const out = unmarkMessages(messages);
    expect(out.map((m) => m.blocks)).toEqual([
      [{ type: 'text', text: 'long…', clippedBytes: 10 }, { type: 'text', text: 'whole' }],
      [{ type: 'tool_use', id: 'c', name: 'exec', input: '{"cmd":"x…"}', clippedBytes: 5 }],
      [{ type: 'tool_result', toolUseId: 'c', output: 'a…\nb…', isError: false, clippedBytes: 15 }],
      [{ type: 'reasoning', summary: 'r…', encrypted: true, clippedBytes: 3 }],
      [{ type: 'compaction', summary: 'c…', clippedBytes: 2 }],
    ]);
    const untouched: Message = { role: 'user', userTurn: true, blocks: [{ type: 'text', text: 'hi' }] };
    expect(unmarkMessages([untouched])[0]).toBe(untouched);
  });
});
