import { useEffect, type Dispatch } from 'react';
import { type CatalogSession, type ScanProgress } from '../../catalog/scan.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { describeError } from '../../core/errors.js';

/** Progress updates at most this often: a scan of thousands of files must not render thousands of frames. */
const PROGRESS_INTERVAL_MS = 50;

/** Rows indexed on a cold start go to the reducer in batches this often (each batch re-sorts the list). */
const ROWS_BATCH_MS = 100;

/** Scan once, then watch: the catalog flows into the reducer as scanProgress, scanDone and catalogChanged. */
export function useCatalog(services: TuiServices, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    let cancelled = false;
    let stop: (() => void) | null = null;
    let lastProgress = 0;
    const onProgress = (progress: ScanProgress): void => {
      const now = Date.now();
      if (cancelled || (progress.done !== progress.total && now - lastProgress < PROGRESS_INTERVAL_MS)) return;
      lastProgress = now;
      dispatch({ type: 'scanProgress', progress });
    };
    // Rows read from files (not from the cache) show up as they are indexed, newest first, in batches.
    let batch: CatalogSession[] = [];
    let batchTimer: NodeJS.Timeout | null = null;
    const flushRows = (): void => {
      batchTimer = null;
      if (cancelled || batch.length === 0) return;
      dispatch({ type: 'catalogChanged', upserted: batch, removed: [] });
      batch = [];
    };
    const onIndexed = (session: CatalogSession): void => {
      batch.push(session);
      batchTimer ??= setTimeout(flushRows, ROWS_BATCH_MS);
    };
    // The first screen (services.cached()) is in the initial state; the whole remembered list follows it,
    // and the scan then validates it file by file.
    services.loadCached?.().then(
      (all) => {
        if (!cancelled && all.length > 0) dispatch({ type: 'cachedCatalog', sessions: all });
      },
      () => undefined,
    );
    services.scan(onProgress, onIndexed).then(
      ({ sessions, problems }) => {
        if (batchTimer !== null) clearTimeout(batchTimer);
        batch = [];
        if (cancelled) return;
        dispatch({ type: 'scanDone', sessions, problems });
        stop = services.watch(
          sessions,
          (change) => {
            if (!cancelled) dispatch({ type: 'catalogChanged', upserted: change.upserted, removed: change.removed, problems: change.problems });
          },
          () => {
            if (!cancelled) dispatch({ type: 'watchReady' });
          },
        );
      },
      (error: unknown) => {
        if (!cancelled) dispatch({ type: 'scanDone', sessions: [], problems: [{ path: '(scan)', message: describeError(error) }] });
      },
    );
    return () => {
      cancelled = true;
      if (batchTimer !== null) clearTimeout(batchTimer);
      stop?.();
    };
  }, [services, dispatch]);
}
