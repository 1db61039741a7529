import { useEffect, type Dispatch } from 'react';
import { describeError, type CatalogSession } from '../../catalog/scan.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';

/** Progress updates at most this often: a scan of thousands of files must not render thousands of frames. */
const PROGRESS_INTERVAL_MS = 50;

/**
 * Exact counts arrive one file at a time: hand them to the reducer in batches. Each batch re-sorts the whole
 * catalog and re-indexes it for search (a 100k catalog: tens of MB of garbage), so not too often.
 */
const REFINE_BATCH_MS = 1000;

function refineTurnCounts(services: TuiServices, sessions: readonly CatalogSession[], dispatch: Dispatch<Action>, cancelled: () => boolean): void {
  if (!services.refineTurns || sessions.every((session) => session.userTurnsExact)) return;
  let batch: CatalogSession[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    timer = null;
    if (cancelled() || batch.length === 0) return;
    dispatch({ type: 'catalogChanged', upserted: batch, removed: [] });
    batch = [];
  };
  void services
    .refineTurns(sessions, (session) => {
      batch.push(session);
      timer ??= setTimeout(flush, REFINE_BATCH_MS);
    })
    .finally(() => {
      if (timer) clearTimeout(timer);
      flush();
    });
}

/** Scan once, then watch: the catalog flows into the reducer as scanProgress, scanDone and catalogChanged. */
export function useCatalog(services: TuiServices, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    let cancelled = false;
    let stop: (() => void) | null = null;
    let lastProgress = 0;
    const onProgress = (done: number, total: number): void => {
      const now = Date.now();
      if (cancelled || (done !== total && now - lastProgress < PROGRESS_INTERVAL_MS)) return;
      lastProgress = now;
      dispatch({ type: 'scanProgress', done, total });
    };
    // The first screen (services.cached()) is in the initial state; the whole remembered list follows it,
    // and the scan then validates it file by file.
    services.loadCached?.().then(
      (all) => {
        if (!cancelled && all.length > 0) dispatch({ type: 'cachedCatalog', sessions: all });
      },
      () => undefined,
    );
    services.scan(onProgress).then(
      ({ sessions, problems }) => {
        if (cancelled) return;
        dispatch({ type: 'scanDone', sessions, problems });
        refineTurnCounts(services, sessions, dispatch, () => cancelled);
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
      stop?.();
    };
  }, [services, dispatch]);
}
