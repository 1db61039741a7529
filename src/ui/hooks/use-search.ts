import { useEffect, useLayoutEffect, useMemo, useRef, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import { SearchIndex } from '../../catalog/search.js';
import type { Action } from '../reducer.js';

/** Index the catalog this long after it last changed (not on the first keystroke). */
const INDEX_DELAY_MS = 30;

/** Ranking the rest of a query's candidates yields to input this often. */
const RANK_SLICE_MS = 8;

/** Ranking a counted query's tail starts once no key came for this long. */
const TAIL_RANK_DELAY_MS = 300;

/**
 * The first page is shown on its own only when the count is not known this long after the search began: a frame
 * costs the list a redraw, and a walk of the catalog takes tens of milliseconds (the typed key is on screen already).
 */
const FIRST_PAGE_WAIT_MS = 100;

/**
 * Run the fuzzy search off the render path: after the frame that shows the typed character, coalescing
 * keystrokes that arrive before it runs; results come back as `searchResults` actions (every match with the final
 * count once the walk is over, the first page before it when the walk takes long, the complete ranking when fuse.js has scored every
 * candidate). `now` is the clock the ranking's time slices are measured on (a test's input; the real one by
 * default).
 */
export function useSearch(sessions: readonly CatalogSession[], query: string, dispatch: Dispatch<Action>, now?: () => number): void {
  const index = useMemo(() => new SearchIndex([], now), [now]);
  const indexed = useRef<readonly CatalogSession[] | null>(null);

  useEffect(() => {
    const timer = setTimeout(() => syncIndex(index, indexed, sessions), INDEX_DELAY_MS);
    return () => clearTimeout(timer);
  }, [index, sessions]);

  // The query the list is for, set as the frame that shows a new one is committed: a ranking's slices stop there, not
  // when the effect below is cleaned up (React runs that later; at 100k sessions the old query's slices ran for up to
  // 250 ms after Ctrl-G, holding back the content search's first row).
  const committed = useRef(query);
  useLayoutEffect(() => {
    committed.current = query;
  }, [query]);

  useEffect(() => {
    const trimmed = query.trim();
    // `>text` searches inside the transcripts (use-content-search.ts), not the catalog.
    if (trimmed === '' || trimmed.startsWith('>')) return;
    let tail: NodeJS.Timeout | undefined;
    let firstPage: NodeJS.Timeout | undefined;
    let handle = setImmediate(() => {
      syncIndex(index, indexed, sessions);
      // The first page is ranked at once; the rest in slices between keystrokes, so typing never waits.
      const run = index.begin(trimmed);
      // Once the walk knows how many match, the list holds all of them (those not ranked yet after the ranked
      // ones) and the count is final; the order of the unranked tail settles when the ranking is over.
      const send = (): void => {
        const count = run.count;
        dispatch({ type: 'searchResults', query: trimmed, hits: run.matches(), pending: run.done ? 0 : run.pending, counted: count !== null, catalog: sessions });
      };
      let counted = run.count !== null;
      if (counted) send();
      else firstPage = setTimeout(send, FIRST_PAGE_WAIT_MS);
      const rankTail = (): void => {
        tail = setTimeout(() => (handle = setImmediate(rankMore)), TAIL_RANK_DELAY_MS);
      };
      // Until the count is known, slices follow each other; the rest (the order of the list's tail, below the
      // ranked first page) waits until typing pauses: the next keystroke would throw that work away.
      const rankMore = (): void => {
        if (committed.current !== query) return;
        const done = run.step(RANK_SLICE_MS);
        const countedNow = !counted && run.count !== null;
        if (countedNow) clearTimeout(firstPage);
        if (done || countedNow) send();
        if (done) return;
        if (countedNow) {
          counted = true;
          rankTail();
        } else {
          handle = setImmediate(rankMore);
        }
      };
      if (run.done) return;
      if (counted) rankTail();
      else handle = setImmediate(rankMore);
    });
    return () => {
      clearImmediate(handle);
      clearTimeout(tail);
      clearTimeout(firstPage);
    };
  }, [index, sessions, query, dispatch]);
}

function syncIndex(index: SearchIndex, indexed: { current: readonly CatalogSession[] | null }, sessions: readonly CatalogSession[]): void {
  if (indexed.current === sessions) return;
  index.setSessions(sessions);
  indexed.current = sessions;
}
