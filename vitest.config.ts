import { defineConfig } from 'vitest/config';

/**
 * The tests that run grep, run a second time with the JS search engine (SESSIONS_GREP_ENGINE=js): the first run
 * takes the native engine wherever it is built (CI requires it), so both engines pass the same tests.
 */
const GREP_TESTS = [
  'test/catalog/grep-*.test.ts',
  'test/catalog/registry.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/codex-rules.test.ts',
  'test/cli/claude-rules.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.{ts,tsx}'], exclude: ['test/interop/**', 'node_modules/**'] },
      },
      {
        extends: true,
        test: { name: 'grep-js', include: GREP_TESTS, env: { SESSIONS_GREP_ENGINE: 'js' } },
      },
    ],
  },
});
