// `sessions fork --leaf`: another branch of a session file that holds a tree (pi's /tree), on a copy of the sample home.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const TREE = '01a22480-f382-791d-a9e4-1402703e6259';
let home: string;

beforeEach(async () => {
  home = join(await mkdtemp(join(tmpdir(), 'sessions-leaf-')), 'home');
  await cp(join(ROOT, 'examples', 'home'), home, { recursive: true });
});
afterEach(async () => {
  await rm(join(home, '..'), { recursive: true, force: true });
});

function sessions(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args, '--home', home], { env: { PATH: process.env.PATH, HOME: home } }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

const files = async () => (await readdir(home, { recursive: true })).sort();

it('forks the branch pi left behind by its last entry, and refuses what cannot take a branch, writing nothing', async () => {
  const whole = await sessions('fork', TREE, '--leaf', '0c6bcb9e', '--json');
  expect(whole.code, whole.stderr).toBe(0);
  const forked = JSON.parse(whole.stdout) as { id: string; keptUserTurns: number };
  expect(forked.keptUserTurns).toBe(3);
  const shown = await sessions('show', forked.id);
  expect(shown.stdout).toContain('tree-t3 Write the runbook.');
  expect(shown.stdout).not.toContain('canary');
  const before = await files();
  for (const [args, message] of [
    [[TREE, '--leaf', '0c6bcb9e', '--to', 'codex'], /a hand-off carries the branch the agent resumes/],
    [[TREE, '--leaf', '0c6bcb9e', '--drop-last', '1'], /with --leaf give --at/],
    [[TREE, '--leaf', 'ffff0000'], /holds no entry named "ffff0000"/],
    [['01a200ed-60a4', '--leaf', '0c6bcb9e'], /Codex CLI keeps one branch per session file/],
  ] as const) {
    const result = await sessions('fork', ...args);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(1);
  }
  expect(await files()).toEqual(before);
});
