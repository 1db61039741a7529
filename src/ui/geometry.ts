/** Screen arithmetic shared by the reducer (scroll windows) and the views (what to render where). */
import { AGENT_NAME_WIDTH } from '../core/model.js';
import { safeLine } from '../core/text.js';
import { wrapText } from './wrap-text.js';

export interface ScreenSize {
  readonly columns: number;
  readonly rows: number;
}

/** Header and footer: one row each. The notice line under the body is reserved too (one or two rows). */
const CHROME_ROWS = 2;
/** Side-by-side preview from this many columns on; below it the preview sits under the list. */
export const SIDE_PREVIEW_MIN_COLUMNS = 150;
const SIDE_PREVIEW_MIN_WIDTH = 60;
/** A bottom preview only when the body has room for it and a useful list. */
const BOTTOM_PREVIEW_MIN_BODY = 14;

export interface PreviewPlacement {
  readonly placement: 'side' | 'bottom' | 'none';
  readonly width: number;
  readonly height: number;
}

export interface ListGeometry {
  readonly listWidth: number;
  readonly listHeight: number;
  readonly preview: PreviewPlacement;
}

/**
 * Rows available below the header and above the message line and footer. Ink redraws the whole screen when
 * a frame is as tall as the terminal (flicker), so everything together stays at rows - 1.
 */
export function bodyHeight(size: ScreenSize, notice = 1): number {
  return Math.max(1, size.rows - 1 - CHROME_ROWS - notice);
}

/** A notice's detail (a command to copy) wraps to at most this many rows rather than being cut. */
const NOTICE_DETAIL_MAX_ROWS = 3;

/** The rows of a notice's detail at this width: whole words, as many as it takes up to the cap. */
export function noticeDetailRows(detail: string, columns: number): string[] {
  return wrapText(safeLine(detail), Math.max(1, columns)).slice(0, NOTICE_DETAIL_MAX_ROWS);
}

/** Rows of the notice line: always one (so the layout does not jump), more when it carries a detail. */
export function noticeRows(notice: { readonly detail?: string | undefined } | null, columns: number): number {
  return notice?.detail ? 1 + noticeDetailRows(notice.detail, columns).length : 1;
}

export function listGeometry(size: ScreenSize, notice = 1): ListGeometry {
  const body = bodyHeight(size, notice);
  if (size.columns >= SIDE_PREVIEW_MIN_COLUMNS) {
    // The preview reads well at 60 columns: more screen goes to the list's titles and cwds first.
    const previewWidth = Math.min(90, Math.max(SIDE_PREVIEW_MIN_WIDTH, Math.floor(size.columns * 0.3)));
    return { listWidth: size.columns - previewWidth, listHeight: body, preview: { placement: 'side', width: previewWidth, height: body } };
  }
  if (body >= BOTTOM_PREVIEW_MIN_BODY) {
    const previewHeight = Math.min(12, Math.floor(body * 0.45));
    return { listWidth: size.columns, listHeight: body - previewHeight, preview: { placement: 'bottom', width: size.columns, height: previewHeight } };
  }
  return { listWidth: size.columns, listHeight: body, preview: { placement: 'none', width: 0, height: 0 } };
}

/** Rows of transcript text on screen. */
export function transcriptHeight(size: ScreenSize, notice = 1): number {
  return bodyHeight(size, notice);
}

export interface RowColumns {
  readonly marker: number;
  readonly badge: number;
  readonly age: number;
  readonly title: number;
  readonly cwd: number;
  readonly branch: number;
  readonly turns: number;
  readonly marks: number;
}

/**
 * Column widths of a list row, summing to `width`; title, cwd and branch include one column of spacing after
 * them. The title takes what is left and Ink truncates every cell.
 */
export function rowColumns(width: number): RowColumns {
  // The agent badge holds the longest agent name and a space ("copilot" ran into the age column at 7).
  const fixed = { marker: 2, badge: AGENT_NAME_WIDTH + 1, age: 5, turns: 6, marks: 7 };
  const rest = Math.max(0, width - (fixed.marker + fixed.badge + fixed.age + fixed.turns + fixed.marks));
  const cwd = rest >= 40 ? Math.min(40, Math.floor(rest * 0.3)) : 0;
  const branch = rest >= 50 ? Math.min(20, Math.floor(rest * 0.16)) : 0;
  const title = Math.max(0, rest - cwd - branch);
  return { ...fixed, title, cwd, branch };
}
