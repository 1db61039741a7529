import { spawn, type ChildProcess } from 'node:child_process';
import { safeLine } from '../core/text.js';
import { viaPosixShell } from './remote-shell.js';

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
 * browser) and compressed (rows and session files are JSON: a host's 2,000 rows are 2.1 MB raw, a fraction of
 * that compressed — seconds on a slow link); `-t` gives an agent its terminal. `--` ends ssh's options, so a destination is never read as one.
 * `remoteLine` is POSIX shell: it runs in `sh -c`, whatever the user's login shell (fish, csh, …).
 */
export function sshArgv(settings: SshSettings, host: string, remoteLine: string, mode: 'batch' | 'terminal'): string[] {
  const options =
    mode === 'batch'
      ? ['-T', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${settings.connectTimeout}`, '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=2', '-o', 'Compression=yes']
      : ['-t', '-o', `ConnectTimeout=${settings.connectTimeout}`];
  return [...settings.ssh, ...options, '--', host, viaPosixShell(remoteLine)];
}

/** The `-e` value rsync runs ssh with (rsync splits it on spaces and honours quotes). */
export function rsyncShell(settings: SshSettings): string {
  const argv = [...settings.ssh, '-T', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${settings.connectTimeout}`, '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=2', '-o', 'Compression=yes'];
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", '')}'`)).join(' ');
}

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why this side stopped the command (a deadline passed, a line or the total was over its cap); null: it ended by itself. */
  readonly stopped?: string | null;
}

/**
 * How long each phase of a host's answer may take, and how much it may send (docs/architecture.md, "Deadlines and
 * limits"). ssh's ConnectTimeout covers the TCP connect and the handshake only: past it, a host that stops sending
 * would hold a command forever. The deadlines scale with `connectTimeout` (default 10 s: 20 s, 30 s, 120 s).
 */
export interface HostLimits {
  /** From the start to the first byte of stdout (connect, handshake, the login shell starting). */
  readonly firstByteMs: number;
  /** The longest gap between two chunks of stdout before the answer is complete. */
  readonly idleMs: number;
  /** From the start until the answer is complete (a host's `sessions` says `synced`, a probe ends). */
  readonly completeMs: number;
  /** The longest line a host may send (a row is a few KiB). */
  readonly maxLineBytes: number;
  /** What a host may send before its answer is complete (about 60,000 rows). */
  readonly maxTotalBytes: number;
  /** Rows a host may hold (each costs about 1 KiB here, whatever its size on the wire). */
  readonly maxRows: number;
}

export function hostLimits(settings: Pick<SshSettings, 'connectTimeout'>): HostLimits {
  const second = 1000 * settings.connectTimeout;
  return { firstByteMs: 2 * second, idleMs: 3 * second, completeMs: 12 * second, maxLineBytes: 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024, maxRows: 100_000 };
}

/** What stderr keeps of a command's messages (the last bytes: a flooding host's stderr is not held whole). */
const STDERR_KEPT = 64 * 1024;

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
  /**
   * Deadlines and caps on stdout (`limits`): the command is killed, and `stopped` says why, when one passes. The
   * time deadlines hold until `complete()` is called on the returned promise (the caps on a line hold throughout).
   */
  readonly limits?: HostLimits;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
}

export type RunningCommand = Promise<RunResult> & {
  readonly child: ChildProcess;
  /** The answer is complete: the time deadlines and the total cap no longer apply (a stream goes on). */
  complete(): void;
  /** Stop the command with this reason (it becomes the result's `stopped`). */
  stop(reason: string): void;
};

/** Run a command (ssh, rsync) with an argv array, no shell; resolves when it exits, whatever its code. */
export function runCommand(argv: readonly string[], options: RunOptions = {}): RunningCommand {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env });
  const limits = options.limits;
  let stopped: string | null = null;
  let completed = false;
  let total = 0;
  let timer: NodeJS.Timeout | null = null;
  let completeTimer: NodeJS.Timeout | null = null;
  const stop = (reason: string): void => {
    if (stopped !== null) return;
    stopped = reason;
    clearTimers();
    child.kill('SIGKILL');
  };
  const clearTimers = (): void => {
    if (timer) clearTimeout(timer);
    if (completeTimer) clearTimeout(completeTimer);
    timer = completeTimer = null;
  };
  const arm = (ms: number, reason: string): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => stop(reason), ms);
  };
  if (limits) {
    arm(limits.firstByteMs, `no answer within ${seconds(limits.firstByteMs)} of connecting`);
    completeTimer = setTimeout(() => stop(`no complete answer within ${seconds(limits.completeMs)}`), limits.completeMs);
  }
  const promise = new Promise<RunResult>((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let errBytes = 0;
    // The line being received, in chunks (a newline is looked for in each new chunk only).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    child.stdout!.on('data', (chunk: Buffer) => {
      if (stopped !== null) return;
      if (limits && !completed) {
        total += chunk.length;
        if (total > limits.maxTotalBytes) return stop(`sent over ${mebibytes(limits.maxTotalBytes)} before its answer was complete`);
        arm(limits.idleMs, `sent nothing for ${seconds(limits.idleMs)}`);
      }
      if (!options.onLine) {
        out.push(chunk);
        return;
      }
      let start = 0;
      let newline: number;
      while ((newline = chunk.indexOf(10, start)) >= 0) {
        const piece = chunk.subarray(start, newline);
        const line = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        start = newline + 1;
        if (limits && line.length > limits.maxLineBytes) return stop(`sent a line over ${mebibytes(limits.maxLineBytes)}`);
        options.onLine(line.toString('utf8'));
        if (stopped !== null) return;
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (limits && pendingBytes > limits.maxLineBytes) stop(`sent a line over ${mebibytes(limits.maxLineBytes)}`);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err.push(chunk);
      errBytes += chunk.length;
      while (errBytes - err[0]!.length > STDERR_KEPT) errBytes -= err.shift()!.length;
    });
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
      clearTimers();
      options.signal?.removeEventListener('abort', abort);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') + extra, stopped });
    };
    child.on('error', (error) => done(null, null, `${argv[0]}: ${error.message}\n`));
    child.on('close', (code, signal) => done(code, signal));
  });
  const complete = (): void => {
    completed = true;
    clearTimers();
  };
  return Object.assign(promise, { child, complete, stop });
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

/**
 * Why a host could not be read, in one line from what ssh or rsync said on stderr (its last meaningful line:
 * "Permission denied (publickey).", "Connection timed out during banner exchange", …).
 */
export function failureReason(result: RunResult, fallback: string): string {
  if (result.stopped) return result.stopped;
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
