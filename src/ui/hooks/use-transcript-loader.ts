import { useEffect, useRef, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import type { Message } from '../../core/model.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { describeError } from '../../core/errors.js';

/**
 * While an agent writes to the open session the watcher reports it about once a second; re-reading a big
 * transcript that often would keep a core busy, so reloads of the same session wait at least this long.
 */
const RELOAD_INTERVAL_MS = 2_000;

/** Read the open transcript (again when the session changes on disk) through the services' LRU. */
export function useTranscriptLoader(services: TuiServices, key: string | null, session: CatalogSession | null, dispatch: Dispatch<Action>): void {
  const last = useRef<{ key: string; at: number } | null>(null);
  useEffect(() => {
    if (!key || !session) {
      last.current = null; // closed: opening it again reads at once
      return;
    }
    let cancelled = false;
    const load = (): void => {
      last.current = { key, at: Date.now() };
      // A big transcript shows its start while the rest is read.
      const onPartial = (messages: readonly Message[]): void => {
        // A start without a prompt yet (a huge header, injected context) would only replace "reading…" by an empty screen.
        if (!cancelled && messages.some((message) => message.userTurn)) dispatch({ type: 'transcriptLoaded', key, session: { ...session, messages, malformedLines: 0 }, partial: true });
      };
      services.loadSession(session, onPartial).then(
        (full) => {
          if (!cancelled) dispatch({ type: 'transcriptLoaded', key, session: full });
        },
        (error: unknown) => {
          if (!cancelled) dispatch({ type: 'transcriptFailed', key, message: describeError(error) });
        },
      );
    };
    const previous = last.current;
    const wait = previous?.key === key ? Math.max(0, previous.at + RELOAD_INTERVAL_MS - Date.now()) : 0;
    const timer = wait > 0 ? setTimeout(load, wait) : null;
    if (timer === null) load();
    return () => {
      cancelled = true;
      if (timer !== null) clearTimeout(timer);
    };
  }, [services, key, session, dispatch]);
}
