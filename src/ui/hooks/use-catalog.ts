import { useEffect, type Dispatch } from 'react';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { ROW_BATCHES, RowBatcher } from '../row-batches.js';
import { describeError } from '../../core/errors.js';

/** Scan once, then watch: the catalog flows into the reducer as scanProgress, scanDone and catalogChanged. */
export function useCatalog(services: TuiServices, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    let cancelled = false;
    let stop: (() => void) | null = null;
    // Rows read from files (not from the cache) show up as they are indexed, newest first: the first screen as soon
    // as a screenful is indexed, then in batches with the progress line.
    const batches = new RowBatcher(
      ROW_BATCHES,
      (rows) => dispatch({ type: 'catalogChanged', upserted: rows, removed: [] }),
      (progress) => dispatch({ type: 'scanProgress', progress }),
    );
    // The first screen (services.cached()) is in the initial state; the whole remembered list follows it,
    // and the scan then validates it file by file.
    services.loadCached?.().then(
      (all) => {
        if (!cancelled && all.length > 0) dispatch({ type: 'cachedCatalog', sessions: all });
      },
      () => undefined,
    );
    services.scan(
      (progress) => batches.progressed(progress),
      (session) => batches.row(session),
    ).then(
      ({ sessions, problems }) => {
        batches.stop();
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
      batches.stop();
      stop?.();
    };
  }, [services, dispatch]);
}
