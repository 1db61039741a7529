import { useEffect, type Dispatch } from 'react';
import type { Action } from '../reducer.js';

/** Ages and "live" markers are relative to now: refresh them every few seconds. */
export function useClock(now: () => number, intervalMs: number, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    const timer = setInterval(() => dispatch({ type: 'tick', now: now() }), intervalMs);
    return () => clearInterval(timer);
  }, [now, intervalMs, dispatch]);
}
