// `sessions resume ID`: continue a session in its agent's own CLI (here, or on its host over ssh).
import type { Command } from 'commander';
import { resolveOne } from '../app/list.js';
import { checkPlan, planCommand, planResume } from '../app/resume.js';
import { formatCommand } from '../launch.js';
import { cwd, env, hereOf, listSetup, readConfig, warnMissingLocations, withLocations, type CommonOptions } from './common.js';
import { runPlan } from './run-plan.js';

type ResumeOptions = CommonOptions & { dryRun?: boolean; prompt?: string; here?: boolean };

export function resumeCommand(program: Command): void {
  withLocations(program.command('resume'))
    .description("continue a session in the agent's own CLI, in its recorded directory (appends to the same file)")
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path')
    .argument('[agentArgs...]', 'extra arguments for the agent, after --')
    .option('--dry-run', 'print the command and directory instead of running it')
    .option('--json', 'with --dry-run: print {argv, cwd, env} as JSON')
    .option('--prompt <text>', "run one non-interactive turn with this prompt (e.g. `codex exec resume`, `claude -p --resume`)")
    .option('--here', "run in the current directory instead of the session's recorded one")
    .addHelpText(
      'after',
      `
The agent takes over the terminal; sessions exits with the agent's exit code.

Examples:
  sessions resume 01a200ed
  sessions resume 01a200ed --dry-run --json
  sessions resume 01a200ed --prompt "now add tests"
  sessions resume 01a200ed -- --model o3`,
    )
    .action(async (id: string, agentArgs: string[], _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<ResumeOptions>();
      const config = readConfig();
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      const found = await resolveOne(setup, id);
      const plan = planResume(found.session, found.place, hereOf(setup, config, found), {
        ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
        extraArgs: agentArgs,
        ...(options.here ? { here: cwd } : {}),
      });
      if (!options.dryRun) {
        process.exitCode = await runPlan(plan, found.session);
        return;
      }
      const shown = planCommand(plan);
      if (options.json) {
        const remote = plan.kind === 'remote' ? { host: plan.host, remote: plan.launch.remoteLine } : {};
        process.stdout.write(`${JSON.stringify({ argv: shown.argv, cwd: shown.cwd, env: shown.env, ...remote }, null, 2)}\n`);
      } else process.stdout.write(`${formatCommand(shown)}\n`);
      // What the real run would refuse, said now (the agent missing from PATH is not: a dry run may be for elsewhere).
      const check = checkPlan(plan, env);
      if (check !== null && !check.ok && check.reason !== 'not-found') process.stderr.write(`sessions: warning: ${check.message}\n`);
    });
}
