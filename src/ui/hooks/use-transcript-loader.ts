import { useEffect, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import { describeError } from '../../catalog/scan.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';

/** Read the open transcript (again when the session changes on disk) through the services' LRU. */
export function useTranscriptLoader(services: TuiServices, key: string | null, session: CatalogSession | null, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    if (!key || !session) return;
    let cancelled = false;
    services.loadSession(session).then(
      (full) => {
        if (!cancelled) dispatch({ type: 'transcriptLoaded', key, session: full });
      },
      (error: unknown) => {
        if (!cancelled) dispatch({ type: 'transcriptFailed', key, message: describeError(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [services, key, session, dispatch]);
}
