// After `sessions rename`, the real Claude Code (the newest pinned in agents.ts) lists the session by its new name in
// its own `claude --resume` picker. The picker leaves out sessions written by `claude -p` (entrypoint sdk-cli), so the
// session is recorded here by the interactive Claude Code, driven in a terminal (tmux) against the model stand-in.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Terminal } from '../e2e/tmux.js';
import { describeRun, PROJECT_ROOT, runProcess } from './agents.js';
import { claudeDriver } from './drivers.js';
import { ANSWER_PREFIX, startModelStandIn, type ModelStandIn } from './model-stand-in.js';
import { removeSandbox } from './sandbox-cleanup.js';

const availability = inject('interopTargets').claude!;
const PROMPT = 'zq picker prompt about the checkout';
const NAME = 'zq renamed by sessions';
const KEY = 'stand-in-key-for-the-interactive-claude';

describe.skipIf(!availability.available)(`${availability.target.packageName}@${availability.target.version} lists a session sessions renamed`, () => {
  const bin = availability.available ? availability.bin : '';
  let root: string;
  let project: string;
  let configDir: string;
  let env: Record<string, string>;
  let standIn: ModelStandIn;
  const terminals: Terminal[] = [];

  async function terminal(name: string, argv: readonly string[]): Promise<Terminal> {
    const dir = await mkdtemp(join(root, `${name}-`));
    const started = await Terminal.start({ dir, cwd: project, env, argv, columns: 140, rows: 40 });
    terminals.push(started);
    return started;
  }

  async function sessionFiles(): Promise<string[]> {
    const projects = join(configDir, 'projects');
    const folders = await readdir(projects).catch(() => [] as string[]);
    const files: string[] = [];
    for (const folder of folders) for (const file of await readdir(join(projects, folder))) if (file.endsWith('.jsonl')) files.push(join(projects, folder, file));
    return files;
  }

  beforeAll(async () => {
    standIn = await startModelStandIn();
    root = await mkdtemp(join(tmpdir(), 'sessions-interop-claude-rename-'));
    project = join(root, 'shop-api');
    configDir = join(root, 'home', '.claude');
    await mkdir(project, { recursive: true });
    await mkdir(configDir, { recursive: true });
    // What a first run of the interactive Claude Code asks once (theme, trust of the folder, the API key) answered.
    await writeFile(
      join(configDir, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
        projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
      }),
    );
    const home = join(root, 'home');
    const sandbox = { root, home, codexHome: join(home, '.codex'), claudeDir: configDir, copilotHome: join(home, '.copilot'), projects: root, sessionsConfig: join(root, 'config'), env: {} };
    const agentEnv = Object.entries(await claudeDriver.prepare(sandbox, standIn.origin)).filter((entry): entry is [string, string] => entry[1] !== undefined);
    env = {
      ...Object.fromEntries(agentEnv),
      ANTHROPIC_API_KEY: KEY,
      CLAUDE_CONFIG_DIR: configDir,
      HOME: join(root, 'home'),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      XDG_CACHE_HOME: join(root, 'cache'),
      XDG_CONFIG_HOME: join(root, 'config'),
    };
  });

  afterAll(async () => {
    for (const started of terminals) await started.stop();
    await standIn?.close();
    if (root) await removeSandbox(root);
  });

  it('records a session interactively, renames it, and claude --resume shows the new name', async () => {
    const chat = await terminal('chat', [bin]);
    await chat.waitFor((screen) => /^❯/m.test(screen), 90_000);
    await chat.type(PROMPT);
    await chat.key('Enter');
    await chat.waitFor((screen) => screen.includes(ANSWER_PREFIX), 90_000);
    await chat.type('/exit');
    await chat.key('Enter');
    // The session file is complete once Claude Code has exited.
    for (const deadline = Date.now() + 60_000; !existsSync(chat.exitFile); ) {
      if (Date.now() > deadline) throw new Error(`claude did not exit after /exit:\n${await chat.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const [file, ...others] = await sessionFiles();
    expect(others).toEqual([]);
    const id = file!.slice(file!.lastIndexOf('/') + 1, -'.jsonl'.length);

    const renamed = await runProcess(process.execPath, [join(PROJECT_ROOT, 'bin', 'sessions.js'), 'rename', id, NAME, '--home', join(root, 'home')], { cwd: project, env, timeoutMs: 60_000 });
    expect(renamed.code, describeRun('sessions rename', renamed)).toBe(0);

    const picker = await terminal('picker', [bin, '--resume']);
    const screen = await picker.see(NAME, 90_000);
    expect(screen).not.toContain(PROMPT);
  });
});
