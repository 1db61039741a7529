// A real OpenSSH server for the tests: /usr/sbin/sshd started on 127.0.0.1 on a free port with its own config,
// host key and a throwaway client key, all in a temp dir. It runs as the user running the tests (no other
// account is touched), and each "host" is one sshd whose sessions get their own HOME and PATH (sshd_config
// SetEnv), so the remote home is a temp dir too. Nothing reads or writes the real ~/.ssh: the client runs with
// `ssh -F <config>`, which names the key, the known_hosts file and the port.
import { spawn, type ChildProcess, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const SSHD = '/usr/sbin/sshd';

/** Are OpenSSH's server and client, and rsync, installed? (CI installs them: .ci/run.) */
export function sshAvailable(): boolean {
  return existsSync(SSHD) && ['/usr/bin/ssh', '/usr/bin/ssh-keygen', '/usr/bin/rsync'].every((path) => existsSync(path));
}

export interface HostSpec {
  /** The ssh alias the tests use as a destination. */
  readonly name: string;
  /** Put a `sessions` (this checkout's bin/sessions.js) on the host's PATH. */
  readonly withSessions: boolean;
}

export interface TestHost extends HostSpec {
  readonly home: string;
  /** First on the host's PATH: stand-in agents go here. */
  readonly bin: string;
  readonly port: number;
}

export class TestSshd {
  private constructor(
    readonly dir: string,
    /** `ssh -F <this>` reaches every host by its name (plus `refused`, a key the server does not accept, and `silent`). */
    readonly sshConfig: string,
    readonly hosts: readonly TestHost[],
    private readonly servers: ChildProcess[],
    private readonly silent: Server,
  ) {}

  /** The `ssh` argv prefix for config.json. */
  get ssh(): string[] {
    return ['ssh', '-F', this.sshConfig];
  }

  host(name: string): TestHost {
    const host = this.hosts.find((one) => one.name === name);
    if (!host) throw new Error(`no test host ${name}`);
    return host;
  }

  static async start(dir: string, specs: readonly HostSpec[], sessionsBin: string): Promise<TestSshd> {
    if (!sshAvailable()) {
      throw new Error('the hosts tests need OpenSSH and rsync: apt-get install -y openssh-server openssh-client rsync (SESSIONS_ALLOW_NO_SSH=1 skips them)');
    }
    await mkdir(dir, { recursive: true });
    await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
    await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'client_key')]);
    await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'other_key')]);
    await exec('cp', [join(dir, 'client_key.pub'), join(dir, 'authorized_keys')]);
    await chmod(join(dir, 'authorized_keys'), 0o600);
    // Privilege separation wants this directory when sshd runs as root (the package makes it at boot).
    if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
    const user = userInfo().username;
    const hosts: TestHost[] = [];
    const servers: ChildProcess[] = [];
    const clientLines: string[] = [];
    const hostBlock = (alias: string, port: number, key: string): string[] => [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, key)}`,
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking no',
      '  LogLevel ERROR',
    ];
    try {
      for (const spec of specs) {
        const home = join(dir, `${spec.name}-home`);
        const bin = join(home, 'bin');
        await mkdir(bin, { recursive: true });
        if (spec.withSessions) {
          await writeFile(join(bin, 'sessions'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(sessionsBin)} "$@"\n`);
          await chmod(join(bin, 'sessions'), 0o755);
        }
        const port = await freePort();
        const config = join(dir, `${spec.name}.sshd_config`);
        await writeFile(
          config,
          [
            'ListenAddress 127.0.0.1',
            `Port ${port}`,
            `HostKey ${join(dir, 'host_key')}`,
            `PidFile ${join(dir, `${spec.name}.pid`)}`,
            `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
            'StrictModes no',
            'UsePAM no',
            'PasswordAuthentication no',
            'KbdInteractiveAuthentication no',
            'PubkeyAuthentication yes',
            'PermitRootLogin prohibit-password',
            'PrintMotd no',
            'PrintLastLog no',
            'UseDNS no',
            'MaxStartups 50',
            'MaxSessions 50',
            // The host's own environment: its home and PATH (node for the host's `sessions`, then the system).
            `SetEnv HOME=${home} PATH=${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8`,
            'LogLevel ERROR',
            '',
          ].join('\n'),
        );
        const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
        servers.push(child);
        let log = '';
        child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
        await waitForPort(port, () => log);
        hosts.push({ ...spec, home, bin, port });
        clientLines.push(...hostBlock(spec.name, port, 'client_key'));
      }
      // A host whose server refuses our key, and one that accepts the connection and never says a word.
      clientLines.push(...hostBlock('refused', hosts[0]!.port, 'other_key'));
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const silentPort = (silent.address() as { port: number }).port;
      clientLines.push(...hostBlock('silent', silentPort, 'client_key'));
      const sshConfig = join(dir, 'ssh_config');
      await writeFile(sshConfig, `${clientLines.join('\n')}\n`);
      return new TestSshd(dir, sshConfig, hosts, servers, silent);
    } catch (error) {
      for (const child of servers) child.kill('SIGTERM');
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.silent.close();
    await Promise.all(
      this.servers.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}

export function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Poll until sshd accepts connections (it prints nothing when ready). */
async function waitForPort(port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not start on port ${port}: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
