import { useEffect, useRef, type Dispatch } from 'react';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { CONTENT_MIN_CHARS, contentQuery, type ContentHit } from '../state.js';

/** Content search starts this long after the last keystroke (each one would otherwise read every transcript). */
const CONTENT_DELAY_MS = 250;

/** Sessions found are handed to the reducer at most this often: hundreds can match at once. */
const CONTENT_BATCH_MS = 50;

/** The list's rows when the caller does not say (a terminal 100 rows high holds fewer). */
const SCREENFUL = 128;

/**
 * Each batch is a frame on the thread the search's own work shares two cores with: once the list's rows on screen are
 * filled, a batch changes only the header's count (the engine finds sessions newest first, below those shown), so
 * batches come less often (a common word at 100k sessions found 16k, and batches every 50 ms kept the UI thread busy
 * longer than the search; at 10k, 50 ms batches until 500 were found made ~10 frames of ~30 ms in a search of ~0.7 s).
 */
function batchDelay(found: number, rows: number): number {
  return found < rows ? CONTENT_BATCH_MS : found < 5000 ? 5 * CONTENT_BATCH_MS : 20 * CONTENT_BATCH_MS;
}

/**
 * Search inside every transcript for a `>text` query (the services run the same engine as `sessions grep`):
 * matching sessions stream in as `contentResults` actions; a new query stops the search in progress. `rows`: how many
 * rows the list shows (past them, a batch only changes the count).
 */
export function useContentSearch(services: TuiServices, query: string, dispatch: Dispatch<Action>, rows: number = SCREENFUL): void {
  const text = contentQuery(query);
  // Read when a batch is planned: a resize during a search does not restart it.
  const shownRows = useRef(rows);
  shownRows.current = rows;
  /** The text the last search was for: null when it was not a content search (Ctrl-G then starts one at once). */
  const before = useRef<string | null>(null);
  useEffect(() => {
    const typed = before.current !== null;
    before.current = text;
    if (text === null || text.length < CONTENT_MIN_CHARS || !services.grep) return;
    const grep = services.grep;
    let stop: (() => void) | null = null;
    let flushTimer: NodeJS.Timeout | null = null;
    let firstFlush: NodeJS.Immediate | null = null;
    let batch: ContentHit[] = [];
    let shown = false;
    let found = 0;
    /** Whether what an earlier search of this text found is still to be dropped (by this search's first batch). */
    let fresh = true;
    const flush = (done: boolean, error?: string): void => {
      flushTimer = null;
      if (batch.length === 0 && !done) return;
      dispatch({ type: 'contentResults', query: text, hits: batch, done, ...(error === undefined ? {} : { error }), ...(fresh ? { fresh } : {}) });
      fresh = false;
      found += batch.length;
      batch = [];
    };
    const timer = setTimeout(() => {
      // Typed after `>`, the list may still hold an earlier search of this text (typed away and back): dropped at
      // once. On Ctrl-G there is none (toggleContent dropped it), and the first batch says `fresh` itself: a frame
      // fewer on the thread the search shares the cores with.
      if (typed) {
        dispatch({ type: 'contentResults', query: text, hits: [], done: false, fresh: true });
        fresh = false;
      }
      stop = grep(
        text,
        (hit) => {
          batch.push(hit);
          // The first sessions found go to the screen at once: with the others the engine hands over in the same
          // turn (its threads report many at a time), so the first frame fills the rows rather than showing one and
          // the next frame, 50 ms later, the rest. Then batches.
          if (!shown) {
            shown = true;
            firstFlush = setImmediate(() => {
              firstFlush = null;
              flush(false);
            });
          } else if (firstFlush === null) {
            flushTimer ??= setTimeout(() => flush(false), batchDelay(found, shownRows.current));
          }
        },
        (error) => {
          if (flushTimer) clearTimeout(flushTimer);
          if (firstFlush) clearImmediate(firstFlush);
          flush(true, error ?? undefined);
        },
      );
      // Typed after `>`, each key would start a search: wait for a pause. Ctrl-G (or a pasted query) is one intent.
    }, typed ? CONTENT_DELAY_MS : 0);
    return () => {
      clearTimeout(timer);
      if (flushTimer) clearTimeout(flushTimer);
      if (firstFlush) clearImmediate(firstFlush);
      stop?.();
    };
  }, [services, text, dispatch]);
}
