import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // The core is shared by the CLI, the TUI and the watcher: it must stay free of UI and watcher libraries.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['ink', 'react', 'chokidar', 'fuse.js', 'ink-testing-library'].map((name) => ({ name, message: 'src/core must not depend on UI, watcher or search libraries.' })),
        patterns: [{ group: ['ink/*', 'react/*', 'chokidar/*', '**/ui/**', '**/catalog/**'], message: 'src/core must not depend on the UI or the catalog.' }],
      }],
      'no-restricted-properties': ['error', { object: 'os', property: 'homedir', message: 'Core functions take directories as arguments.' }],
    },
  },
);
