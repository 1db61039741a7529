// `sessions fork ID`: a new native session holding the turns before one, of the same agent or (--to) another.
import { type Command, Option } from 'commander';
import { forkSession } from '../app/fork.js';
import { resolveOne } from '../app/list.js';
import { planCommand } from '../app/resume.js';
import { ADAPTER_LIST } from '../core/formats/index.js';
import { HANDOFF_TARGETS, handoffWhere } from '../core/handoff/index.js';
import type { Agent } from '../core/model.js';
import { safeLine } from '../core/text.js';
import { formatCommand } from '../launch.js';
import { CliError, hereOf, listSetup, positiveInt, readConfig, warn, warnMissingLocations, withLocations, type CommonOptions } from './common.js';

type ForkOptions = CommonOptions & { at?: number | 'end'; dropLast?: number; name?: string; to?: Agent; redact?: boolean; withCode?: string | true; leaf?: string };

/** `--at`: a 1-based turn, or `end` (after the last turn: every turn kept). */
function forkTurn(value: string): number | 'end' {
  return value === 'end' ? 'end' : positiveInt(value);
}

export function forkCommand(program: Command): void {
  withLocations(program.command('fork'))
    .description('write a new native session holding the conversation before a user turn')
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path')
    .option('--at <turn>', 'the user turn to fork before (1-based): the fork keeps turns 1..N-1 and their answers; `end` (the default, or the number of turns + 1) keeps every turn', forkTurn)
    .option('--drop-last <n>', 'instead of --at: drop the last n user turns (0: keep every turn)', positiveInt)
    .option('--with-code [dir]', 'with --at N: also the files as they were when turn N was typed, in a new git worktree at DIR (default: beside the repository, named after the fork) on a branch sessions/<fork id>; the fork (or with --to the hand-off) runs there')
    .option('--leaf <entry>', "a session file holding a tree of branches (pi's /tree): fork the branch ending at this entry (its id, or a unique prefix, as the transcript's branch note names it) instead of the one the agent resumes; --at counts that branch's turns")
    .option('--redact', 'with --to: mask API keys, tokens and private keys in what the hand-off writes (prompts, answers, tool output)')
    .option('--name <branch>', "a name for the fork or hand-off, in the agent's own name field (the session's title in list and in the agent)")
    .addOption(new Option('--to <agent>', 'continue the conversation in another agent: a new native session of that agent').choices([...HANDOFF_TARGETS]))
    .option('--json', 'print {id, path, agent, parentId, parentAgent, keptUserTurns, resume: {argv, cwd, env}} as JSON')
    .addHelpText(
      'after',
      `
The original session is never modified. The new file is written atomically with mode 0600, in the
agent's own format, where the agent looks for its sessions, so the agent can resume it:
${ADAPTER_LIST.map((adapter) => `  ${adapter.label}: ${adapter.forkTarget.split('\n').join(`\n${' '.repeat(adapter.label.length + 4)}`)}`).join('\n')}

With --to AGENT (another agent than the session's), the conversation is handed off: a new session of
AGENT, written from the transcript in AGENT's own format where AGENT keeps sessions for the session's
working directory, which AGENT's own resume takes up:
${HANDOFF_TARGETS.map((agent) => `  ${`${agent}:`.padEnd(10)}${handoffWhere(agent)}`).join('\n')}
It carries every user prompt and answer of turns 1..N-1 (every turn without --at) in order, tool calls with their results (a call
with no recorded result gets "no result recorded"), and images (as text for claw and Copilot); it
drops reasoning and thinking (bound to the agent and model that made them) and the source agent's own
context, and starts with a one-line note naming the source agent, session and turn.

Examples:
  sessions fork 01a200ed-60a4              a copy of the whole session, as a new native one
  sessions fork 01a200ed-60a4 --at 3       keep user turns 1-2
  sessions fork 01a200ed-60a4 --drop-last 1
                                           keep everything but the last user turn
  sessions fork 5a1999c3 --to codex        continue the whole Claude Code session in Codex
  sessions fork 5a1999c3 --at 3 --to codex
                                           continue turns 1-2 of it in Codex`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<ForkOptions>();
      if (options.at !== undefined && options.dropLast !== undefined) throw new CliError('give only one of --at <turn> or --drop-last <n>');
      const config = readConfig(); // a config that cannot be read fails the command before anything is written
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      const found = await resolveOne(setup, id);
      const { session } = found;
      const turns = session.userTurns;
      // Neither: the whole conversation. --drop-last 0 drops nothing: the whole conversation too.
      const atTurn = options.dropLast === undefined ? (options.at ?? 'end') : options.dropLast === 0 ? 'end' : turns - options.dropLast + 1;
      if (options.leaf !== undefined && options.dropLast !== undefined) throw new CliError('--drop-last counts the turns of the branch the agent resumes: with --leaf give --at');
      if (options.dropLast !== undefined && atTurn !== 'end' && atTurn < 2) {
        throw new CliError(`--drop-last ${options.dropLast} is out of range: valid values are 0..${Math.max(0, turns - 1)}`);
      }
      const withCode = options.withCode === undefined ? {} : { withCode: options.withCode === true ? {} : { dir: options.withCode } };
      const forked = await forkSession(session, found.place, hereOf(setup, config, found), { atTurn, ...(options.name ? { branchName: options.name } : {}), ...(options.to ? { to: options.to } : {}), ...(options.redact ? { redact: true } : {}), ...withCode, ...(options.leaf === undefined ? {} : { leaf: options.leaf }) });
      const { worktree } = forked;
      const { result, host } = forked;
      if (forked.warning !== undefined) warn(`sessions: warning: ${safeLine(forked.warning)}\n`);
      const resume = planCommand(forked.resume);
      if (options.json) {
        const code = worktree === undefined ? {} : { worktree: { dir: worktree.dir, branch: worktree.branch, base: worktree.base, cwd: worktree.cwd, notes: worktree.notes } };
        process.stdout.write(`${JSON.stringify({ ...result, parentAgent: session.agent, ...(host === null ? {} : { host }), ...code, resume: { argv: resume.argv, cwd: resume.cwd, env: resume.env } }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${result.id}\n${host === null ? '' : `${host}:`}${safeLine(result.path)}\n`);
      const how = result.agent === session.agent ? 'forked' : `handed off to ${result.agent}:`;
      const cut = atTurn === 'end' || atTurn > turns ? 'every turn' : `before turn ${atTurn}`;
      if (worktree !== undefined) {
        warn(`the files as they were before turn ${atTurn}: worktree ${safeLine(worktree.dir)} on branch ${safeLine(worktree.branch)} (from commit ${worktree.base.slice(0, 12)})\n`);
        for (const note of worktree.notes) warn(`  note: ${safeLine(note)}\n`);
      }
      warn(
        `${how} ${session.agent} session ${safeLine(session.id)}${host === null ? '' : ` on ${safeLine(host)}`} ${cut} (kept ${result.keptUserTurns} user turn${result.keptUserTurns === 1 ? '' : 's'})\nresume it with: ${formatCommand(resume)}\n`,
      );
    });
}
