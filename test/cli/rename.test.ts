// `sessions rename`, run as a user would (the built bin/sessions.js) on a copy of the sample home, which holds a
// session of every agent: the name goes where the agent reads it, and `list` titles the row by it.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Row {
  readonly agent: string;
  readonly id: string;
  readonly title: string;
  readonly name: string | null;
  readonly path: string;
  readonly paths: readonly string[];
}

let sandbox: string;
let home: string;

function run(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: join(home, 'src', 'claw-code', 'rust'), maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config')} },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function rows(): Promise<Row[]> {
  const result = await run(['list', '--all', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Row[];
}

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-rename-'));
  home = join(sandbox, 'home');
  await cp(join(ROOT, 'examples', 'home'), home, { recursive: true });
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

describe('sessions rename', () => {
  it('names a session of every agent that keeps names: the row is titled by it, in list and in --json', async () => {
    const before = await rows();
    const agents = [...new Set(before.map((row) => row.agent))].sort();
    expect(agents, 'the sample home holds a session of every agent').toEqual(ADAPTER_LIST.map((adapter) => adapter.agent).sort());
    for (const agent of ADAPTER_LIST.filter((adapter) => adapter.rename !== undefined).map((adapter) => adapter.agent)) {
      const row = before.find((one) => one.agent === agent)!;
      const name = `renamed ${agent} «ü»`;
      const result = await run(['rename', row.id, name, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ agent, id: row.id, title: name });
      expect((await rows()).find((one) => one.agent === agent && one.id === row.id)?.title, agent).toBe(name);
    }
    // Codex's own index, as `codex resume` reads it: the newest line for the id names it.
    const codex = before.find((one) => one.agent === 'codex')!;
    const index = (await readFile(join(home, '.codex', 'session_index.jsonl'), 'utf8')).trim().split('\n');
    expect(JSON.parse(index.at(-1)!)).toMatchObject({ id: codex.id, thread_name: 'renamed codex «ü»' });
  });

  it('refuses an agent that keeps no name, and an empty or multi-line name, writing nothing', async () => {
    const before = await rows();
    const nameless = ADAPTER_LIST.find((adapter) => adapter.rename === undefined)!;
    const claw = before.find((one) => one.agent === nameless.agent)!;
    const clawBytes = await readFile(claw.path);
    const refused = await run(['rename', claw.id, 'a name']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('keeps no name for a session');
    expect(await readFile(claw.path)).toEqual(clawBytes);
    const codex = before.find((one) => one.agent === 'codex')!;
    const indexBefore = await readFile(join(home, '.codex', 'session_index.jsonl'));
    for (const bad of ['   ', 'two\nlines']) {
      const result = await run(['rename', codex.id, bad]);
      expect(result.code, bad).toBe(1);
      expect(result.stderr).toMatch(/name must not be empty|one line of text/);
    }
    expect(await readFile(join(home, '.codex', 'session_index.jsonl'))).toEqual(indexBefore);
  });
});
