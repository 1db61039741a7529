// The lint rule that keeps src/ free of import cycles (lint/no-import-cycle.mjs), on small module graphs in a temp dir:
// a value cycle, a type-only one (what eslint-plugin-import-x's no-cycle lets through), a re-export and an import()
// are each reported on the import that closes them; a graph without one passes.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import importCycles from '../../lint/no-import-cycle.mjs';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-import-cycle-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Write the modules (name → text), then lint `name` with the rule: each message as `line: text`. */
async function lint(modules: Record<string, string>, name: string): Promise<string[]> {
  for (const [file, text] of Object.entries(modules)) {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  const linter = new Linter({ configType: 'flat', cwd: dir });
  const messages = linter.verify(
    modules[name]!,
    [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { sessions: importCycles }, rules: { 'sessions/no-import-cycle': 'error' } }],
    join(dir, name),
  );
  return messages.map((message) => `${message.line}: ${message.message}`);
}

describe('no-import-cycle', () => {
  it('reports a value cycle through a third module, on the import that starts it', async () => {
    const modules = {
      'a.ts': "import { b } from './b.js';\nexport const a = b + 1;\n",
      'b.ts': "import { c } from './sub/c.js';\nexport const b = c;\n",
      'sub/c.ts': "import { a } from '../a.js';\nexport const c = () => a;\n",
    };
    expect(await lint(modules, 'a.ts')).toEqual(['1: import cycle: a.ts → b.ts → sub/c.ts → a.ts']);
    expect(await lint(modules, 'sub/c.ts')).toEqual(['1: import cycle: sub/c.ts → a.ts → b.ts → sub/c.ts']);
  });

  it('reports a cycle made by a type-only import, a re-export or an import()', async () => {
    expect(
      await lint({ 'grep.ts': "import { pool } from './pool.js';\nexport interface Events { n: number }\nexport const run = pool;\n", 'pool.ts': "import type { Events } from './grep.js';\nexport const pool = (events: Events) => events.n;\n" }, 'pool.ts'),
    ).toEqual(['1: import cycle: pool.ts → grep.ts → pool.ts']);
    expect(await lint({ 'index.ts': "export { x } from './x.js';\n", 'x.ts': "import './index.js';\nexport const x = 1;\n" }, 'index.ts')).toEqual([
      '1: import cycle: index.ts → x.ts → index.ts',
    ]);
    expect(await lint({ 'lazy.ts': "export const ui = () => import('./ui.js');\n", 'ui.ts': "import { ui } from './lazy.js';\nexport const run = ui;\n" }, 'lazy.ts')).toEqual([
      '1: import cycle: lazy.ts → ui.ts → lazy.ts',
    ]);
  });

  it('passes a graph without a cycle (shared leaves, a folder index, packages)', async () => {
    const modules = {
      'main.ts': "import { one } from './one.js';\nimport { two } from './two.js';\nimport { join } from 'node:path';\nexport const main = join(one, two);\n",
      'one.ts': "import { leaf } from './dir/index.js';\nexport const one = leaf;\n",
      'two.ts': "import type { Leaf } from './dir/index.js';\nexport const two: Leaf = 'b';\n",
      'dir/index.ts': "export type Leaf = string;\nexport const leaf: Leaf = 'a';\n",
    };
    for (const name of Object.keys(modules)) expect(await lint(modules, name)).toEqual([]);
  });
});
