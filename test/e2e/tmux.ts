// Drive the built bin/sessions.js in a real terminal: a private tmux server, keys sent one at a time,
// the screen read back with capture-pane.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface TerminalOptions {
  /** Directory for the launcher script and the exit-code file. */
  readonly dir: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
  readonly columns?: number;
  readonly rows?: number;
  /** tmux configuration lines for the server (default: none), e.g. `set -g set-clipboard on`. */
  readonly tmuxConfig?: readonly string[];
}

export class Terminal {
  private constructor(
    private readonly socket: string,
    readonly exitFile: string,
  ) {}

  /** Start `argv` in a fresh tmux server (its own socket in `dir`, no user config) at a fixed size. */
  static async start(options: TerminalOptions): Promise<Terminal> {
    const socket = join(options.dir, 'tmux.sock');
    const script = join(options.dir, 'launch.sh');
    const exitFile = join(options.dir, 'exit-code');
    const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
    const env = Object.entries(options.env).map(([key, value]) => `${key}=${quote(value)}`);
    await writeFile(
      script,
      [
        '#!/bin/sh',
        `cd ${quote(options.cwd)} || exit 99`,
        // Only the variables the test chose (no CI: with CI set Ink draws only the last frame), plus tmux's TERM.
        `env -i TERM="$TERM" ${env.join(' ')} ${options.argv.map(quote).join(' ')}`,
        `echo $? > ${quote(exitFile)}`,
        'sleep 600',
      ].join('\n'),
    );
    await chmod(script, 0o755);
    const config = join(options.dir, 'tmux.conf');
    await writeFile(config, (options.tmuxConfig ?? []).map((line) => `${line}\n`).join(''));
    const argv = ['-S', socket, '-f', config, 'new-session', '-d', '-s', 'main', '-x', String(options.columns ?? 100), '-y', String(options.rows ?? 30), script];
    // A server that is still exiting (a previous terminal's, on the same socket) answers a new client with
    // "server exited unexpectedly": wait for its socket to go, and try again, a few times, before failing.
    for (let attempt = 1; ; attempt++) {
      await socketGone(socket);
      try {
        await exec('tmux', argv);
        break;
      } catch (error) {
        if (attempt >= 4 || !/server exited unexpectedly|lost server|no server running/.test(String((error as { stderr?: string }).stderr ?? error))) throw error;
        await rm(socket, { force: true });
      }
    }
    return new Terminal(socket, exitFile);
  }

  async screen(): Promise<string> {
    const { stdout } = await exec('tmux', ['-S', this.socket, 'capture-pane', '-p', '-t', 'main']);
    return stdout;
  }

  /** The screen with its styling, as tmux re-renders it (`capture-pane -e`). */
  async styledScreen(): Promise<string> {
    const { stdout } = await exec('tmux', ['-S', this.socket, 'capture-pane', '-p', '-e', '-t', 'main']);
    return stdout;
  }

  /** The pane's title (what an OSC 0/2 sequence written to the terminal would set). */
  async title(): Promise<string> {
    const { stdout } = await exec('tmux', ['-S', this.socket, 'display-message', '-p', '-t', 'main', '#{pane_title}']);
    return stdout.trim();
  }

  /** tmux paste buffers (with `set-clipboard on`, an OSC 52 sequence written to the terminal makes one). */
  async buffers(): Promise<string> {
    const { stdout } = await exec('tmux', ['-S', this.socket, 'list-buffers']);
    return stdout;
  }

  /** Send one key by tmux name (`Enter`, `Escape`, `Tab`) or one literal character. */
  async key(key: string): Promise<void> {
    const named = /^(Enter|Escape|Tab|BSpace|Up|Down|Left|Right|PageUp|PageDown|Home|End|C-[a-z])$/.test(key);
    await exec('tmux', ['-S', this.socket, 'send-keys', '-t', 'main', ...(named ? [key] : ['-l', key])]);
  }

  /** Type text one character per key press, waiting for the screen to change between them. */
  async type(text: string): Promise<void> {
    for (const char of text) {
      const before = await this.screen();
      await this.key(char);
      await this.waitFor((screen) => screen !== before, 2000).catch(() => undefined);
    }
  }

  /** Poll the screen until `test` passes; fails with the last screen. */
  async waitFor(test: (screen: string) => boolean, timeout = 10_000): Promise<string> {
    const deadline = Date.now() + timeout;
    let screen = '';
    while (Date.now() < deadline) {
      screen = await this.screen();
      if (test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out waiting for the screen; it shows:\n${screen}`);
  }

  /**
   * The screen once it shows `text` and has settled: a frame can reach tmux in more than one write (a wide screen's
   * frame is several KiB), so the first capture that shows `text` may not show the rest of that frame yet. It is
   * taken again until two captures 30 ms apart agree (at most ~0.5 s: a screen that keeps changing is returned as
   * it last showed `text`).
   */
  async see(text: string | RegExp, timeout?: number): Promise<string> {
    const shows = (screen: string): boolean => (typeof text === 'string' ? screen.includes(text) : text.test(screen));
    let screen = await this.waitFor(shows, timeout);
    for (let tries = 0; tries < 16; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const again = await this.screen();
      if (again === screen) return screen;
      if (!shows(again)) return screen;
      screen = again;
    }
    return screen;
  }

  /** Kill the server and wait until it is gone (its socket removed), so that the next start on it gets a new one. */
  async stop(): Promise<void> {
    await exec('tmux', ['-S', this.socket, 'kill-server']).catch(() => undefined);
    await socketGone(this.socket);
  }
}

/** Wait (up to 5 s) until no server listens on `socket`: tmux removes its socket when its server exits. */
async function socketGone(socket: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (existsSync(socket) && Date.now() < deadline) {
    const alive = await exec('tmux', ['-S', socket, 'list-sessions']).then(() => true, () => false);
    if (!alive) return; // a stale socket file: the next server replaces it
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
