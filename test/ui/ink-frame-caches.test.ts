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
import { ROWS_KEPT, STYLED_CHARS_LIMIT, inkFrameCaches } from '../../scripts/ink-frame-caches.mjs';

interface Caches {
  readonly styledChars: Map<string, unknown>;
  readonly styledCharCount: number;
  readonly rows: readonly { readonly text: string }[];
}
interface OutputLike {
  readonly caches: Caches;
  write(x: number, y: number, text: string, options: { transformers: never[] }): void;
  clip(clip: { x1: number; x2: number; y1: number; y2: number }): void;
  unclip(): void;
  get(): { output: string };
}
type OutputClass = new (options: { width: number; height: number }) => OutputLike;

let dir: string;
let Output: OutputClass;
/** Ink's own, unpatched. */
let InkOutput: OutputClass;

/** Ink's output.js bundled (with the build's patch, or as Ink ships it). */
async function bundled(name: string, plugins: readonly object[]): Promise<OutputClass> {
  const outfile = join(dir, `${name}.mjs`);
  const result = await build({
    // Ink exports no subpaths: its output.js beside its entry point.
    entryPoints: [join(dirname(createRequire(import.meta.url).resolve('ink')), 'output.js')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    plugins: plugins as (typeof inkFrameCaches)[],
    logLevel: 'silent',
  });
  // A patch that no longer applies (Ink changed) is a warning of the build: here a failure.
  expect(result.warnings.map((warning) => warning.text)).toEqual([]);
  return ((await import(pathToFileURL(outfile).href)) as { default: OutputClass }).default;
}

/** Lines Ink's tokenizer was asked for (the patched Output's): `tokenize` of @alcalzone/ansi-tokenize, counted. */
const tokenized: string[] = [];
const countTokenize = {
  name: 'count-tokenize',
  setup(esbuild: Parameters<(typeof inkFrameCaches)['setup']>[0]) {
    esbuild.onResolve({ filter: /^@alcalzone\/ansi-tokenize$/ }, (args: { importer: string }) =>
      args.importer.endsWith('output.js') ? { path: 'counted', namespace: 'count-tokenize', pluginData: dirname(args.importer) } : undefined,
    );
    esbuild.onLoad({ filter: /^counted$/, namespace: 'count-tokenize' }, (args: { pluginData: string }) => ({
      contents: `import { tokenize as real } from '@alcalzone/ansi-tokenize';
export * from '@alcalzone/ansi-tokenize';
export const tokenize = (line, ...rest) => { globalThis.__inkTokenized?.push(line); return real(line, ...rest); };`,
      resolveDir: args.pluginData,
      loader: 'js',
    }));
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ink-frame-caches-'));
  Output = await bundled('patched', [inkFrameCaches, countTokenize]);
  InkOutput = await bundled('ink', []);
  (globalThis as { __inkTokenized?: string[] }).__inkTokenized = tokenized;
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

/** A frame as the browser draws one: a header, rows with styles, a pane beside them (clipped), a wide character. */
function browserFrame(OutputOf: OutputClass, header: string, top: number): string {
  const output = new OutputOf({ width: 160, height: 48 });
  const none = { transformers: [] as never[] };
  output.write(0, 0, `\u001b[1m${header}\u001b[22m`, none);
  for (let y = 1; y < 48; y++) {
    const row = top + y;
    const line = row % 7 === 0 ? `\u001b[7m› codex  ${row}d  run ls and explain 日本 the layout\u001b[27m` : `  \u001b[36mclaude\u001b[39m ${row}d  \u001b[2mfix the build ${row}\u001b[22m`;
    output.write(0, y, line, none);
    output.clip({ x1: 100, x2: 160, y1: 1, y2: 48 });
    output.write(98, y, `│ \u001b[33mpreview ${y % 5}\u001b[39m of the selected session, cut at the pane's edge`, none);
    output.unclip();
  }
  return output.get().output;
}

it('spells out again only the rows that changed, each frame as Ink draws it', () => {
  // Header changes, a scroll by one row, the same frame again, and back: byte for byte Ink's own output.
  const frames: [string, number][] = [['1 session (searching…)', 0], ['126 sessions (searching…)', 0], ['126 sessions (searching…)', 1], ['1660 sessions', 1], ['1660 sessions', 1], ['1660 sessions', 0]];
  for (const [header, top] of frames) expect(browserFrame(Output, header, top)).toBe(browserFrame(InkOutput, header, top));
  // A frame drawn again: every row is one kept (none is added), as long as the caches were not emptied meanwhile.
  const caches = new Output({ width: 160, height: 1 }).caches;
  const kept = caches.rows.length;
  expect(kept).toBeGreaterThanOrEqual(48);
  expect(kept).toBeLessThanOrEqual(ROWS_KEPT);
  expect(browserFrame(Output, '1660 sessions', 0)).toBe(browserFrame(InkOutput, '1660 sessions', 0));
  expect(new Output({ width: 160, height: 1 }).caches).toBe(caches);
  expect(caches.rows.length).toBe(kept);
  // A changed header: one row more.
  browserFrame(Output, '1661 sessions', 0);
  expect(caches.rows.length).toBe(Math.min(ROWS_KEPT, kept + 1));
});

it('makes the characters of a plain line without the tokenizer, as the tokenizer makes them', () => {
  // ASCII, Latin-1 and extended Latin, punctuation, arrows, box drawing: each character a grapheme, one column.
  const plain = ['› codex   6d  run ls and explain the layout… ·', '│ café naïve ŝ ǅ ʘ ˚ “quoted” ‹a› ‰ ← ↑ → ┌─┐ └─┘ ╭╮', `${'x'.repeat(150)}…`];
  // Not plain: a combining accent, a soft hyphen, a zero-width joiner, a wide character, an emoji, an escape.
  const other = ['cafe\u0301 (combining)', 'soft\u00adhyphen', 'a\u200db', '日本語', 'ok ✅ done', '\u001b[1mbold\u001b[22m text'];
  const lines = [...plain, ...other].map((line, at) => `${line} #${at}`);
  const draw = (OutputOf: OutputClass): string => {
    const output = new OutputOf({ width: 160, height: lines.length });
    lines.forEach((line, y) => output.write(0, y, line, { transformers: [] }));
    return output.get().output;
  };
  tokenized.length = 0;
  expect(draw(Output)).toBe(draw(InkOutput));
  // The plain lines were never tokenized; every other one was.
  expect(tokenized.filter((line) => lines.includes(line))).toEqual(lines.slice(plain.length));
});

it("keeps a plain line as the same cells as any other line's, one per character", () => {
  // A keystroke's new rows were ~7,000 new objects (and as many arrays) that the caches kept across frames.
  const lines = ['abc deploy the service', 'cab: service deployed', `${'x'.repeat(150)}…`];
  const caches = frame(lines);
  const [first, second, third] = lines.map((line) => caches.styledChars.get(line) as readonly { readonly value: string }[]);
  expect(first!.map((cell) => cell.value).join('')).toBe(lines[0]);
  expect(second![0]).toBe(first![2]); // c
  expect(second![1]).toBe(first![0]); // a
  expect(second!.find((cell) => cell.value === 's')).toBe(first!.find((cell) => cell.value === 's'));
  expect(new Set(third).size).toBe(2);
  // Drawn the same as Ink's own.
  const draw = (OutputOf: OutputClass): string => {
    const output = new OutputOf({ width: 160, height: lines.length });
    lines.forEach((line, y) => output.write(0, y, line, { transformers: [] }));
    return output.get().output;
  };
  expect(draw(Output)).toBe(draw(InkOutput));
});

it('measures a text of plain characters by its length, without segmenting it, as string-width measures it', async () => {
  // Ink's string-width (node_modules/string-width, beside Ink), bundled with the build's patch and as it ships.
  const entry = join(dirname(createRequire(import.meta.url).resolve('ink')), '..', '..', 'string-width', 'index.js');
  const widthOf = async (name: string, plugins: readonly object[]): Promise<(text: string, options?: object) => number> => {
    const outfile = join(dir, `${name}.mjs`);
    const result = await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile, plugins: plugins as (typeof inkFrameCaches)[], logLevel: 'silent' });
    expect(result.warnings.map((warning) => warning.text)).toEqual([]);
    return ((await import(pathToFileURL(outfile).href)) as { default: (text: string, options?: object) => number }).default;
  };
  const patched = await widthOf('string-width-patched', [inkFrameCaches]);
  const shipped = await widthOf('string-width', []);
  const plain = ['› codex   6d  run ls and explain the layout… ·', '│ café naïve ŝ ǅ ʘ ˚ “quoted” ‹a› ‰ ← ↑ → ┌─┐ └─┘ ╭╮', `${'x'.repeat(150)}…`, '\u001b[7m› selected…\u001b[27m'];
  const other = ['cafe\u0301 (combining)', 'soft\u00adhyphen', 'a\u200db', '日本語 …', 'ok ✅ done', 'tab\there', '한국어', '…'.repeat(3) + '\u0301'];
  for (const text of [...plain, ...other]) {
    expect(patched(text)).toBe(shipped(text));
    expect(patched(text, { ambiguousIsNarrow: false })).toBe(shipped(text, { ambiguousIsNarrow: false }));
  }
  const segment = Intl.Segmenter.prototype.segment;
  let segmented = 0;
  Intl.Segmenter.prototype.segment = function (this: Intl.Segmenter, text: string) {
    segmented++;
    return segment.call(this, text);
  };
  try {
    for (const text of plain) expect(patched(text)).toBe(text.split('\u001b[7m').join('').split('\u001b[27m').join('').length);
    expect(segmented).toBe(0);
    patched(other[3]!);
    expect(segmented).toBe(1);
  } finally {
    Intl.Segmenter.prototype.segment = segment;
  }
});
