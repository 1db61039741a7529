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
/**
 * And the rows of the last frames as text, by their cells: a frame that changes a line or two (a count in the header)
 * spells out the styles of those rows only. Two screens of a tall terminal.
 */
export const ROWS_KEPT = 128;
/**
 * Code points that are a grapheme of their own beside any other of them (Grapheme_Cluster_Break Other: no control,
 * no combining or joining mark, no Hangul, no regional indicator) and one column wide: printable ASCII, Latin-1 and
 * the Latin extensions (not the soft hyphen), general punctuation (not the separators and invisible marks around it),
 * arrows and box drawing.
 */
const PLAIN_CODE_POINT =
  '(code) => (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0x2ff && code !== 0xad) || (code >= 0x2010 && code <= 0x2027) || (code >= 0x2030 && code <= 0x205e) || (code >= 0x2190 && code <= 0x21ff) || (code >= 0x2500 && code <= 0x257f)';
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
    // string-width (Ink's, not the older copy wrap-ansi keeps for itself): a text of plain code points only (see
    // isPlainCodePoint below; each one column and a grapheme of its own) is as wide as it is long, as it says of
    // printable ASCII. The browser's rows hold '…', '›' or '│': each new row was measured a grapheme at a time
    // (a segmenter and regular expressions per character), three times a frame, ~15 ms of a keystroke's frame at 100k.
    esbuild.onLoad({ filter: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/ }, (args) => {
      if (/[\\/]node_modules[\\/].+[\\/]node_modules[\\/]string-width[\\/]/.test(args.path)) return undefined;
      return patch('string-width/index.js', [
        [
          `	if (/^[\\u0020-\\u007E]*$/.test(string)) {
		return string.length;
	}`,
          `	if (/^[\\u0020-\\u007E]*$/.test(string)) {
		return string.length;
	}
	if (ambiguousIsNarrow && isPlainText(string)) {
		return string.length;
	}`,
        ],
        [
          'export default function stringWidth(',
          `const isPlainCodePoint = ${PLAIN_CODE_POINT};
const isPlainText = (text) => {
	for (let at = 0; at < text.length; at++) {
		if (!isPlainCodePoint(text.charCodeAt(at))) return false;
	}
	return true;
};
export default function stringWidth(`,
        ],
      ])(args);
    });
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
        // The screen's empty cells: one object for all, not 7,680 new ones a frame (a cell is never changed, only
        // replaced), so a row whose cells are the same objects as in the frame before is the same text.
        [
          `                row.push({
                    type: 'char',
                    value: ' ',
                    fullWidth: false,
                    styles: [],
                });`,
          '                row.push(BLANK_CELL);',
        ],
        // The cells a wide character covers past its first: one object per character too (not one a frame).
        [
          `                                currentLine[offsetX + index] = {
                                    type: 'char',
                                    value: '',
                                    fullWidth: false,
                                    styles: character.styles,
                                };`,
          '                                currentLine[offsetX + index] = this.caches.coveredBy(character);',
        ],
        [
          `            const lineWithoutEmptyItems = line.filter(item => item !== undefined);
            return styledCharsToString(lineWithoutEmptyItems).trimEnd();`,
          `            return this.caches.rowText(line);`,
        ],
        [
          'export default class Output {',
          `const BLANK_CELL = { type: 'char', value: ' ', fullWidth: false, styles: [] };
export default class Output {`,
        ],
        ['            this.styledChars.set(line, cached);', '            this.styledChars.set(line, cached);\n            this.styledCharCount += cached.length;'],
        // A line of plain characters (no escape, each its own grapheme, one column wide: most of the browser's texts)
        // is its characters, without a grapheme segmenter's pass and a token per character (a frame of new rows spent
        // ~40 % of its time tokenizing them).
        ['            cached = styledCharsFromTokens(tokenize(line));', '            cached = plainStyledChars(line) ?? styledCharsFromTokens(tokenize(line));'],
        [
          'const BLANK_CELL = ',
          `/** A grapheme of its own beside any other such, one column wide (PLAIN_CODE_POINT of scripts/ink-frame-caches.mjs). */
const isPlainCodePoint = ${PLAIN_CODE_POINT};
/**
 * The cell of each plain character, one for every line that has it (Ink places cells, it never changes one): a line
 * kept by the caches is an array of references, not an object and an array per character. A keystroke's new rows
 * (7,000 characters) otherwise added ~600 KB that the caches kept across frames, long enough to reach V8's old
 * generation, whose full collections then fell on later keys.
 */
const plainCells = new Map();
const plainCell = (value) => {
    let cell = plainCells.get(value);
    if (cell === undefined) {
        cell = { type: 'char', value, fullWidth: false, styles: [] };
        plainCells.set(value, cell);
    }
    return cell;
};
/** What styledCharsFromTokens(tokenize(line)) gives for a line of plain code points only (else null). */
const plainStyledChars = (line) => {
    for (let at = 0; at < line.length; at++) {
        if (!isPlainCodePoint(line.charCodeAt(at))) return null;
    }
    const chars = new Array(line.length);
    for (let at = 0; at < line.length; at++) chars[at] = plainCell(line[at]);
    return chars;
};
const BLANK_CELL = `,
        ],
        ['    styledChars = new Map();', '    styledChars = new Map();\n    styledCharCount = 0;'],
        // a line inside a box that clips (overflow hidden) is cut with slice-ansi, which tokenizes it: once
        ['return sliceAnsi(line, from, to);', 'return this.caches.slice(line, from, to);'],
        [
          'getStringWidth(text) {',
          `covered = new WeakMap();
    coveredBy(character) {
        let cell = this.covered.get(character);
        if (cell === undefined) {
            cell = { type: 'char', value: '', fullWidth: false, styles: character.styles };
            this.covered.set(character, cell);
        }
        return cell;
    }
    rows = [];
    rowText(line) {
        // A row of the frame before made of the very same cells (tokenized lines are kept: the same objects) is the
        // same text: a frame that changes the header alone spelled every row's styles out again.
        for (const row of this.rows) {
            if (row.cells.length !== line.length) continue;
            let same = true;
            for (let x = 0; x < line.length; x++) {
                if (row.cells[x] !== line[x]) {
                    same = false;
                    break;
                }
            }
            if (same) return row.text;
        }
        const text = styledCharsToString(line.filter(item => item !== undefined)).trimEnd();
        this.rows.push({ cells: line, text });
        if (this.rows.length > ${ROWS_KEPT}) this.rows.shift();
        return text;
    }
    getStringWidth(text) {`,
        ],
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
