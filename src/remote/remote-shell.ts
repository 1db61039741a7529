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
