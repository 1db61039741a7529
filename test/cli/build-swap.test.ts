// `npm run build` (and so `npm test`) on a checkout someone runs `sessions` from (an `npm link` user, a second
// terminal): the build is made in a staging folder and moved into dist/, never leaving it empty or half-written.
import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FIXTURE_HOME, ROOT } from '../ui/helpers.js';

let checkout: string;

beforeEach(async () => {
  checkout = await mkdtemp(join(tmpdir(), 'sessions-build-'));
  for (const part of ['src', 'scripts', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) await cp(join(ROOT, part), join(checkout, part), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
});

afterEach(async () => {
  await rm(checkout, { recursive: true, force: true });
});

/** Run the build script in the checkout copy; resolves with its exit code and output. */
function build(): { readonly done: Promise<{ code: number | null; output: string }> } {
  const child = spawn(process.execPath, ['scripts/build.mjs'], { cwd: checkout, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code, output }))) };
}

async function built(): Promise<void> {
  const { code, output } = await build().done;
  expect(code, output).toBe(0);
}

const bundleFiles = async (): Promise<string[]> => (await readdir(join(checkout, 'dist', 'bundle'))).filter((name) => name.endsWith('.js') || name.endsWith('.cjs')).sort();

/** `sessions list --json` from the checkout copy, as a user would start it while the build runs. */
function listOnce(): Promise<{ code: number; stderr: string }> {
  const sandbox = join(checkout, 'run');
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(checkout, 'bin', 'sessions.js'), 'list', '--all', '--json', '--home', FIXTURE_HOME, '--claw-dir', join(sandbox, 'none')],
      { cwd: checkout, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') } },
      (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    ),
  );
}

/** Change a text the TUI chunk holds, so the next build's chunks get new names. */
async function editTheFooter(text: string): Promise<void> {
  const footer = join(checkout, 'src', 'ui', 'components', 'Footer.tsx');
  const source = await readFile(footer, 'utf8');
  expect(source).toMatch(/confirm: '[^']*'/);
  await writeFile(footer, source.replace(/confirm: '[^']*'/, `confirm: '${text}'`));
}

it('a sessions started during a build runs; the replaced build’s chunks stay one build for processes started on it', async () => {
  await built();
  const first = await bundleFiles();
  expect(first).toContain('cli.js');

  await editTheFooter('y yes · n no · second build');
  const second = build();
  let finished = false;
  void second.done.then(() => (finished = true));
  const failures: string[] = [];
  let runs = 0;
  while (!finished) {
    const run = await listOnce();
    runs++;
    if (run.code !== 0) failures.push(run.stderr.split('\n').slice(0, 3).join(' | '));
  }
  const { code, output } = await second.done;
  expect(code, output).toBe(0);
  expect(runs).toBeGreaterThan(0);
  expect(failures).toEqual([]);
  const afterSecond = await bundleFiles();
  const secondOnly = afterSecond.filter((name) => !first.includes(name));
  expect(secondOnly.length).toBeGreaterThan(0); // the edit gave chunks new names
  for (const name of first) expect(afterSecond).toContain(name); // a process started on the first build still finds its chunks
  expect((await readdir(checkout)).filter((name) => name.startsWith('dist.building-'))).toEqual([]);

  // A third build: the second build's files stay, the first build's chunks no later build made are removed.
  const secondBuild = JSON.parse(await readFile(join(checkout, 'dist', 'bundle', '.files.json'), 'utf8')) as string[];
  await editTheFooter('y yes · n no · third build');
  await built();
  const afterThird = await bundleFiles();
  for (const file of secondBuild) expect(afterThird).toContain(file.split(/[\\/]/).pop());
  const firstOnly = first.filter((name) => !secondBuild.some((file) => file.endsWith(name)));
  expect(firstOnly.length).toBeGreaterThan(0);
  for (const name of firstOnly) expect(afterThird).not.toContain(name);
  expect((await listOnce()).code).toBe(0);
}, 240_000);
