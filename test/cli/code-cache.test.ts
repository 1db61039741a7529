// The commands without the TUI run from a CommonJS bundle compiled with V8's code cache (src/start.ts): a second run
// uses the cache the first wrote, a damaged or stale one is ignored (and replaced), and a cache folder that cannot be
// made changes nothing but the speed. Each load is its own process (V8 keeps what it compiled for the process).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { codeCachePath, COMMANDS_WITHOUT_TUI } from '../../src/start.js';
import { SESSIONS_VERSION } from '../../src/version.js';
import { FIXTURE_HOME, ROOT } from '../ui/helpers.js';

let sandbox: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-code-cache-'));
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

function node(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, args, { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CONFIG_HOME: join(sandbox, 'config'), ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** Load `bundle` through src/start.ts's loader (as built in dist/) in a new process: what it found and what the module says. */
async function load(bundle: string, cacheFile: string): Promise<{ cache: string; answer: unknown }> {
  const script = `import { loadCommonJs } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'start.js')).href)};
const loaded = loadCommonJs(${JSON.stringify(bundle)}, ${JSON.stringify(cacheFile)});
console.log(JSON.stringify({ cache: loaded.cache, answer: loaded.exports.answer(20) }));`;
  const run = await node(['--input-type=module', '-e', script]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { cache: string; answer: unknown };
}

const MODULE = `'use strict';
const double = (n) => n * 2;
exports.answer = (n) => ({ value: double(n) + 2, file: __filename, dir: __dirname, required: typeof require('node:path').join });
`;

describe('the code cache of a CommonJS bundle', () => {
  it('is written by the first run (mode 0600, keyed) and used by the second; the module runs the same', async () => {
    const bundle = join(sandbox, 'bundle.cjs');
    await writeFile(bundle, MODULE);
    const cacheFile = join(sandbox, 'cache', 'sessions', 'code-cache', 'show.bin');
    const expected = { value: 42, file: bundle, dir: sandbox, required: 'function' };
    expect(await load(bundle, cacheFile)).toEqual({ cache: 'none', answer: expected });
    expect((await stat(cacheFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(sandbox, 'cache', 'sessions', 'code-cache'))).mode & 0o777).toBe(0o700);
    const written = await readFile(cacheFile);
    expect(await load(bundle, cacheFile)).toEqual({ cache: 'used', answer: expected });
    expect(await readFile(cacheFile)).toEqual(written); // a used cache is not written again
  });

  it('ignores a damaged cache, and one made for other bytes, and replaces them', async () => {
    const bundle = join(sandbox, 'bundle.cjs');
    await writeFile(bundle, MODULE);
    const cacheFile = join(sandbox, 'cache', 'code.bin');
    await load(bundle, cacheFile);
    const good = await readFile(cacheFile);
    // V8's data damaged after the key (the versions, then the bundle's bytes), from its header on: V8 rejects it.
    const damaged = Buffer.from(good);
    const keyBytes = Buffer.byteLength(`${SESSIONS_VERSION}\0${process.versions.v8}\0`) + Buffer.byteLength(MODULE);
    for (let i = keyBytes + 8; i < damaged.length; i += 7) damaged[i] = damaged[i]! ^ 0x5a;
    await writeFile(cacheFile, damaged);
    expect(await load(bundle, cacheFile)).toEqual({ cache: 'rejected', answer: expect.objectContaining({ value: 42 }) });
    expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'used' });
    // V8's data whole in its header, damaged past it (what the disk or another program could do): without a checksum
    // V8 aborted the process in its deserializer.
    const inner = Buffer.from(good);
    const middle = keyBytes + Math.floor((good.length - keyBytes) / 2);
    for (let i = middle; i < Math.min(good.length, middle + 64); i++) inner[i] = inner[i]! ^ 0x5a;
    await writeFile(cacheFile, inner);
    expect(await load(bundle, cacheFile)).toEqual({ cache: 'rejected', answer: expect.objectContaining({ value: 42 }) });
    expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'used' });
    // Too short to hold a key, and not a file at all.
    for (const junk of [Buffer.from('junk'), Buffer.alloc(0)]) {
      await writeFile(cacheFile, junk);
      expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'none', answer: { value: 42 } });
      expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'used' });
    }
    // The bundle changed (same length: V8's own check would not see it): the old cache is not used.
    await writeFile(bundle, MODULE.replace('n * 2', 'n * 3'));
    expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'none', answer: { value: 62 } });
    expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'used', answer: { value: 62 } });
  });

  it('runs without one when its folder cannot be made', async () => {
    const bundle = join(sandbox, 'bundle.cjs');
    await writeFile(bundle, MODULE);
    await writeFile(join(sandbox, 'cache'), 'a file where the folder would be');
    const cacheFile = join(sandbox, 'cache', 'sessions', 'code-cache', 'list.bin');
    expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'none', answer: { value: 42 } });
    expect(await load(bundle, cacheFile)).toMatchObject({ cache: 'none', answer: { value: 42 } });
  });
});

