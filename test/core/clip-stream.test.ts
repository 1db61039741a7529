// The streaming clipper (a line of hundreds of MB clipped as it is read) on random JSON cut into random chunks: the
// result is valid JSON, every short string is whole, every long one is a prefix of the original ended by a mark that
// counts exactly the bytes left out, and nothing is held but what is kept.
import { describe, expect, it } from 'vitest';
import { takeClipMarks } from '../../src/core/io/clip.js';
import { StreamingClipper } from '../../src/core/io/clip-stream.js';

/** A small deterministic generator (the cases are the same on every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = ['a', 'b', ' ', '\n', '"', '\\', '/', '\t', 'é', '项', '🙂', '\u0001', '\u2028', 'x'.repeat(7)];

function text(next: () => number, length: number): string {
  let out = '';
  while (out.length < length) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 2 || pick < 0.45) return text(next, Math.floor(next() * (next() < 0.3 ? 400 : 40)));
  if (pick < 0.55) return Math.floor(next() * 1000);
  if (pick < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, k) => [`k${k}${text(next, 3)}`, value(next, depth + 1)]));
}

/** The clipped value against the original: same shape; each string whole, or a prefix with the mark's byte count. */
function check(clipped: unknown, original: unknown, keep: number): void {
  if (typeof original === 'string') {
    expect(typeof clipped).toBe('string');
    const { text: shown, clippedBytes } = takeClipMarks(clipped as string);
    if (clippedBytes === 0) {
      expect(shown).toBe(original);
      return;
    }
    const prefix = shown.slice(0, -1); // the mark became '…'
    expect(original.startsWith(prefix)).toBe(true);
    const encoded = (s: string): number => Buffer.byteLength(JSON.stringify(s)) - 2;
    expect(encoded(prefix)).toBeGreaterThanOrEqual(keep);
    expect(encoded(prefix) + clippedBytes).toBe(encoded(original));
    return;
  }
  if (Array.isArray(original)) {
    expect((clipped as unknown[]).length).toBe(original.length);
    original.forEach((item, k) => check((clipped as unknown[])[k], item, keep));
    return;
  }
  if (original !== null && typeof original === 'object') {
    const entries = Object.entries(original);
    expect(Object.keys(clipped as object)).toHaveLength(entries.length);
    for (const [key, item] of entries) {
      const clippedKey = Object.keys(clipped as object).find((one) => takeClipMarks(one).text === key || key.startsWith(takeClipMarks(one).text.slice(0, -1)));
      expect(clippedKey).toBeDefined();
      check((clipped as Record<string, unknown>)[clippedKey!], item, keep);
    }
    return;
  }
  expect(clipped).toEqual(original);
}

describe('StreamingClipper', () => {
  it('clips every long string of random JSON fed in random chunks, and nothing else', () => {
    let clippedStrings = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const original = value(next, 0);
      const bytes = Buffer.from(JSON.stringify(original));
      const keep = 1 + Math.floor(next() * 60);
      const clipper = new StreamingClipper(keep);
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + Math.floor(next() * 50);
        clipper.push(bytes.subarray(at, at + size));
        at += size;
      }
      const out = clipper.end();
      let parsed: unknown;
      expect(() => (parsed = JSON.parse(out.toString('utf8'))), `seed ${seed}: ${out.toString('utf8').slice(0, 400)}`).not.toThrow();
      check(parsed, original, keep);
      clippedStrings += (out.toString('utf8').match(/\\u0000\d+\\u0000/g) ?? []).length;
    }
    // The cases do cut strings (hundreds of them), not only pass short ones through.
    expect(clippedStrings).toBeGreaterThan(200);
  });

  it('holds only what it keeps of a 64 MiB string', () => {
    const clipper = new StreamingClipper(1024);
    clipper.push(Buffer.from('{"type":"tool_result","output":"'));
    const chunk = Buffer.alloc(1 << 20, 'y');
    for (let k = 0; k < 64; k++) clipper.push(chunk);
    clipper.push(Buffer.from('","done":true}'));
    expect(clipper.heldBytes).toBeLessThan(4096);
    const parsed = JSON.parse(clipper.end().toString('utf8')) as { output: string; done: boolean };
    expect(parsed.done).toBe(true);
    expect(takeClipMarks(parsed.output)).toEqual({ text: `${'y'.repeat(1024)}…`, clippedBytes: 64 * (1 << 20) - 1024 });
  });
});

describe('a giant line clipped twice (read clipped, then cut for a screen)', () => {
  it('counts, in the screen cut, the bytes the read left out', async () => {
    const { clipJsonStrings } = await import('../../src/core/io/clip.js');
    const clipper = new StreamingClipper(1024);
    clipper.push(Buffer.from(`{"output":"${'y'.repeat(100_000)}"}`));
    const read = clipper.end();
    expect(takeClipMarks((JSON.parse(read.toString()) as { output: string }).output).clippedBytes).toBe(100_000 - 1024);
    const screen = clipJsonStrings(read, { text: 64, other: 64 });
    expect(takeClipMarks((JSON.parse(screen.toString()) as { output: string }).output)).toEqual({ text: `${'y'.repeat(64)}…`, clippedBytes: 100_000 - 64 });
  });
});
