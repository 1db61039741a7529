// New files written into a host's mirror (a fork or hand-off built here) and placed on the host over ssh.
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { HostActionError } from './host-sessions.js';
import { remoteQuote } from './remote-shell.js';
import { failureReason, hostLimits, runCommand, sshArgv, type SshSettings } from './ssh.js';

/**
 * Write a new file on a host so that the host's agents see it whole or not at all: the bytes go to a temp name in its
 * folder (a name no agent lists: hidden, and not ending in the agent's suffix), the host counts what arrived — a link
 * cut mid-upload ends `cat` as if the file were complete — and only a whole file is flushed to disk (`sync`) and hard-
 * linked to its final name (a link never replaces a file), mode 0600. The temp name is removed whatever happens
 * (the shell's EXIT trap; a hang-up or broken pipe ends the shell through it too).
 */
export async function placeOnHost(host: string, settings: SshSettings, path: string, bytes: Buffer): Promise<void> {
  const dir = posix.dirname(path);
  const temp = posix.join(dir, `.${posix.basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const run = await runCommand(sshArgv(settings, host, placeLine(dir, temp, path, bytes.length), 'batch'), { input: bytes });
  if (run.code === 0) return;
  // The link dropped (ssh's own 255, or killed): the host may have finished before the answer was lost. A file at the
  // final name with every byte is the one placed (the name is new: a uuid).
  if ((run.code === 255 || run.code === null) && (await placedSize(host, settings, path)) === bytes.length) return;
  throw new HostActionError(`${host}: cannot write ${path}: ${failureReason(run, 'ssh failed')}`);
}

/** The host's side of placeOnHost (POSIX sh). */
export function placeLine(dir: string, temp: string, path: string, size: number): string {
  return [
    `umask 077`,
    `t=${remoteQuote(temp)}`,
    `trap 'rm -f "$t"' EXIT`,
    `trap 'exit 129' HUP PIPE TERM`,
    `mkdir -p ${remoteQuote(dir)} || exit`,
    `cat > "$t" || exit`,
    `n=$(wc -c < "$t") || exit`,
    `if [ $n -ne ${size} ]; then echo "the upload was cut: $n of ${size} bytes arrived, nothing was written" >&2; exit 75; fi`,
    `sync`,
    `ln "$t" ${remoteQuote(path)}`,
  ].join('; ');
}

/** The size of the file at `path` on the host, or null (none, or the host cannot be asked). */
async function placedSize(host: string, settings: SshSettings, path: string): Promise<number | null> {
  const run = await runCommand(sshArgv(settings, host, `[ -f ${remoteQuote(path)} ] && wc -c < ${remoteQuote(path)}`, 'batch'), { limits: hostLimits(settings) });
  const size = Number(run.stdout.trim());
  return run.code === 0 && /^\s*\d+\s*$/.test(run.stdout) ? size : null;
}

/**
 * The files a hand-off writer made for the session at `path`: in its folder and each folder above it up to the
 * agent's home, those changed since `since` (the mirror's copies keep the host's times, all older).
 */
export async function newFilesBeside(path: string, home: string, since: number): Promise<string[]> {
  const found: string[] = [];
  for (let dir = dirname(path); dir === home || dir.startsWith(`${home}/`); dir = dirname(dir)) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(dir, entry.name);
      if ((await stat(file)).mtimeMs >= since) found.push(file);
    }
    if (dir === home) break;
  }
  if (!found.includes(path)) found.push(path);
  return found;
}