describe('sessions', () => {
  const ESM_MAIN = `import { main } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'bundle', 'cli.js')).href)}; await main(process.argv);`;
  const BIN = join(ROOT, 'bin', 'sessions.js');

  it('runs a command from the cached CommonJS bundle as the ES module bundle runs it, cache or not', async () => {
    const env = { XDG_CACHE_HOME: join(sandbox, 'cache') };
    const cacheFile = codeCachePath(env, sandbox, 'show');
    await mkdir(join(sandbox, 'claw'));
    for (const args of [['show', '01a200fa-4b34', '--format', 'md'], ['list', '--all', '--json'], ['grep', 'ls']]) {
      const words = [...args, '--home', FIXTURE_HOME, '--claw-dir', join(sandbox, 'claw')];
      const esm = await node(['--input-type=module', '-e', ESM_MAIN, 'sessions', ...words], env);
      expect(esm.code, esm.stderr).toBe(0);
      expect(esm.stdout.length).toBeGreaterThan(100);
      // grep prints sessions as their searches end: in any order.
      const sorted = (run: { stdout: string }) => ({ ...run, stdout: run.stdout.split('\n').sort() });
      for (let run = 0; run < 2; run++) expect(sorted(await node([BIN, ...words], env)), `${args[0]}, run ${run}`).toEqual(sorted(esm));
    }
    expect((await stat(cacheFile)).size).toBeGreaterThan(10_000);
  });

  it('starts a command as CommonJS, without the ES module loader and the builtins that command does not use', async () => {
    // What Node loaded, as the process exits: each builtin module and each part of Node's own loaders.
    const preload = join(sandbox, 'loaded.cjs');
    await writeFile(preload, `process.on('exit', () => require('node:fs').writeSync(2, '\\nLOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));`);
    const env = { XDG_CACHE_HOME: join(sandbox, 'cache') };
    for (let run = 0; run < 2; run++) {
      const listed = await node(['--require', preload, BIN, 'list', '--all', '--json', '--home', FIXTURE_HOME, '--claw-dir', join(sandbox, 'none')], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toHaveLength(JSON.parse((await node([BIN, 'list', '--all', '--json', '--no-cache', '--home', FIXTURE_HOME, '--claw-dir', join(sandbox, 'none')], env)).stdout).length);
      const loaded = JSON.parse(/\nLOADED (.*)\n$/.exec(listed.stderr)![1]!) as string[];
      expect(loaded, `run ${run}`).toContain('NativeModule fs');
      for (const unused of ['internal/modules/esm/module_job', 'child_process', 'worker_threads', 'readline/promises']) {
        expect(loaded, `run ${run}`).not.toContain(`NativeModule ${unused}`);
      }
    }
  });

  it('writes no code cache with --no-cache', async () => {
    const env = { XDG_CACHE_HOME: join(sandbox, 'cache') };
    const run = await node([BIN, 'list', '--all', '--json', '--no-cache', '--home', FIXTURE_HOME, '--claw-dir', join(sandbox, 'none')], env);
    expect(run.code, run.stderr).toBe(0);
    await expect(stat(join(sandbox, 'cache'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes every command but mcp (and the browser) from the CommonJS bundle', () => {
    const commands = buildProgram().commands.map((command) => command.name());
    expect([...COMMANDS_WITHOUT_TUI].sort()).toEqual(commands.filter((name) => name !== 'mcp' && name !== 'help').sort());
  });
});
