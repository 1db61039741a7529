/**
 * The list's first screen as plain ANSI, written before Ink and React are even loaded (~150 ms of a warm
 * start on this machine): the same reducer state and the same row text the first Ink frame will show, so
 * when Ink draws its frame over it the rows do not move. Only the rows are painted; the header, footer
 * and preview appear with Ink's frame.
 */
import type { CatalogSession } from '../catalog/scan.js';
import { listGeometry, noticeRows, rowColumns } from './geometry.js';
import { themeFor } from './palette.js';
import { firstState } from './reducer.js';
import { sessionRowSegments, type Segment } from './row-cells.js';
import type { Scope } from './state.js';

export interface FirstScreenOptions {
  readonly sessions: readonly CatalogSession[];
  readonly columns: number;
  readonly rows: number;
  readonly cwd: string;
  readonly homeDir: string;
  readonly now: number;
  readonly scope: Scope;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Switch to the terminal's alternate screen while the browser runs, so the shell's scrollback is left as it was. */
export const ENTER_ALT_SCREEN = '\u001b[?1049h';
export const LEAVE_ALT_SCREEN = '\u001b[?1049l';

/** Foreground codes for the color names the palette uses (as chalk writes them). */
const FOREGROUND: Readonly<Record<string, number>> = { black: 30, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, white: 37, gray: 90, grey: 90 };

function styled(segment: Segment): string {
  const codes: number[] = [];
  const color = segment.color === undefined ? undefined : FOREGROUND[segment.color];
  if (color !== undefined) codes.push(color);
  if (segment.bold) codes.push(1);
  if (segment.underline) codes.push(4);
  if (segment.inverse) codes.push(7);
  return codes.length === 0 ? segment.text : `\u001b[${codes.join(';')}m${segment.text}\u001b[0m`;
}

/**
 * The escape sequences that draw the list rows of the first frame at their places (row 2 on, below the
 * header) and put the cursor back home for Ink; null when there is nothing to show.
 */
export function firstScreen(options: FirstScreenOptions): string | null {
  if (options.sessions.length === 0 || options.columns < 20 || options.rows < 5) return null;
  const size = { columns: options.columns, rows: options.rows };
  const state = firstState({ size, cwd: options.cwd, homeDir: options.homeDir, now: options.now, scope: options.scope }, options.sessions);
  if (state.rows.length === 0) return null;
  const geometry = listGeometry(state.size, noticeRows(state.notice, state.size.columns));
  const columns = rowColumns(geometry.listWidth);
  const theme = themeFor(options.env);
  let out = '';
  state.rows.slice(0, geometry.listHeight).forEach((row, i) => {
    const segments = sessionRowSegments({ session: row.session, hit: null, selected: i === state.selected, columns, now: options.now, homeDir: options.homeDir, theme, sort: state.sort });
    out += `\u001b[${i + 2};1H${segments.map(styled).join('')}`;
  });
  return `${out}\u001b[H`;
}
