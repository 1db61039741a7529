import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importCycles from './lint/no-import-cycle.mjs';

/**
 * Every file read goes through src/core/io/regular.ts (regular files only, O_NONBLOCK, bounded): a FIFO named by a
 * marker, an index or a config must never hang a command. The functions that open a path are allowed only there and
 * in atomic.ts (which opens what it writes); anything else that opens to write says so on the line.
 */
const FILE_OPENING = ['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({
  name,
  importNames: ['readFile', 'readFileSync', 'open', 'openSync', 'createReadStream', 'openAsBlob'],
  message: 'Read files with src/core/io/regular.ts (openRegular, readRegularFile, …): a FIFO or a device must never be opened blocking.',
}));
const NAMESPACE_FS = {
  selector: "ImportDeclaration[source.value=/^(node:)?fs(\\/promises)?$/] > :matches(ImportNamespaceSpecifier, ImportDefaultSpecifier)",
  message: 'Import the fs functions by name, so the file-opening ones are checked (no-restricted-imports).',
};
const SAFE_OPEN_MODULES = ['src/core/io/regular.ts', 'src/core/io/atomic.ts'];
const CORE_FREE_OF = ['ink', 'react', 'chokidar', 'fuse.js', 'ink-testing-library'].map((name) => ({ name, message: 'src/core must not depend on UI, watcher or search libraries.' }));
const CORE_PATTERNS = [{ group: ['ink/*', 'react/*', 'chokidar/*', '**/ui/**', '**/catalog/**'], message: 'src/core must not depend on the UI or the catalog.' }];

export default tseslint.config(
  { ignores: ['dist/', 'dist.building-*/', 'node_modules/', 'coverage/', '.cache/', 'examples/', 'test/fixtures/', 'bench/data/', 'bench/.work/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // bin/ is CommonJS (bin/package.json): Node starts it without its ES module loader.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: SAFE_OPEN_MODULES,
    rules: {
      'no-restricted-imports': ['error', { paths: FILE_OPENING }],
      'no-restricted-syntax': ['error', NAMESPACE_FS],
    },
  },
  {
    // The core is shared by the CLI, the TUI and the watcher: it must stay free of UI and watcher libraries.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...FILE_OPENING, ...CORE_FREE_OF],
        patterns: CORE_PATTERNS,
      }],
      'no-restricted-properties': ['error', { object: 'os', property: 'homedir', message: 'Core functions take directories as arguments.' }],
    },
  },
  {
    // The safe open itself, and the atomic writer: the core's own restrictions only.
    files: SAFE_OPEN_MODULES,
    rules: { 'no-restricted-imports': ['error', { paths: CORE_FREE_OF, patterns: CORE_PATTERNS }] },
  },
  {
    // No import cycles (issue 26), type-only imports included: a module imports only what is whole when it is loaded,
    // and the layers stay one-way (an agent's folder never reaches back into the hand-off entry point).
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { sessions: importCycles },
    rules: { 'sessions/no-import-cycle': 'error' },
  },
  {
    // A source file a reader can hold in their head (issue 26): past 600 lines, split it where its parts can be named.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }] },
  },
);
