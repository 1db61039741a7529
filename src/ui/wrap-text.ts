import { stringWidth } from './display-width.js';

const PLAIN_ASCII = /^[\x20-\x7e]*$/;
const TOKENS = /\s+|\S+/g;

function widthOf(text: string): number {
  return PLAIN_ASCII.test(text) ? text.length : stringWidth(text);
}

/**
 * Word-wrap one paragraph of plain text (control sequences already stripped) to `width` columns, measuring
 * with string-width as Ink does. The transcript is laid out once per width and only a window of it is drawn,
 * so wrapping must be linear: wrap-ansi measures the growing row for every word, which costs seconds on a
 * 50 MB session. Indentation is kept; spaces at a break are dropped; words longer than a row are split.
 */
export function wrapLine(line: string, width: number): string[] {
  if (line.length <= width && PLAIN_ASCII.test(line)) return [line];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  const flush = (): void => {
    rows.push(row.trimEnd());
    row = '';
    used = 0;
  };
  for (const token of line.match(TOKENS) ?? []) {
    const w = widthOf(token);
    if (used + w <= width) {
      row += token;
      used += w;
      continue;
    }
    if (/^\s/.test(token)) {
      flush();
      continue;
    }
    if (w <= width && used > 0) {
      flush();
      row = token;
      used = w;
      continue;
    }
    // A word wider than what is left of the row: split it by characters.
    for (const char of token) {
      const cw = widthOf(char);
      if (used + cw > width && used > 0) flush();
      row += char;
      used += cw;
    }
  }
  if (row !== '' || rows.length === 0) rows.push(row.trimEnd());
  return rows;
}

/** Wrap text that may hold several lines. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) for (const row of wrapLine(line, width)) out.push(row);
  return out;
}
