import { useEffect, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import { firstAndLastExchange } from '../exchanges.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { sessionKey } from '../../core/model.js';

/** Wait for the selection to rest before reading a transcript for the preview. */
const PREVIEW_DELAY_MS = 120;
/** Bigger sessions preview from their summary only: reading them on every arrow key would be felt. */
const PREVIEW_MAX_BYTES = 4 * 1024 * 1024;

/** Read the selected session's first and last exchanges for the preview pane. */
export function usePreviewLoader(services: TuiServices, session: CatalogSession | null, enabled: boolean, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    if (!session || !enabled || session.size > PREVIEW_MAX_BYTES) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      services.loadSession(session).then(
        (full) => {
          if (!cancelled) dispatch({ type: 'previewLoaded', preview: { key: sessionKey(session), ...firstAndLastExchange(full.messages) } });
        },
        () => undefined, // the preview falls back to the summary's prompts
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [services, session, enabled, dispatch]);
}
