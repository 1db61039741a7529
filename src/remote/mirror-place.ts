// New files written into a host's mirror (a fork or hand-off built here) and placed on the host over ssh.
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { HostActionError } from './host-sessions.js';
import { remoteQuote } from './remote-shell.js';
import { failureReason, runCommand, sshArgv, type SshSettings } from './ssh.js';

/** Write a new file on a host: a temp name in its folder, then a hard link to the final name (never replacing one), mode 0600. */
export async function placeOnHost(host: string, settings: SshSettings, path: string, bytes: Buffer): Promise<void> {
  const dir = posix.dirname(path);
  const temp = posix.join(dir, `.${posix.basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const line = `umask 077 && mkdir -p ${remoteQuote(dir)} && cat > ${remoteQuote(temp)} && ln ${remoteQuote(temp)} ${remoteQuote(path)}; s=$?; rm -f ${remoteQuote(temp)}; exit $s`;
  const run = await runCommand(sshArgv(settings, host, line, 'batch'), { input: bytes });
  if (run.code !== 0) throw new HostActionError(`${host}: cannot write ${path}: ${failureReason(run, 'ssh failed')}`);
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
