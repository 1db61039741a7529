// The CommonJS bundle of the CLI is built from one set of options (scripts/commonjs-bundle.mjs), which the build and
// bench/grep-real.mjs's floor share: the floor's code is the command's, built the same way, with the few functions it
// calls exported beside the CLI's. Built here (minified, as the build does) into a temp folder, loaded by
// src/start.ts's loader as the command loads its bundle.
import { build } from 'esbuild';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the build, without types
import { commonJsCliBuild } from '../../scripts/commonjs-bundle.mjs';
import { loadCommonJs } from '../../src/start.js';
import { FIXTURE_HOME, ROOT } from '../ui/helpers.js';

let sandbox: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-cjs-bundle-'));
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

it('builds the CLI bundle the build ships, and one that also exports what the grep floor calls, whose search finds the files', async () => {
  const options = (output: object, moduleUrl: string | null = null): object => commonJsCliBuild(output, { minify: true, moduleUrl }) as object;
  const cli = join(sandbox, 'cli-commands.cjs');
  await build(options({ entryPoints: [join(ROOT, 'src', 'cli.ts')], outfile: cli }));
  expect(await readFile(cli)).toEqual(await readFile(join(ROOT, 'dist', 'bundle', 'cli-commands.cjs')));

  const floor = join(sandbox, 'grep-floor.cjs');
  const contents = ["export * from './src/cli.ts';", "export { grepLocations } from './src/catalog/grep.ts';", "export { resolveLocations } from './src/catalog/locations.ts';"].join('\n');
  // Its workers and native engine found beside the build's bundle, as the floor's are.
  const moduleUrl = pathToFileURL(join(ROOT, 'dist', 'bundle', 'cli-commands.cjs')).href;
  await build(options({ stdin: { contents, resolveDir: ROOT, loader: 'ts', sourcefile: 'grep-floor.ts' }, outfile: floor }, moduleUrl));
  const loaded = loadCommonJs(floor, null);
  expect(loaded?.cache).toBe('none');
  const exported = loaded!.exports as typeof import('../../src/cli.js') & typeof import('../../src/catalog/grep.js') & typeof import('../../src/catalog/locations.js');
  expect(typeof exported.main).toBe('function');
  const locations = exported.resolveLocations({ home: FIXTURE_HOME, roots: { claw: [join(sandbox, 'none')] } }, { env: {}, homeDir: sandbox, cwd: sandbox });
  const found: string[] = [];
  const result = await exported.grepLocations(locations, 'ls', { onMatch: () => undefined, onFiles: (group) => found.push(...group.paths) });
  expect(result.matched).toBeGreaterThan(0);
  expect(found).toHaveLength(new Set(found).size);
  for (const path of found) expect(path.startsWith(FIXTURE_HOME)).toBe(true);
});
