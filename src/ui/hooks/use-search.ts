import { useEffect, useMemo, useRef, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import { SearchIndex } from '../../catalog/search.js';
import type { Action } from '../reducer.js';

/** Index the catalog this long after it last changed (not on the first keystroke). */
const INDEX_DELAY_MS = 30;

/** Ranking the rest of a query's candidates yields to input this often. */
const RANK_SLICE_MS = 8;

/**
 * Run the fuzzy search off the render path: after the frame that shows the typed character, coalescing
 * keystrokes that arrive before it runs; results come back as `searchResults` actions (the first page at once,
 * the complete ranking when fuse.js has scored every candidate).
 */
export function useSearch(sessions: readonly CatalogSession[], query: string, dispatch: Dispatch<Action>): void {
  const index = useMemo(() => new SearchIndex(), []);
  const indexed = useRef<readonly CatalogSession[] | null>(null);

  useEffect(() => {
    const timer = setTimeout(() => syncIndex(index, indexed, sessions), INDEX_DELAY_MS);
    return () => clearTimeout(timer);
  }, [index, sessions]);

  useEffect(() => {
    const trimmed = query.trim();
    // `>text` searches inside the transcripts (use-content-search.ts), not the catalog.
    if (trimmed === '' || trimmed.startsWith('>')) return;
    let handle = setImmediate(() => {
      syncIndex(index, indexed, sessions);
      // The first page is ranked at once; the rest in slices between keystrokes, so typing never waits.
      const run = index.begin(trimmed);
      dispatch({ type: 'searchResults', query: trimmed, hits: run.hits(), pending: run.pending });
      const rankMore = (): void => {
        if (run.step(RANK_SLICE_MS)) dispatch({ type: 'searchResults', query: trimmed, hits: run.hits(), pending: 0 });
        else handle = setImmediate(rankMore);
      };
      if (!run.done) handle = setImmediate(rankMore);
    });
    return () => clearImmediate(handle);
  }, [index, sessions, query, dispatch]);
}

function syncIndex(index: SearchIndex, indexed: { current: readonly CatalogSession[] | null }, sessions: readonly CatalogSession[]): void {
  if (indexed.current === sessions) return;
  index.setSessions(sessions);
  indexed.current = sessions;
}
