import { ADAPTERS } from './formats/index.js';
import type { Agent } from './model.js';

/*
 * A session's id comes from inside a file (or its name), and goes into an agent's argv and into paths: an id
 * such as `--dangerously-skip-permissions` would be read by the agent as an option. Every id is checked against
 * its agent's own shape (its adapter's `idShape`) before it is used for anything but display.
 */

/** Why this id cannot be used in a command or a path, or null when it has its agent's shape. */
export function sessionIdProblem(session: { readonly agent: Agent; readonly id: string }): string | null {
  const shape = ADAPTERS[session.agent].idShape;
  if (shape.pattern.test(session.id)) return null;
  return `its id is not ${shape.description}, so it is not passed to ${session.agent} (the file may be damaged or hostile); it can be shown but not resumed or forked`;
}

/** An id that failed its shape check: nothing was run or written. */
export class UnsafeSessionIdError extends Error {
  constructor(
    readonly session: { readonly agent: Agent; readonly id: string },
    readonly problem: string,
  ) {
    super(`cannot use ${session.agent} session ${session.id}: ${problem}`);
    this.name = 'UnsafeSessionIdError';
  }
}

/** Throw UnsafeSessionIdError unless the session's id has its agent's shape. */
export function assertSessionId(session: { readonly agent: Agent; readonly id: string }): void {
  const problem = sessionIdProblem(session);
  if (problem !== null) throw new UnsafeSessionIdError(session, problem);
}
