import { useEffect, useRef, type Dispatch } from 'react';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';

/**
 * Read the other machines while the local list is on screen: each host's rows and status flow in as it
 * answers (never waited for), again every `refreshMs` and when `refreshCount` goes up (the `R` key).
 */
export function useHosts(services: TuiServices, refreshCount: number, dispatch: Dispatch<Action>): void {
  const handle = useRef<{ refresh(): void; stop(): void } | null>(null);
  useEffect(() => {
    const hosts = services.hosts;
    if (!hosts) return;
    let stopped = false;
    const started = hosts.start((update) => {
      if (!stopped) dispatch({ type: 'hostUpdate', ...update });
    });
    handle.current = started;
    const timer = setInterval(() => started.refresh(), hosts.refreshMs);
    return () => {
      stopped = true;
      clearInterval(timer);
      started.stop();
      handle.current = null;
    };
  }, [services, dispatch]);
  useEffect(() => {
    if (refreshCount > 0) handle.current?.refresh();
  }, [refreshCount]);
}
