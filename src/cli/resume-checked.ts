// Resume, checked first: a session that looks open in an agent is not resumed without asking (issue 27). Used by
// `sessions resume` and by the browser's Enter (asked once the browser has given the terminal back).
import { createInterface } from 'node:readline/promises';
import { forkSession } from '../app/fork.js';
import { describeInUse, type SessionInUse } from '../app/in-use.js';
export { PROC_DIR } from '../app/in-use.js';
import type { Here, Place } from '../app/place.js';
import { planResume, type ResumePlan, type ResumeRequest } from '../app/resume.js';
import type { CatalogSession } from '../catalog/scan.js';
import { safeLine } from '../core/text.js';
import { CliError, warn } from './common.js';
import { runPlan } from './run-plan.js';


/**
 * Run `plan` for `found.session`; when `inUse` says the session looks open, ask first in a terminal (resume anyway,
 * fork it and resume the fork, cancel), and refuse otherwise. Returns the exit code.
 */
export async function resumeChecked(
  found: { readonly session: CatalogSession; readonly place: Place },
  here: Here,
  plan: ResumePlan,
  request: ResumeRequest,
  inUse: SessionInUse | null,
): Promise<number> {
  const chosen = inUse === null ? 'resume' : await askInUse(found.session, inUse);
  if (chosen === 'cancel') return 1;
  if (chosen === 'resume') return runPlan(plan, found.session);
  const forked = await forkSession(found.session, found.place, here, { atTurn: 'end' });
  warn(`forked ${found.session.agent} session ${safeLine(found.session.id)} as ${safeLine(forked.result.id)} (${safeLine(forked.result.path)})\n`);
  return runPlan(planResume(forked.row, found.place, here, request), forked.row);
}

/**
 * In a terminal, the question. A script cannot be asked: a session a process holds open is refused (exit 1 and the
 * reason, never two agents on one file); one only written in the last minute is resumed with a warning (a script
 * that ran the agent a moment ago and resumes it now is the usual case, and the agent has exited).
 */
async function askInUse(session: CatalogSession, inUse: SessionInUse): Promise<'resume' | 'fork' | 'cancel'> {
  const why = `${session.agent} session ${safeLine(session.id)} looks open in an agent (${describeInUse(inUse)})`;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    if (inUse.heldBy.length === 0) {
      warn(`sessions: warning: ${why}; resuming it (no terminal to ask in)\n`);
      return 'resume';
    }
    throw new CliError(`${why}: resuming it would give two agents appending to one file. Resume it anyway with --force, or fork it (sessions fork ${safeLine(session.id)}) and resume the fork`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (;;) {
      const answer = (await rl.question(`${why}.\n[r] resume anyway  [f] fork it and resume the fork  [c] cancel: `)).trim().toLowerCase();
      if (answer === 'r') return 'resume';
      if (answer === 'f') return 'fork';
      if (answer === 'c' || answer === '') return 'cancel';
    }
  } finally {
    rl.close();
  }
}
