// The build's patch of Ink's output (scripts/ink-frame-caches.mjs): a frame's tokenized lines and widths are kept for
// the next frames (a keystroke changes a line or two of the screen), and what is kept is bounded, by the count of
// strings and by the count of tokenized characters (each an object of ~330 bytes: 20,000 lines of 160 columns held
// ~65 MB of the TUI after typing a few queries at 100k sessions).
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the build, without types
import { STYLED_CHARS_LIMIT, inkFrameCaches } from '../../scripts/ink-frame-caches.mjs';

interface Caches {
  readonly styledChars: Map<string, unknown>;
  readonly styledCharCount: number;
}
interface OutputLike {
  readonly caches: Caches;
  write(x: number, y: number, text: string, options: { transformers: never[] }): void;
  get(): { output: string };
}
type OutputClass = new (options: { width: number; height: number }) => OutputLike;

let dir: string;
let Output: OutputClass;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ink-frame-caches-'));
  const outfile = join(dir, 'output.mjs');
  const result = await build({
    // Ink exports no subpaths: its output.js beside its entry point.
    entryPoints: [join(dirname(createRequire(import.meta.url).resolve('ink')), 'output.js')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    plugins: [inkFrameCaches],
    logLevel: 'silent',
  });
  // A patch that no longer applies (Ink changed) is a warning of the build: here a failure.
  expect(result.warnings.map((warning) => warning.text)).toEqual([]);
  Output = ((await import(pathToFileURL(outfile).href)) as { default: OutputClass }).default;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** One frame of `lines` (160 columns wide), as Ink renders it: the caches it used. */
function frame(lines: readonly string[]): Caches {
  const output = new Output({ width: 160, height: lines.length });
  lines.forEach((line, y) => output.write(0, y, line, { transformers: [] }));
  expect(output.get().output.split('\n')).toEqual(lines.map((line) => line.trimEnd()));
  return output.caches;
}

const screen = (seed: number): string[] => Array.from({ length: 48 }, (_, y) => `${seed}:${y} ${'x'.repeat(150)}`.slice(0, 160));

it('keeps a frame’s tokenized lines for the next frames', () => {
  const first = frame(screen(0));
  const next = frame(screen(0));
  expect(next).toBe(first);
  expect(next.styledChars.size).toBeGreaterThanOrEqual(48);
});

it('keeps no more tokenized characters than its bound, however many different screens are drawn', () => {
  let caches = frame(screen(1));
  let emptied = 0;
  for (let seed = 2; seed < 40; seed++) {
    const next = frame(screen(seed));
    if (next !== caches) emptied++;
    caches = next;
    // A frame may add its own lines past the bound; the next one starts again.
    expect(caches.styledCharCount).toBeLessThan(STYLED_CHARS_LIMIT + 48 * 160);
  }
  // 38 screens of 7,680 characters: the caches were emptied along the way (the count of strings alone never would).
  expect(emptied).toBeGreaterThanOrEqual(Math.floor((38 * 48 * 160) / (STYLED_CHARS_LIMIT + 48 * 160)));
});
