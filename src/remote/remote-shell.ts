/**
 * Commands for a remote shell. `ssh HOST CMD` hands CMD to the login shell of the remote user as one string,
 * so every argument is quoted here, once, for a POSIX shell (sh, dash, bash, zsh): single quotes around
 * anything that is not a plain word, `'\''` for a quote inside. Nothing else quotes it again.
 */

/** One argument, quoted for a POSIX shell (plain words stay as they are). */
export function remoteQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * A POSIX shell line as the command ssh hands to the remote user's login shell, whatever that shell is: `sh -c '…'`.
 * The login shell only has to pass one single-quoted word to sh. Fish reads `\\` and `\'` inside single quotes as
 * escapes, so a quote or a backslash is written outside them (`'\''`, `'\\'`), which sh, bash, zsh and fish all read
 * the same way (csh too, but for a newline, which it does not take inside quotes). A line those shells all read as
 * sh does (plain words, `&&`, single quotes with no backslash or quote in them: `cd '/srv/my app' && exec codex
 * resume ID`) is sent as it is, so the command printed to resume by hand stays readable.
 */
export function viaPosixShell(line: string): string {
  if (PORTABLE.test(line)) return line;
  const quoted = `'${line.replace(/['\\]/g, (char) => `'\\${char}'`)}'`;
  return `sh -c ${quoted}`;
}

// One character or one quoted string at a time (no nested repetition: linear on any line).
const PORTABLE = /^(?:[\w@%+=:,./-]|'[^'\\\n]*'| |&&)*$/;

/** An argv as one remote shell line. */
export function remoteArgv(argv: readonly string[]): string {
  return argv.map(remoteQuote).join(' ');
}

/**
 * `cd CWD && exec env VAR=value ARGV…`: run an agent on the host in its recorded directory with its variables.
 * Without a cwd the agent runs in the login directory.
 */
export function remoteLaunchLine(command: { readonly argv: readonly string[]; readonly cwd: string | null; readonly env?: Readonly<Record<string, string>> }): string {
  const assignments = Object.entries(command.env ?? {}).map(([name, value]) => `${name}=${value}`);
  const run = assignments.length > 0 ? `exec env ${remoteArgv([...assignments, ...command.argv])}` : `exec ${remoteArgv(command.argv)}`;
  return command.cwd === null ? run : `cd ${remoteQuote(command.cwd)} && ${run}`;
}
