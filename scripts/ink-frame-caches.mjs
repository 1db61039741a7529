// An esbuild plugin for Ink's frame caches (scripts/build.mjs bundles with it; test/ui/ink-frame-caches.test.ts
// bundles Ink's output.js with it and checks the bounds).
import { readFileSync } from 'node:fs';

/**
 * Ink measures and tokenizes every text of every frame again: `renderNodeToOutput` asks `widestLine` for each
 * text node's width (string-width: a regular expression per grapheme), and each frame's `Output` starts with
 * empty caches of the lines it tokenizes and the widths it measures. A keystroke changes a line or two of a
 * 48-line screen, so most of a frame's time went to measuring the same strings again; and each line inside a
 * box that clips is cut again with slice-ansi. These become caches that live across frames (bounded: emptied
 * when they hold too many strings).
 */
export const FRAME_CACHE_LIMIT = 20000;
/**
 * And the lines' tokenized characters by their count: each is an object with its styles (~330 bytes of heap apiece in
 * a snapshot of the TUI), so 20,000 lines of a 160-column screen held ~65 MB after typing a few queries at 100k
 * sessions (a fresh TUI: a screen's worth). 32k characters are four 160x48 screens.
 */
export const STYLED_CHARS_LIMIT = 32 * 1024;
export const inkFrameCaches = {
  name: 'ink-frame-caches',
  setup(esbuild) {
    const patch = (file, edits) => (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const [from, to] of edits) {
        if (!source.includes(from)) return { contents: source, loader: 'js', warnings: [{ text: `ink changed (${file}): frame caches not applied` }] };
        source = source.replace(from, to);
      }
      return { contents: source, loader: 'js' };
    };
    esbuild.onLoad(
      { filter: /ink[\\/]build[\\/]render-node-to-output\.js$/ },
      patch('render-node-to-output.js', [
        [
          'const renderNodeToOutput = (node, output, options) => {',
          `const textWidths = new Map();
const cachedWidestLine = (text) => {
    let width = textWidths.get(text);
    if (width === undefined) {
        if (textWidths.size >= ${FRAME_CACHE_LIMIT}) textWidths.clear();
        width = widestLine(text);
        textWidths.set(text, width);
    }
    return width;
};
const renderNodeToOutput = (node, output, options) => {`,
        ],
        ['const currentWidth = widestLine(text);', 'const currentWidth = cachedWidestLine(text);'],
      ]),
    );
    esbuild.onLoad(
      { filter: /ink[\\/]build[\\/]output\.js$/ },
      patch('output.js', [
        [
          'export default class Output {',
          `let sharedCaches = null;
const frameCaches = () => {
    if (sharedCaches === null || sharedCaches.styledChars.size + sharedCaches.widths.size + sharedCaches.blockWidths.size + sharedCaches.slices.size >= ${FRAME_CACHE_LIMIT} || sharedCaches.styledCharCount >= ${STYLED_CHARS_LIMIT}) sharedCaches = new OutputCaches();
    return sharedCaches;
};
export default class Output {`,
        ],
        ['caches = new OutputCaches();', 'caches = frameCaches();'],
        ['            this.styledChars.set(line, cached);', '            this.styledChars.set(line, cached);\n            this.styledCharCount += cached.length;'],
        ['    styledChars = new Map();', '    styledChars = new Map();\n    styledCharCount = 0;'],
        // a line inside a box that clips (overflow hidden) is cut with slice-ansi, which tokenizes it: once
        ['return sliceAnsi(line, from, to);', 'return this.caches.slice(line, from, to);'],
        [
          'getStringWidth(text) {',
          `slices = new Map();
    slice(line, from, to) {
        const key = from + ':' + to + ':' + line;
        let cached = this.slices.get(key);
        if (cached === undefined) {
            cached = sliceAnsi(line, from, to);
            this.slices.set(key, cached);
        }
        return cached;
    }
    getStringWidth(text) {`,
        ],
      ]),
    );
  },
};
