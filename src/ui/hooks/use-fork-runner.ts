import { useEffect, type Dispatch } from 'react';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import type { ForkState } from '../state.js';
import { describeError } from '../../core/errors.js';

/** When the fork prompt is confirmed, write the fork through the adapter and report back. */
export function useForkRunner(services: TuiServices, fork: ForkState | null, dispatch: Dispatch<Action>): void {
  const working = fork?.status === 'working' ? fork : null;
  useEffect(() => {
    if (!working) return;
    services.fork(working.session, working.whole ? 'end' : working.atTurn, working.branchName, working.target, working.withCode).then(
      (outcome) => dispatch({ type: 'forkDone', session: outcome.session, resumeCommand: outcome.resumeCommand }),
      (error: unknown) => dispatch({ type: 'forkFailed', message: describeError(error) }),
    );
  }, [services, working, dispatch]);
}
