// After `sessions rename`, the real Codex (pinned in agents.ts) lists the session by its new name: its own
// `codex resume` picker, driven in a terminal (tmux), shows the name, and `codex resume NAME` finds the session by it.
// The session is the sample home's, recorded by the real Codex 0.169 interactively (the picker leaves out `codex exec`
// sessions). No model is asked: the picker and the resume's first question come before any turn.
import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Terminal } from '../e2e/tmux.js';
import { describeRun, PROJECT_ROOT, runProcess } from './agents.js';
import { removeSandbox } from './sandbox-cleanup.js';

const availability = inject('interopTargets').codex!;
const SESSION = '01a223a8-8d40-7bd0-95a3-683fb32af39c';
const NAME = 'zq renamed checkout bug';

async function screenShows(terminal: Terminal, text: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = await terminal.screen();
    if (screen.includes(text)) return screen;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${JSON.stringify(text)}:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(!availability.available)(`${availability.target.packageName}@${availability.target.version} lists a session sessions renamed`, () => {
  const bin = availability.available ? availability.bin : '';
  let root: string;
  let home: string;
  let env: Record<string, string>;
  const terminals: Terminal[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sessions-interop-rename-'));
    home = join(root, 'home');
    await cp(join(PROJECT_ROOT, 'examples', 'home'), home, { recursive: true });
    // A provider with a key (else Codex asks to sign in first), on a loopback port nothing listens on: nothing here asks a model.
    const config = ['model = "stand-in"', 'model_provider = "standin"', 'check_for_update_on_startup = false', '', '[analytics]', 'enabled = false', '', '[features]', 'plugins = false', '',
      '[model_providers.standin]', 'name = "nothing"', 'base_url = "http://127.0.0.1:9/v1"', 'wire_api = "responses"', 'env_key = "SESSIONS_INTEROP_KEY"', ''];
    await writeFile(join(home, '.codex', 'config.toml'), config.join('\n'));
    env = { SESSIONS_INTEROP_KEY: 'no-key', PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: join(home, '.codex'), XDG_CACHE_HOME: join(root, 'cache'), XDG_CONFIG_HOME: join(root, 'config') };
    const renamed = await runProcess(process.execPath, [join(PROJECT_ROOT, 'bin', 'sessions.js'), 'rename', SESSION, NAME], { cwd: root, env, timeoutMs: 60_000 });
    expect(renamed.code, describeRun('sessions rename', renamed)).toBe(0);
  });

  afterAll(async () => {
    for (const terminal of terminals) await terminal.stop();
    await removeSandbox(root);
  });

  it("codex resume's picker shows the new name", async () => {
    const dir = await mkdtemp(join(root, 'picker-'));
    const terminal = await Terminal.start({ dir, cwd: root, env, argv: [bin, 'resume', '--all'], columns: 160, rows: 30 });
    terminals.push(terminal);
    const screen = await screenShows(terminal, NAME);
    expect(screen).toContain('Resume a previous session');
    expect(screen).not.toContain('Checkout returns a 500 when the cart has a discount code');
  });

  it('codex resume NAME finds the session by it (and asks about its recorded directory)', async () => {
    const dir = await mkdtemp(join(root, 'by-name-'));
    const terminal = await Terminal.start({ dir, cwd: root, env, argv: [bin, 'resume', NAME], columns: 160, rows: 30 });
    terminals.push(terminal);
    await screenShows(terminal, 'Use session directory (/home/dev/src/shop-api)');
  });
});
