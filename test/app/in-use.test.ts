// A session still open in an agent is not resumed without asking (issue 27): its file written in the last minute, or
// held open by a running process (seen in /proc), says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, utimes, writeFile, readFile, chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeInUse, RECENT_WRITE_MS, sessionInUse } from '../../src/app/in-use.js';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const HAS_PROC = existsSync('/proc/self/fd');
const fileAgent = ADAPTER_LIST.find((adapter) => adapter.store === undefined)!.agent;
const storeAgent = ADAPTER_LIST.find((adapter) => adapter.store !== undefined)?.agent;

let sandbox: string;
let holder: ChildProcess | null = null;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-in-use-'));
});
afterEach(async () => {
  holder?.kill('SIGKILL');
  holder = null;
  await rm(sandbox, { recursive: true, force: true });
});

/** A child process that holds `path` open for reading until killed; resolves once the descriptor is open. */
async function holdOpen(path: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `require('node:fs').openSync(${JSON.stringify(path)}, 'r'); process.stdout.write('open\\n'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', () => reject(new Error('the holder exited')));
  });
  return child;
}

async function oldFile(name: string): Promise<string> {
  const path = join(sandbox, name);
  await writeFile(path, '{}\n');
  const hourAgo = new Date(Date.now() - 3600_000);
  await utimes(path, hourAgo, hourAgo);
  return path;
}

describe('sessionInUse', () => {
  it('is null for a session written an hour ago that no process holds', async () => {
    const path = await oldFile('a.jsonl');
    expect(await sessionInUse({ agent: fileAgent, paths: [path] }, { procDir: HAS_PROC ? '/proc' : null })).toBeNull();
  });

  it('names a file written within the last minute, and how long ago', async () => {
    const path = await oldFile('a.jsonl');
    const written = Date.now() - 3600_000;
    const found = await sessionInUse({ agent: fileAgent, paths: [path] }, { procDir: null, now: written + 12_000 });
    expect(found?.recentWrite?.path).toBe(path);
    expect(found?.heldBy).toEqual([]);
    expect(describeInUse(found!)).toMatch(/^written 1[12] s ago$/);
    expect(await sessionInUse({ agent: fileAgent, paths: [path] }, { procDir: null, now: written + RECENT_WRITE_MS + 1000 })).toBeNull();
    // A file dated ahead of this clock (another machine's, a test's faked clock) is no sign of a writer.
    expect(await sessionInUse({ agent: fileAgent, paths: [path] }, { procDir: null, now: written - 5000 })).toBeNull();
  });

  it.skipIf(!HAS_PROC)('names the process that holds the file open, and never counts the asking process', async () => {
    const path = await oldFile('held.jsonl');
    holder = await holdOpen(path);
    const found = await sessionInUse({ agent: fileAgent, paths: [join(sandbox, 'missing.jsonl'), path] }, { procDir: '/proc' });
    expect(found?.recentWrite).toBeNull();
    expect(found?.heldBy).toEqual([{ pid: holder.pid, command: 'node' }]);
    expect(describeInUse(found!)).toBe(`open in node (pid ${holder.pid})`);
    // The same process asking is not "another agent".
    expect(await sessionInUse({ agent: fileAgent, paths: [path] }, { procDir: '/proc', selfPid: holder.pid })).toBeNull();
  });

  it.skipIf(storeAgent === undefined)('does not judge a conversation kept in a store every conversation shares', async () => {
    const path = await oldFile('store.db');
    holder = HAS_PROC ? await holdOpen(path) : null;
    expect(await sessionInUse({ agent: storeAgent!, paths: [path] }, { procDir: HAS_PROC ? '/proc' : null, now: Date.now() - 3600_000 })).toBeNull();
  });
});

function run(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: sandbox, env }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }));
  });
}

describe.skipIf(!HAS_PROC)('sessions resume of a session another process holds open', () => {
  it('refuses without a terminal to ask in, naming the process; --force resumes; a dry run warns', async () => {
    const home = join(sandbox, 'home');
    await cp(join(ROOT, 'test', 'fixtures', 'home'), home, { recursive: true });
    const env = { PATH: `${join(sandbox, 'bin')}:${process.env.PATH}`, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') };
    const listed = await run(['list', '--all', '--json', '--home', home, '--claw-dir', join(home, 'src')], env);
    const rows = JSON.parse(listed.stdout) as { id: string; agent: string; path: string }[];
    const row = rows.find((r) => ADAPTER_LIST.find((a) => a.agent === r.agent)!.store === undefined)!;
    // An agent that says where it ran, in place of the real one.
    await mkdir(join(sandbox, 'bin'));
    const record = join(sandbox, 'ran.txt');
    await mkdir(join(sandbox, 'config', 'sessions'), { recursive: true });
    await writeFile(join(sandbox, 'bin', 'agent'), `#!/bin/sh\necho "$@" > ${JSON.stringify(record)}\n`);
    await chmod(join(sandbox, 'bin', 'agent'), 0o755);
    await writeFile(join(sandbox, 'config', 'sessions', 'config.json'), JSON.stringify({ resume: { [row.agent]: [join(sandbox, 'bin', 'agent'), 'resume', '{id}'] } }));
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(row.path, hourAgo, hourAgo);
    holder = await holdOpen(row.path);
    const at = ['--home', home, '--claw-dir', join(home, 'src'), '--here'];
    const before = (await readdir(join(sandbox, 'home'), { recursive: true })).sort();

    const refused = await run(['resume', row.id, ...at], env);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`looks open in an agent (open in node (pid ${holder.pid}))`);
    expect(refused.stderr).toContain('--force');
    expect(existsSync(record)).toBe(false);

    const dry = await run(['resume', row.id, '--dry-run', ...at], env);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(`open in node (pid ${holder.pid})`);

    const forced = await run(['resume', row.id, '--force', ...at], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(record, 'utf8')).toBe(`resume ${row.id}\n`);
    // Nothing was written by the refusal or the dry run.
    expect((await readdir(join(sandbox, 'home'), { recursive: true })).sort()).toEqual(before);
  });
});
