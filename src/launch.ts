import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { ResumeCommand } from './core/resume.js';
import { safeLine } from './core/text.js';

/** Find an executable the way a shell would: a path as given, else each PATH entry. */
export function findExecutable(command: string, env: Readonly<Record<string, string | undefined>>, cwd: string): string | null {
  const candidates = command.includes('/')
    ? [isAbsolute(command) ? command : resolve(cwd, command)]
    : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Characters a terminal would act on or hide: written as `$'\xNN'` / `$'\uNNNN'` escapes instead. */
// eslint-disable-next-line no-control-regex -- control characters are what this is about
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/**
 * Quote one argument for a shell, so a printed command can be copied and pasted: plain words as they are,
 * others in single quotes, and any with control, zero-width or bidi characters as bash's `$'…'` with escapes
 * (exact, and nothing in it reaches the terminal as a control).
 */
export function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (!UNPRINTABLE.test(arg)) return `'${arg.replaceAll("'", `'\\''`)}'`;
  let out = '';
  for (const char of arg) {
    const code = char.codePointAt(0)!;
    if (char === "'" || char === '\\') out += `\\${char}`;
    else if (UNPRINTABLE.test(char)) out += code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `$'${out}'`;
}

/** The command as a shell line to copy: `cd DIR && VAR=value agent args` (only the display is a shell string). */
export function formatCommand(command: Pick<ResumeCommand, 'argv' | 'cwd'> & { readonly env?: ResumeCommand['env'] }): string {
  const assignments = Object.entries(command.env ?? {}).map(([name, value]) => `${name}=${shellQuote(value)} `);
  const argv = assignments.join('') + command.argv.map(shellQuote).join(' ');
  return command.cwd ? `cd ${shellQuote(command.cwd)} && ${argv}` : argv;
}

export type LaunchCheck =
  | { readonly ok: true; readonly executable: string; readonly cwd: string }
  | { readonly ok: false; readonly reason: 'not-found' | 'no-cwd' | 'cwd-missing'; readonly message: string };

/** Check that a resume command can run: the agent is on PATH and the recorded cwd exists. */
export function checkLaunch(
  command: Pick<ResumeCommand, 'argv' | 'cwd'> & { readonly env?: ResumeCommand['env'] },
  env: Readonly<Record<string, string | undefined>>,
  fallbackCwd: string | null,
): LaunchCheck {
  const cwd = command.cwd ?? fallbackCwd;
  if (cwd === null) {
    return { ok: false, reason: 'no-cwd', message: 'the session recorded no working directory; run it from the project directory with --here' };
  }
  if (!isDirectory(cwd)) {
    return { ok: false, reason: 'cwd-missing', message: `the session's directory ${safeLine(cwd)} no longer exists; use --here to run in the current directory` };
  }
  const executable = findExecutable(command.argv[0] ?? '', env, cwd);
  if (executable === null) {
    return {
      ok: false,
      reason: 'not-found',
      message: `\`${command.argv[0]}\` is not on PATH. The resume command is:\n  ${formatCommand(command)}\n(set another command in the config file; see \`sessions --help\`)`,
    };
  }
  return { ok: true, executable, cwd };
}

/** Run the agent with the terminal handed over; resolves to its exit code (128+signal when killed). */
export function runInherited(executable: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    // PWD says where the agent runs, as a shell's `cd` would: opencode (Bun) takes its directory from PWD, not getcwd().
    const child = spawn(executable, args, { cwd, env: { ...env, PWD: cwd }, stdio: 'inherit' });
    // While the agent owns the terminal, Ctrl-C belongs to it, not to us.
    const ignore = (): void => undefined;
    process.on('SIGINT', ignore);
    child.on('error', (error) => {
      process.off('SIGINT', ignore);
      reject(error);
    });
    child.on('close', (code, signal) => {
      process.off('SIGINT', ignore);
      resolvePromise(code ?? (signal ? 128 + (signalNumber(signal) ?? 1) : 1));
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
