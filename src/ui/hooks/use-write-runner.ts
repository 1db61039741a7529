import { useEffect, type Dispatch } from 'react';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import type { PendingWrite, RenameState } from '../state.js';
import { describeError } from '../../core/errors.js';

/** When a rename is submitted, or a delete confirmed or undone, run it through the services and report back. */
export function useWriteRunner(services: TuiServices, rename: RenameState | null, pending: PendingWrite | null, dispatch: Dispatch<Action>): void {
  const renaming = rename?.status === 'working' ? rename : null;
  useEffect(() => {
    if (!renaming) return;
    if (!services.rename) {
      dispatch({ type: 'renameFailed', message: 'renaming is not available here' });
      return;
    }
    services.rename(renaming.session, renaming.name).then(
      (session) => dispatch({ type: 'renameDone', session }),
      (error: unknown) => dispatch({ type: 'renameFailed', message: describeError(error) }),
    );
  }, [services, renaming, dispatch]);

  useEffect(() => {
    if (!pending) return;
    const failed = (error: unknown): void => dispatch({ type: 'writeFailed', message: describeError(error) });
    if (pending.kind === 'remove') {
      if (!services.remove) return failed(new Error('deleting is not available here'));
      services.remove(pending.session).then(() => dispatch({ type: 'removeDone', session: pending.session }), failed);
    } else {
      if (!services.restore) return failed(new Error('restoring is not available here'));
      services.restore(pending.session).then((session) => dispatch({ type: 'restoreDone', session }), failed);
    }
  }, [services, pending, dispatch]);
}
