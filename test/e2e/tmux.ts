// Drive the built bin/sessions.js in a real terminal: a private tmux server, keys sent one at a time,
// the screen read back with capture-pane.
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
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
    await exec('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(options.columns ?? 100), '-y', String(options.rows ?? 30), script]);
    return new Terminal(socket, exitFile);
  }

  async screen(): Promise<string> {
    const { stdout } = await exec('tmux', ['-S', this.socket, 'capture-pane', '-p', '-t', 'main']);
    return stdout;
  }

  /** The screen with its colors and attributes as SGR escape sequences (`capture-pane -e`). */
  async styledScreen(): Promise<string> {
    const { stdout } = await exec('tmux', ['-S', this.socket, 'capture-pane', '-p', '-e', '-t', 'main']);
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

  async see(text: string | RegExp, timeout?: number): Promise<string> {
    return this.waitFor((screen) => (typeof text === 'string' ? screen.includes(text) : text.test(screen)), timeout);
  }

  async stop(): Promise<void> {
    await exec('tmux', ['-S', this.socket, 'kill-server']).catch(() => undefined);
  }
}
