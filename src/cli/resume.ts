// `sessions resume ID`: continue a session in its agent's own CLI (here, or on its host over ssh).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveLast, resolveOne } from '../app/list.js';
import type { Agent } from '../core/model.js';
import { checkPlan, planCommand, planResume } from '../app/resume.js';
import { formatCommand } from '../launch.js';
import { agentOption, CliError, cwd, env, hereOf, listSetup, readConfig, warn, warnMissingLocations, withLocations, type CommonOptions } from './common.js';
import { PROC_DIR, resumeChecked } from './resume-checked.js';
import { describeInUse, inUseChecks, sessionInUse } from '../app/in-use.js';
import { safeLine } from '../core/text.js';

type ResumeOptions = CommonOptions & { dryRun?: boolean; prompt?: string; here?: boolean; last?: boolean; agent?: readonly Agent[]; cwd?: string; force?: boolean };

export function resumeCommand(program: Command): void {
  withLocations(program.command('resume'))
    .description("continue a session in the agent's own CLI, in its recorded directory (appends to the same file)")
    .argument('[id]', 'session id, unique id prefix, Codex thread name, or path (none with --last)')
    .argument('[agentArgs...]', 'extra arguments for the agent, after --')
    .option('--last', 'the newest session that ran in the current directory (as `codex resume --last`, `claude --continue`)')
    .option('--cwd <dir>', 'with --last: the directory instead of the current one')
    .addOption(agentOption())
    .option('--dry-run', 'print the command and directory instead of running it')
    .option('--json', 'with --dry-run: print {argv, cwd, env} as JSON')
    .option('--prompt <text>', "run one non-interactive turn with this prompt (e.g. `codex exec resume`, `claude -p --resume`)")
    .option('--here', "run in the current directory instead of the session's recorded one")
    .option('--force', 'resume even when the session looks open in an agent (written in the last minute, or held open by a process)')
    .addHelpText(
      'after',
      `
The agent takes over the terminal; sessions exits with the agent's exit code. A session that looks open in
an agent (${inUseChecks(PROC_DIR)}) is not resumed at once: in a terminal
sessions asks (resume anyway, fork and resume the fork, cancel); otherwise it refuses unless --force.

Examples:
  sessions resume 01a200ed-60a4
  sessions resume 01a200ed-60a4 --dry-run --json
  sessions resume 01a200ed-60a4 --prompt "now add tests"
  sessions resume 01a200ed-60a4 -- --model o3
  sessions resume --last                    the newest session of this directory
  sessions resume --last --agent claude --cwd /home/dev/src/a-api-server --dry-run`,
    )
    .action(async (id: string | undefined, extra: string[], _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<ResumeOptions>();
      if (!options.last && (options.cwd !== undefined || options.agent !== undefined)) throw new CliError('--cwd and --agent choose the session --last resumes: give --last, or an id alone');
      if (!options.last && id === undefined) throw new CliError('give a session id, or --last for the newest session of this directory');
      // With --last there is no id: a word before or after `--` is the agent's.
      const agentArgs = options.last && id !== undefined ? [id, ...extra] : extra;
      const config = readConfig();
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      const found = options.last ? await resolveLast(setup, resolve(cwd, options.cwd ?? '.'), options.agent) : await resolveOne(setup, id!);
      const plan = planResume(found.session, found.place, hereOf(setup, config, found), {
        ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
        extraArgs: agentArgs,
        ...(options.here ? { here: cwd } : {}),
      });
      const inUse = found.place.kind === 'local' && !options.force ? await sessionInUse(found.session, { procDir: PROC_DIR }) : null;
      if (!options.dryRun) {
        const request = { ...(options.prompt === undefined ? {} : { prompt: options.prompt }), extraArgs: agentArgs };
        process.exitCode = await resumeChecked(found, hereOf(setup, config, found), plan, request, inUse);
        return;
      }
      if (inUse !== null && inUse.heldBy.length > 0) warn(`sessions: warning: ${safeLine(found.session.id)} looks open in an agent (${describeInUse(inUse)}): resuming it now would give two agents appending to one file\n`);
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
