import { useEffect, useRef, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import type { Message } from '../../core/model.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { buildTranscriptItems, transcriptHeader, type TranscriptItem } from '../transcript-layout.js';
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
      const onPartial = (items: readonly TranscriptItem[]): void => {
        if (!cancelled) dispatch({ type: 'transcriptLoaded', key, items, partial: true });
      };
      loadItems(services, session, onPartial).then(
        (items) => {
          if (!cancelled) dispatch({ type: 'transcriptLoaded', key, items });
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

/** The services' items, or (services that only read sessions) items made from the session read. */
function loadItems(services: TuiServices, session: CatalogSession, onPartial: (items: readonly TranscriptItem[]) => void): Promise<readonly TranscriptItem[]> {
  if (services.loadTranscript) return services.loadTranscript(session, onPartial);
  // A start without a prompt yet (a huge header, injected context) would only replace "reading…" by an empty screen.
  const partial = (messages: readonly Message[]): void => {
    if (messages.some((message) => message.userTurn)) onPartial(buildTranscriptItems({ ...session, messages }));
  };
  return services.loadSession(session, partial).then((read) => buildTranscriptItems({ ...transcriptHeader(read, session), messages: read.messages }));
}
