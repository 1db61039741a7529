// `sessions list --watch --json`: what another machine's browser reads over one ssh connection. The rows as
// NDJSON, a synced line, then one line per change as the agents write; it ends when its stdin (the channel) ends.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const DAY = '.codex/sessions/2026/11/22';
const FILE = 'rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl';

let sandbox: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-watch-list-'));
  await mkdir(join(sandbox, 'home', DAY), { recursive: true });
  await cp(join(FIXTURE_HOME, DAY, FILE), join(sandbox, 'home', DAY, FILE));
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

describe('list --watch --json', () => {
  it('streams the rows, synced, then each session that appears or goes away; ends when stdin ends', async () => {
    const child = spawn(process.execPath, [BIN, 'list', '--watch', '--json', '--all', '--home', join(sandbox, 'home')], {
      cwd: sandbox,
      env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
    });
    const waitFor = async (test: () => boolean): Promise<void> => {
      for (const deadline = Date.now() + 15_000; !test(); await new Promise((resolve) => setTimeout(resolve, 25))) {
        if (Date.now() > deadline) throw new Error(`waited in vain; lines: ${JSON.stringify(lines)}`);
      }
    };
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => lines.some((line) => line.synced === true));
      expect(lines.map((line) => line.id ?? line)).toEqual(['01a200fa-3a58-7971-88f2-72d291066439', { synced: true }]);
      expect(lines[0]).toMatchObject({ agent: 'codex', host: null, userTurns: 2 });
      // A new session.
      const copy = (await readFile(join(FIXTURE_HOME, DAY, FILE), 'utf8')).replaceAll('01a200fa-3a58-7971-88f2-72d291066439', '01a200fa-3a58-7971-88f2-72d29106cccc');
      const newFile = join(sandbox, 'home', DAY, 'rollout-2026-11-22T01-58-50-01a200fa-3a58-7971-88f2-72d29106cccc.jsonl');
      await writeFile(newFile, copy);
      await waitFor(() => lines.some((line) => line.id === '01a200fa-3a58-7971-88f2-72d29106cccc'));
      // It goes away.
      await unlink(newFile);
      await waitFor(() => lines.some((line) => line.removed === 'codex:01a200fa-3a58-7971-88f2-72d29106cccc'));
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
  });

  it('keeps watching with stdin from /dev/null (a terminal or a script), until SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'list', '--watch', '--json', '--all', '--home', join(sandbox, 'home')], {
      cwd: sandbox,
      env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve((exitCode = code))));
    const waitFor = async (test: () => boolean): Promise<void> => {
      for (const deadline = Date.now() + 15_000; !test(); await new Promise((resolve) => setTimeout(resolve, 25))) {
        if (Date.now() > deadline) throw new Error(`waited in vain; exit ${exitCode}; output: ${out}`);
      }
    };
    try {
      await waitFor(() => out.includes('{"synced":true}'));
      // Nothing but the folder watches keeps the process alive now: it must still be there to report this.
      const copy = (await readFile(join(FIXTURE_HOME, DAY, FILE), 'utf8')).replaceAll('01a200fa-3a58-7971-88f2-72d291066439', '01a200fa-3a58-7971-88f2-72d29106dddd');
      await writeFile(join(sandbox, 'home', DAY, 'rollout-2026-11-22T01-58-52-01a200fa-3a58-7971-88f2-72d29106dddd.jsonl'), copy);
      await waitFor(() => out.includes('"01a200fa-3a58-7971-88f2-72d29106dddd"'));
      expect(exitCode).toBeUndefined();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
  });

  it('needs --json', async () => {
    const child = spawn(process.execPath, [BIN, 'list', '--watch', '--home', join(sandbox, 'home')], { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('--watch needs --json');
  });
});
