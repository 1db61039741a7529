import { spawn, type ChildProcess } from 'node:child_process';
import { safeLine } from '../core/text.js';

/** How `sessions` reaches hosts: the ssh command (argv prefix) and its timeouts. */
export interface SshSettings {
  /** The ssh command and options before the destination (default `["ssh"]`: the user's own ~/.ssh/config applies). */
  readonly ssh: readonly string[];
  /** Seconds to wait for a host to answer (TCP connect and the SSH handshake). */
  readonly connectTimeout: number;
}

export const DEFAULT_SSH_SETTINGS: SshSettings = { ssh: ['ssh'], connectTimeout: 10 };

/**
 * The argv of one ssh call. Background calls run in batch mode (a password prompt would hang under the
 * browser); `-t` gives an agent its terminal. `--` ends ssh's options, so a destination is never read as one.
 */
export function sshArgv(settings: SshSettings, host: string, remoteLine: string, mode: 'batch' | 'terminal'): string[] {
  const options =
    mode === 'batch'
      ? ['-T', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${settings.connectTimeout}`, '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=2']
      : ['-t', '-o', `ConnectTimeout=${settings.connectTimeout}`];
  return [...settings.ssh, ...options, '--', host, remoteLine];
}

/** The `-e` value rsync runs ssh with (rsync splits it on spaces and honours quotes). */
export function rsyncShell(settings: SshSettings): string {
  const argv = [...settings.ssh, '-T', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${settings.connectTimeout}`, '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=2'];
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", '')}'`)).join(' ');
}

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Written to the command's stdin, then closed (default: stdin closed at once). */
  readonly input?: string | Buffer;
  /**
   * Keep stdin open until the command ends: a host's `list --watch` stops when its stdin (the ssh channel)
   * ends, which is how it learns that this side went away.
   */
  readonly keepStdinOpen?: boolean;
  /** Each complete stdout line as it arrives (stdout is then not collected). */
  readonly onLine?: (line: string) => void;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
}

/** Run a command (ssh, rsync) with an argv array, no shell; resolves when it exits, whatever its code. */
export function runCommand(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> & { readonly child: ChildProcess } {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env });
  const promise = new Promise<RunResult>((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!options.onLine) {
        out.push(chunk);
        return;
      }
      pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        options.onLine(line);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin!.on('error', () => undefined); // a command that exits without reading its input
    if (options.keepStdinOpen) {
      if (options.input !== undefined) child.stdin!.write(options.input);
    } else child.stdin!.end(options.input ?? '');
    const abort = (): void => void child.kill('SIGTERM');
    options.signal?.addEventListener('abort', abort, { once: true });
    let settled = false;
    const done = (code: number | null, signal: NodeJS.Signals | null, extra = ''): void => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', abort);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') + extra });
    };
    child.on('error', (error) => done(null, null, `${argv[0]}: ${error.message}\n`));
    child.on('close', (code, signal) => done(code, signal));
  });
  return Object.assign(promise, { child });
}

/**
 * Why a host could not be read, in one line from what ssh or rsync said on stderr (its last meaningful line:
 * "Permission denied (publickey).", "Connection timed out during banner exchange", …).
 */
export function failureReason(result: RunResult, fallback: string): string {
  const lines = result.stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Warning: Permanently added/.test(line) && !/^\*\*/.test(line));
  // rsync ends with its own summary ("rsync error: … (code 12)"); the line before it says what happened.
  const last = lines.filter((line) => !/^rsync error:/.test(line)).at(-1) ?? lines.at(-1);
  if (last) return safeLine(last.replace(/^ssh: /, ''));
  if (result.signal) return `${fallback} (killed by ${result.signal})`;
  return result.code === null ? fallback : `${fallback} (exit code ${result.code})`;
}
