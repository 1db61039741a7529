// A real OpenSSH server for the tests: /usr/sbin/sshd started on 127.0.0.1 on a free port with its own config,
// host key and a throwaway client key, all in a temp dir. Each "host" is one sshd. Run as root (CI), each host
// logs in as a second system user made for it (useradd, its home a temp dir; removed by stop()), so the host's
// files belong to another account, as on another machine. Run as anyone else, no account can be made: the host
// logs in as the user running the tests, with its own HOME (sshd_config SetEnv), and `secondUser` says so.
// Nothing reads or writes the real ~/.ssh: the client runs with `ssh -F <config>`, which names the key, the
// known_hosts file, the port and the user.
import { spawn, type ChildProcess, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { copyBuiltCli } from '../helpers/built-cli.js';

const exec = promisify(execFile);
export const SSHD = '/usr/sbin/sshd';

/** Are OpenSSH's server and client, and rsync, installed? (CI installs them: .ci/run.) */
export function sshAvailable(): boolean {
  return existsSync(SSHD) && ['/usr/bin/ssh', '/usr/bin/ssh-keygen', '/usr/bin/rsync'].every((path) => existsSync(path));
}

/** Who the test hosts log in as, for the tests' names: the fallback, when not root, is said there. */
export const LOGIN_AS = process.getuid?.() === 0 ? 'each host logging in as a second system user' : 'each host logging in as this same user (not root: no second account can be made)';

export interface HostSpec {
  /** The ssh alias the tests use as a destination. */
  readonly name: string;
  /** Put a `sessions` (this checkout's bin/sessions.js) on the host's PATH. */
  readonly withSessions: boolean;
  /**
   * The shell that runs what ssh asks (default /bin/sh): the account's login shell when the tests make one (root);
   * otherwise sshd's ForceCommand hands the command to it, as a login shell would be handed it.
   */
  readonly loginShell?: string;
}

export interface TestHost extends HostSpec {
  /** The account the host logs in as. */
  readonly user: string;
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
    /** True when each host logs in as a user of its own (the tests run as root); false: as the user running them. */
    readonly secondUser: boolean,
  ) {}

  /** Give each host's home, as the tests filled it, to the host's user (what they write there is theirs). */
  async handOver(): Promise<void> {
    if (!this.secondUser) return;
    for (const host of this.hosts) await exec('chown', ['-R', `${host.user}:${host.user}`, host.home]);
  }

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
    const secondUser = process.getuid?.() === 0;
    // sshd reads the authorized keys as the user logging in: the public key, and the folders down to it, are readable.
    await chmod(join(dir, 'authorized_keys'), secondUser ? 0o644 : 0o600);
    if (secondUser) {
      // Only the search (x) bit is added where it is missing (a mkdtemp folder is 0700); nothing is taken away.
      for (let up = dir; up !== dirname(up); up = dirname(up)) {
        const { mode } = await stat(up);
        if ((mode & 0o001) === 0) await chmod(up, (mode & 0o7777) | 0o011);
      }
    }
    // Privilege separation wants this directory when sshd runs as root (the package makes it at boot).
    if (secondUser) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
    const hosts: TestHost[] = [];
    const users: string[] = [];
    let readableCli: string | undefined;
    const servers: ChildProcess[] = [];
    const clientLines: string[] = [];
    const hostBlock = (alias: string, port: number, key: string, user: string): string[] => [
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
        let user = userInfo().username;
        if (secondUser) {
          // A locked account ('!') may not log in even with a key; '*' has no password and is not locked.
          user = `st${process.pid.toString(36)}${randomBytes(3).toString('hex')}${hosts.length}`;
          await exec('useradd', ['--no-create-home', '--home-dir', home, '--shell', spec.loginShell ?? '/bin/sh', '--user-group', '--no-log-init', '--password', '*', user]);
          users.push(user);
        }
        if (spec.withSessions) {
          // A second user may not read this checkout (a clone in a `mktemp -d` folder): it runs a copy it can read.
          const cli = secondUser ? (readableCli ??= await copyBuiltCli(join(dir, 'cli'))) : sessionsBin;
          await writeFile(join(bin, 'sessions'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(cli)} "$@"\n`);
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
            // The host's own environment: its PATH (node for the host's `sessions`, then the system); as the same
            // user, its own HOME too (another user's comes from its account).
            `SetEnv ${secondUser ? '' : `HOME=${home} `}PATH=${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8`,
            'LogLevel ERROR',
            ...(spec.loginShell && !secondUser ? [`ForceCommand exec ${spec.loginShell} -c "$SSH_ORIGINAL_COMMAND"`] : []),
            '',
          ].join('\n'),
        );
        const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
        servers.push(child);
        let log = '';
        child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
        await waitForPort(port, () => log);
        hosts.push({ ...spec, user, home, bin, port });
        clientLines.push(...hostBlock(spec.name, port, 'client_key', user));
      }
      // A host whose server refuses our key, and one that accepts the connection and never says a word.
      clientLines.push(...hostBlock('refused', hosts[0]!.port, 'other_key', hosts[0]!.user));
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const silentPort = (silent.address() as { port: number }).port;
      clientLines.push(...hostBlock('silent', silentPort, 'client_key', hosts[0]!.user));
      const sshConfig = join(dir, 'ssh_config');
      await writeFile(sshConfig, `${clientLines.join('\n')}\n`);
      const sshd = new TestSshd(dir, sshConfig, hosts, servers, silent, secondUser);
      await sshd.handOver();
      return sshd;
    } catch (error) {
      for (const child of servers) child.kill('SIGTERM');
      await removeUsers(users);
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.silent.close();
    await this.stopServers();
    if (this.secondUser) await removeUsers(this.hosts.map((host) => host.user));
  }

  private async stopServers(): Promise<void> {
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

/** Remove the test's accounts (-f: even when one of their processes is still ending). */
async function removeUsers(users: readonly string[]): Promise<void> {
  for (const user of users) await exec('userdel', ['-f', user]).catch(() => undefined);
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
