// Running a resume plan: the only place that spawns an agent (or ssh to one), with the terminal handed over.
import type { ResumePlan } from '../app/resume.js';
import type { CatalogSession } from '../catalog/scan.js';
import { safeLine } from '../core/text.js';
import { checkLaunch, findExecutable, formatCommand, runInherited } from '../launch.js';
import { cwd, env, warn } from './common.js';

/** Run the plan; returns the exit code `sessions` should exit with (the agent's, or why it could not start). */
export async function runPlan(plan: ResumePlan, session: Pick<CatalogSession, 'agent' | 'id'>): Promise<number> {
  if (plan.kind === 'remote') return runRemote(plan.launch.argv);
  const command = plan.command;
  const check = checkLaunch(command, env, null);
  if (!check.ok) {
    warn(`sessions: cannot resume ${session.agent} session ${safeLine(session.id)}: ${check.message}\n`);
    if (check.reason !== 'not-found') warn(`the command would be:\n  ${formatCommand(command)}\n`);
    return check.reason === 'not-found' ? 127 : 1;
  }
  return runInherited(check.executable, command.argv.slice(1), check.cwd, { ...process.env, ...command.env });
}

/** Run ssh with the terminal handed over (`ssh -t HOST …`); its exit code is the agent's, or 255 when ssh failed. */
export async function runRemote(argv: readonly string[]): Promise<number> {
  const executable = findExecutable(argv[0]!, env, cwd);
  if (executable === null) {
    warn(`sessions: \`${argv[0]}\` is not on PATH. The command is:\n  ${formatCommand({ argv, cwd: null })}\n`);
    return 127;
  }
  return runInherited(executable, argv.slice(1), cwd, process.env);
}
