import { useEffect, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';

/** Enter (or the menu) asks; this checks the agent's cwd before the TUI exits with a resume decision (or asks the user). */
export function useResumeCheck(services: TuiServices, request: CatalogSession | null, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    if (!request) return;
    dispatch({ type: 'resumeChecked', session: request, outcome: services.checkResume(request) });
  }, [services, request, dispatch]);
}
