// An ESLint rule that fails on any import cycle between the project's own modules (issue 26). It counts every edge of
// the module graph: `import`, `import type`, `export … from` and `import()`. eslint-plugin-import-x's `no-cycle` skips
// type-only imports by design, and the cycle this rule was written for (catalog/grep.ts ↔ native-grep.ts) was one.
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Each file's relative imports resolved to files (read once per file and modification time). */
const importsOf = new Map();

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The file a relative specifier names: `./x.js` is `./x.ts` or `./x.tsx` in the sources; null when none is there. */
export function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (/\.(m|c)?tsx?$/.test(candidate) && isFile(candidate)) return candidate;
  }
  return null;
}

function fileImports(path) {
  let stamp;
  try {
    stamp = statSync(path).mtimeMs;
  } catch {
    return [];
  }
  const known = importsOf.get(path);
  if (known !== undefined && known.stamp === stamp) return known.files;
  // preProcessFile is TypeScript's import scanner: every import, re-export and import() of the text, type-only included.
  const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
  const files = [...new Set(importedFiles.map((file) => resolveSpecifier(path, file.fileName)).filter((file) => file !== null))];
  importsOf.set(path, { stamp, files });
  return files;
}

/** A path of imports from `start` back to `target` (both included), or null when `target` cannot be reached. */
function pathBack(start, target) {
  const seen = new Set([start]);
  const parent = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of fileImports(file)) {
      if (next === target) {
        const path = [target];
        for (let at = file; at !== undefined; at = parent.get(at)) path.unshift(at);
        return path;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      parent.set(next, file);
      queue.push(next);
    }
  }
  return null;
}

export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow an import that leads back to the importing module (type-only imports included).' },
    messages: { cycle: 'import cycle: {{cycle}}' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const cwd = context.cwd;
    const check = (node, source) => {
      if (source === null || source === undefined || typeof source.value !== 'string') return;
      const target = resolveSpecifier(file, source.value);
      if (target === null) return;
      const back = target === file ? [file] : pathBack(target, file);
      if (back === null) return;
      const cycle = [file, ...back].map((path) => relative(cwd, path)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { cycle } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source : null),
    };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
