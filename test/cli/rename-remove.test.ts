// `sessions rename`, `rm` and `restore`, run as a user would (the built bin/sessions.js) on a copy of the sample home, which holds a
// session of every agent: the name goes where the agent reads it, and `list` titles the row by it.
import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROC_DIR } from '../../src/app/in-use.js';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';
import { sha256File } from '../helpers/files.js';

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

/** Every file under `dir` (relative path → sha256), the trash left out. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !path.includes('/.local/share/Trash/') && !path.includes('/.local/share/sessions/')) out[path.slice(dir.length + 1)] = await sha256File(path);
  }
  return out;
}

describe('sessions rm and restore', () => {
  it('moves a Claude Code session with its folder of sub-agents to the freedesktop trash, and puts both back byte for byte', async () => {
    const before = await tree(home);
    const row = (await rows()).find((one) => one.id.startsWith('4908739e'))!;
    const folder = row.path.replace(/\.jsonl$/, '');
    expect((await stat(folder)).isDirectory(), 'the sample session has a folder of its own').toBe(true);
    const removed = await run(['rm', row.id, '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    const entry = JSON.parse(removed.stdout) as { paths: string[]; trashed: string[] };
    expect(entry.paths.sort()).toEqual([row.path, folder].sort());
    await expect(stat(row.path)).rejects.toThrow();
    await expect(stat(folder)).rejects.toThrow();
    expect((await rows()).some((one) => one.id === row.id)).toBe(false);
    // The freedesktop layout: the items in files/, each with its .trashinfo naming where it was.
    const trash = join(home, '.local', 'share', 'Trash');
    for (const trashed of entry.trashed) {
      expect(trashed.startsWith(join(trash, 'files'))).toBe(true);
      const name = trashed.slice(join(trash, 'files').length + 1);
      const info = await readFile(join(trash, 'info', `${name}.trashinfo`), 'utf8');
      expect(info).toMatch(/^\[Trash Info\]\nPath=\/.+\nDeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$/);
      expect(entry.paths.map((path) => path.split('/').map(encodeURIComponent).join('/'))).toContain(/Path=(.*)/.exec(info)![1]);
    }
    const restored = await run(['restore']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout.trim()).toBe(row.id);
    expect(await tree(home)).toEqual(before);
    expect(await readdir(join(trash, 'info'))).toEqual([]);
    expect((await rows()).find((one) => one.id === row.id)?.title).toBe(row.title);
  });

  // Open files are seen in /proc (Linux); elsewhere only the write time is known.
  it.skipIf(PROC_DIR === null)('refuses a session whose file a running process holds open, unless --force', async () => {
    const row = (await rows()).find((one) => one.agent === 'codex')!;
    const holder = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(row.path)}, 'r'); console.log('open'); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
      const bytes = await readFile(row.path);
      const refused = await run(['rm', row.id]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`is open \\(open in node \\(pid ${holder.pid}\\)`));
      expect(await readFile(row.path)).toEqual(bytes);
      const forced = await run(['rm', row.id, '--force']);
      expect(forced.code, forced.stderr).toBe(0);
      await expect(stat(row.path)).rejects.toThrow();
    } finally {
      holder.kill();
    }
    const back = await run(['restore', row.id.slice(0, 13)]);
    expect(back.code, back.stderr).toBe(0);
    expect((await stat(row.path)).isFile()).toBe(true);
  });

  it('restore refuses when nothing was deleted, or when a file is back in the session\'s place', async () => {
    const none = await run(['restore']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no session deleted');
    const row = (await rows()).find((one) => one.agent === 'qwen')!;
    const bytes = await readFile(row.path);
    expect((await run(['rm', row.id])).code).toBe(0);
    await cp(join(home, '.codex', 'session_index.jsonl'), row.path);
    const refused = await run(['restore', row.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('exists');
    await rm(row.path);
    expect((await run(['restore', row.id])).code).toBe(0);
    expect(await readFile(row.path)).toEqual(bytes);
  });
});
