import { useEffect, type Dispatch } from 'react';
import type { CatalogSession } from '../../catalog/scan.js';
import { describeError } from '../../core/errors.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';

/** Enter (or the menu) asks; this checks the agent's cwd before the TUI exits with a resume decision (or asks the user). */
export function useResumeCheck(services: TuiServices, request: CatalogSession | null, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    if (!request) return;
    let current = true;
    void services.checkResume(request).then(
      (outcome) => current && dispatch({ type: 'resumeChecked', session: request, outcome }),
      (error: unknown) => current && dispatch({ type: 'resumeChecked', session: request, outcome: { kind: 'refuse', message: `cannot resume: ${describeError(error)}` } }),
    );
    return () => {
      current = false;
    };
  }, [services, request, dispatch]);
}

/** The in-use question's "fork it and resume the fork": the whole session forked, then resumed. */
export function useForkThenResume(services: TuiServices, session: CatalogSession | null, dispatch: Dispatch<Action>): void {
  useEffect(() => {
    if (!session) return;
    services.fork(session, 'end', '').then(
      (outcome) => dispatch({ type: 'forkThenResumeDone', session: outcome.session }),
      (error: unknown) => dispatch({ type: 'forkThenResumeFailed', message: describeError(error) }),
    );
  }, [services, session, dispatch]);
}
