// The CLI on Codex files that need the real-world reading rules (test/fixtures/codex-rules), run as a user
// would: the built bin/sessions.js on a copy of the fixture home.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grepEngineEnv } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');

const IDE = '0199d1e0-0000-7000-8000-000000000101';
const EMPTY = '0199d1e0-0000-7000-8000-000000000102';
const REVIEW = '0199d1e0-0000-7000-8000-000000000103';
const REVIEWER = '0199d1e0-0000-7000-8000-000000000104';
const SPAWNED = '0199d1e0-0000-7000-8000-000000000105';
const TYPESCRIPT = '5f1c6b2e-8a3d-4c1e-9b7a-2d4e6f8a0c11';

let sandbox: string;
let home: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-cli-codex-rules-'));
  home = join(sandbox, 'home');
  await cp(join(ROOT, 'test', 'fixtures', 'codex-rules'), home, { recursive: true });
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args, '--home', home],
      { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config'), ...grepEngineEnv() } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)));
  }
  return out.sort();
}

describe('sessions list', () => {
  it('lists parents with their sub-agents, never a sub-agent as a row, and a null first prompt as null', async () => {
    const result = await run('list', '--all', '--json');
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { id: string; firstPrompt: string | null; title: string; userTurns: number; subagents: string[] }[];
    expect(rows.map((r) => [r.id, r.firstPrompt, r.userTurns, r.subagents])).toEqual([
      [REVIEW, 'add input validation to the signup form', 2, [REVIEWER]],
      [EMPTY, null, 1, []],
      [IDE, 'Explain what parseHeader does with an empty line', 3, [SPAWNED]],
      [TYPESCRIPT, 'write a haiku about rollouts', 2, []],
    ]);
    // A warm start reads the rows from the cache: the same rows.
    const warm = await run('list', '--all', '--json');
    expect(JSON.parse(warm.stdout)).toEqual(rows);
    const text = await run('list', '--all');
    expect(text.stdout).toMatch(new RegExp(`${REVIEW}.*\\[1 sub-agent\\]`));
    expect(text.stdout).not.toContain(REVIEWER);
  });
});

describe('sessions grep', () => {
  it('finds text in a sub-agent and says whose sub-agent it is', async () => {
    const result = await run('grep', '--json', 'overall_explanation');
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; subagent: unknown });
    // The parent holds the review's output too.
    expect(rows.map((r) => [r.id, r.subagent]).sort()).toEqual([
      [REVIEW, null],
      [REVIEWER, { kind: 'review', parentId: null }],
    ]);
    const text = await run('grep', 'overall_explanation');
    expect(text.stdout).toMatch(new RegExp(`${REVIEWER}.*\\[sub-agent\\]`));
  });
});

describe('sessions show', () => {
  it('names the sub-agents of a parent, and shows a sub-agent by its id, naming its parent', async () => {
    const parent = await run('show', IDE);
    expect(parent.code, parent.stderr).toBe(0);
    expect(parent.stdout).toContain(`sub-agents: ${SPAWNED}`);
    expect(parent.stdout).toContain('Explain what parseHeader does with an empty line');
    expect(parent.stdout).not.toContain('Context from my IDE setup');
    const md = await run('show', IDE, '--format', 'md');
    expect(md.stdout).not.toContain('Context from my IDE setup');
    const json = JSON.parse((await run('show', IDE, '--format', 'json')).stdout) as { subagents: string[] };
    expect(json.subagents).toEqual([SPAWNED]);

    const typescript = await run('show', TYPESCRIPT, '--format', 'md');
    expect(typescript.code, typescript.stderr).toBe(0);
    expect(typescript.stdout).toContain('## Turn 2');
    expect(typescript.stdout).toContain('Lines fall into place');

    const child = await run('show', REVIEWER);
    expect(child.code, child.stderr).toBe(0);
    expect(child.stdout).toContain(`sub-agent (review) of: ${REVIEW}`);
  });
});

describe('sessions fork', () => {
  it('forks a reviewed session at the turn the user typed', async () => {
    const result = await run('fork', REVIEW, '--at', '2', '--json');
    expect(result.code, result.stderr).toBe(0);
    const fork = JSON.parse(result.stdout) as { id: string; keptUserTurns: number };
    expect(fork.keptUserTurns).toBe(1);
    const shown = await run('show', fork.id);
    expect(shown.stdout).toContain('add input validation to the signup form');
    expect(shown.stdout).not.toContain('fix the empty password finding');
  });

  it('refuses a TypeScript-era rollout with a clear message, exit 1, and writes nothing', async () => {
    const before = await files(home);
    const result = await run('fork', TYPESCRIPT, '--at', '2');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/TypeScript Codex CLI.*cannot be forked/);
    expect(result.stdout).toBe('');
    expect(await files(home)).toEqual(before);
  });
});
