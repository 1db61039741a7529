import { useEffect, useRef, type Dispatch } from 'react';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { CONTENT_MIN_CHARS, contentQuery, type ContentHit } from '../state.js';

/** Content search starts this long after the last keystroke (each one would otherwise read every transcript). */
const CONTENT_DELAY_MS = 250;

/** Sessions found are handed to the reducer at most this often: hundreds can match at once. */
const CONTENT_BATCH_MS = 50;

/** More than a screen holds (a terminal 100 rows high): past it, a batch changes only the header's count. */
const SCREENFUL = 128;

/**
 * Each batch is a frame on the thread the search's own work shares two cores with: past a screenful, batches come less
 * often (a common word at 100k sessions found 16k, and batches every 50 ms kept the UI thread busy longer than the
 * search; at 10k, 50 ms batches until 500 were found made ~10 frames of ~30 ms in a search of ~0.7 s).
 */
function batchDelay(found: number): number {
  return found < SCREENFUL ? CONTENT_BATCH_MS : found < 5000 ? 5 * CONTENT_BATCH_MS : 20 * CONTENT_BATCH_MS;
}

/**
 * Search inside every transcript for a `>text` query (the services run the same engine as `sessions grep`):
 * matching sessions stream in as `contentResults` actions; a new query stops the search in progress.
 */
export function useContentSearch(services: TuiServices, query: string, dispatch: Dispatch<Action>): void {
  const text = contentQuery(query);
  /** The text the last search was for: null when it was not a content search (Ctrl-G then starts one at once). */
  const before = useRef<string | null>(null);
  useEffect(() => {
    const typed = before.current !== null;
    before.current = text;
    if (text === null || text.length < CONTENT_MIN_CHARS || !services.grep) return;
    const grep = services.grep;
    let stop: (() => void) | null = null;
    let flushTimer: NodeJS.Timeout | null = null;
    let batch: ContentHit[] = [];
    let shown = false;
    let found = 0;
    const flush = (done: boolean, error?: string): void => {
      flushTimer = null;
      if (batch.length === 0 && !done) return;
      dispatch({ type: 'contentResults', query: text, hits: batch, done, ...(error === undefined ? {} : { error }) });
      found += batch.length;
      batch = [];
    };
    const timer = setTimeout(() => {
      dispatch({ type: 'contentResults', query: text, hits: [], done: false, fresh: true });
      stop = grep(
        text,
        (hit) => {
          batch.push(hit);
          // The first session found goes to the screen at once; the rest in batches.
          if (!shown) {
            shown = true;
            flush(false);
          } else {
            flushTimer ??= setTimeout(() => flush(false), batchDelay(found));
          }
        },
        (error) => {
          if (flushTimer) clearTimeout(flushTimer);
          flush(true, error ?? undefined);
        },
      );
      // Typed after `>`, each key would start a search: wait for a pause. Ctrl-G (or a pasted query) is one intent.
    }, typed ? CONTENT_DELAY_MS : 0);
    return () => {
      clearTimeout(timer);
      if (flushTimer) clearTimeout(flushTimer);
      stop?.();
    };
  }, [services, text, dispatch]);
}
