// What `npm install sessions` gets must build the native engine: package.json's `files` has to carry every source
// native/binding.gyp compiles (stop 41 found native/fields.c missing: an installed package built no engine at all, and
// index, grep and show quietly fell back to JavaScript), the gyp file and the install script that runs it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; scripts: Record<string, string> };
/** binding.gyp is written as JSON here (gyp also reads Python literals: this test fails if it stops being JSON). */
const gyp = JSON.parse(readFileSync(join(ROOT, 'native', 'binding.gyp'), 'utf8')) as { targets: { sources: string[] }[] };

/** Whether npm's `files` list takes `path`: named itself or under a folder it names. */
function packed(path: string): boolean {
  return packageJson.files.some((entry) => path === entry || path.startsWith(`${entry.replace(/\/$/, '')}/`));
}

it('packs every source binding.gyp compiles, the gyp file and the install script', () => {
  const sources = gyp.targets.flatMap((target) => target.sources.map((source) => `native/${source}`));
  expect(sources.length).toBeGreaterThan(0);
  expect(sources.filter((source) => !packed(source))).toEqual([]);
  expect(packed('native/binding.gyp')).toBe(true);
  expect(packageJson.scripts.install).toContain('scripts/build-native.mjs');
  expect(packed('scripts/build-native.mjs')).toBe(true);
});

it('compiles every C file in native/ (a file left out of binding.gyp would never be built)', () => {
  const compiled = new Set(gyp.targets.flatMap((target) => target.sources));
  const cFiles = readdirSync(join(ROOT, 'native')).filter((name) => name.endsWith('.c'));
  expect(cFiles.length).toBeGreaterThan(0);
  expect(cFiles.filter((name) => !compiled.has(name))).toEqual([]);
});
