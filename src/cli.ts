// The `sessions` command line: commander's program, one module per command (src/cli/), the use cases in src/app/.
import { existsSync, lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { Command } from 'commander';
import { NotResolvedError } from './app/list.js';
import { browse } from './cli/browse.js';
import { CliError, env, reportProblems, warn, withLocations } from './cli/common.js';
import { forkCommand } from './cli/fork.js';
import { grepCommand } from './cli/grep.js';
import { hostsCommand } from './cli/hosts.js';
import { listCommand } from './cli/list.js';
import { mcpCommand } from './cli/mcp.js';
import { removeCommands } from './cli/remove.js';
import { renameCommand } from './cli/rename.js';
import { resumeCommand } from './cli/resume.js';
import { showCommand } from './cli/show.js';
import { configPath } from './config.js';
import { describeError, ForkRangeError, NoCodeError, UnsupportedForkError } from './core/errors.js';
import { safeLine } from './core/text.js';
import { ADAPTER_LIST } from './core/formats/index.js';
import { HandoffError } from './core/handoff/index.js';
import { RenameError } from './app/rename.js';
import { TrashError } from './app/trash.js';
import { UnsafeSessionIdError } from './core/session-id.js';
import { HostActionError } from './remote/host-sessions.js';
import { SESSIONS_VERSION } from './version.js';

/** The commands, each with the names it registers (removeCommands: `rm` and `restore`). */
const COMMANDS: readonly (readonly [readonly string[], (program: Command) => void])[] = [
  [['list'], listCommand],
  [['grep'], grepCommand],
  [['show'], showCommand],
  [['fork'], forkCommand],
  [['resume'], resumeCommand],
  [['hosts'], hostsCommand],
  [['mcp'], mcpCommand],
  [['rename'], renameCommand],
  [['rm', 'restore'], removeCommands],
];

/**
 * The program; `word` (the first word after `sessions`) naming a command: with that command alone, which commander
 * dispatches to as it would in the whole program (defining every command's options was ~7-25 ms of a `show`'s
 * first byte). Anything else (an option, `help`, a word that is no command, nothing) gets every command.
 */
export function buildProgram(word?: string): Command {
  const program = withLocations(new Command('sessions'))
    .description(`Find, replay, fork and resume your coding-agent conversations (${ADAPTER_LIST.map((adapter) => adapter.label).join(', ')}).`)
    .version(SESSIONS_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Without a command, opens the interactive browser (TUI).

Examples:
  sessions                                  browse sessions of the current directory
  sessions list --all                       every session on this machine, newest first
  sessions show 01a200ed-60a4 --format md   a transcript as Markdown
  sessions fork 01a200ed-60a4 --at 3        a new session holding user turns 1-2
  sessions resume 01a200ed-60a4             continue it in the agent's own CLI
  sessions resume --last                    the newest session of this directory
  sessions help list                        a command's options and examples

Config: ${configPath(env, homedir())} (resume commands per agent: docs/agents.md).`,
    )
    .option('--all', 'start the browser with every session, not only the current directory\'s')
    .action(browse);
  const named = COMMANDS.find(([names]) => word !== undefined && names.includes(word));
  for (const command of named === undefined ? COMMANDS : [named]) command[1](program);
  // `sessions help list`, as gh and npm take it (commander leaves it out of a program with an action of its own).
  program.helpCommand('help [command]', 'show the help of a command');
  // Only now, so that the subcommands (which copy the program's settings when created) keep refusing extra words.
  program.allowExcessArguments();
  return program;
}

/** Errors that say what was wrong in the user's terms: printed as they are, exit code 1 (or the CliError's). */
const USER_ERRORS = [CliError, UnsafeSessionIdError, NotResolvedError, HostActionError, ForkRangeError, HandoffError, RenameError, TrashError, NoCodeError, UnsupportedForkError];

export async function main(argv: readonly string[]): Promise<void> {
  // `sessions list | head`: a reader that went away is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  try {
    // argv is process.argv: node, the script, then the user's words.
    await buildProgram(argv[2]).parseAsync([...argv]);
  } catch (error) {
    if (error instanceof NotResolvedError) reportProblems(error.problems);
    if (USER_ERRORS.some((kind) => error instanceof kind)) {
      // A refusal of --with-code names paths and branches read from a session file: one clean line.
      warn(`sessions: ${error instanceof NoCodeError ? safeLine(error.message) : (error as Error).message}\n`);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
      return;
    }
    warn(`sessions: ${whereItFailed(error)}${describeError(error)}\n`);
    process.exitCode = 1;
  }
}

/** The file a system call failed on, named (a dangling symlink said as one), else nothing. */
function whereItFailed(error: unknown): string {
  const path = (error as { path?: unknown } | null)?.path;
  if (typeof path !== 'string' || path === '') return '';
  let dangling = false;
  try {
    dangling = lstatSync(path).isSymbolicLink() && !existsSync(path);
  } catch {
    // not there at all: the error says so
  }
  return `${safeLine(path)}${dangling ? ' (a symlink to a missing target)' : ''}: `;
}
