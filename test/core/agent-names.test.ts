// Nothing outside src/core/formats/ names an agent: a per-agent difference is a capability of the agent's adapter
// (issue 26), never `if (agent === '…')` in the catalog, the app layer, the remote code, the UI or the CLI. Every
// string literal of src/ (types included) is read with TypeScript's own parser; one that is an agent's name, as the
// registry spells it, fails the test with its file and line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Each string literal (plain or a template without substitutions) of `text` that is one of `names`, with its line. */
function namedAgents(file: string, text: string, names: ReadonlySet<string>): { readonly line: number; readonly text: string; readonly name: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { line: number; text: string; name: string }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.has(node.text)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      found.push({ line: line + 1, text: text.split('\n')[line]!.trim(), name: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('agent names', () => {
  const names = new Set(ADAPTER_LIST.map((adapter) => adapter.agent));

  it('the check sees a name wherever a literal holds one, and nothing else', () => {
    const sample = [
      "if (session.agent === 'codex') x();",
      'type T = (typeof ADAPTERS)["claude"];',
      'const a = `qwen`;',
      "const b = 'codex-like', c = `${'x'}codex`; // codex in a comment",
      "const d = { opencode: 1 };",
    ].join('\n');
    expect(namedAgents('sample.ts', sample, names).map((hit) => [hit.line, hit.name])).toEqual([
      [1, 'codex'],
      [2, 'claude'],
      [3, 'qwen'],
    ]);
  });

  it('no file outside src/core/formats/ names an agent', () => {
    const hits: string[] = [];
    for (const path of sourceFiles(SRC)) {
      const file = relative(ROOT, path);
      if (file.startsWith('src/core/formats/')) continue;
      for (const hit of namedAgents(file, readFileSync(path, 'utf8'), names)) {
        hits.push(`${file}:${hit.line}: '${hit.name}' in ${hit.text}`);
      }
    }
    expect(hits).toEqual([]);
  });
});
