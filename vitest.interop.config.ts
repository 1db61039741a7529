import { defineConfig } from 'vitest/config';

// Round trips through the real Codex CLI and Claude Code (issue 4): `npm run test:interop`.
// Agents are installed once into .cache/agents by the global setup; each agent process has its own kill timeout
// (test/interop/round-trip.ts), and these limits stop a hang that slips past them.
export default defineConfig({
  test: {
    include: ['test/interop/**/*.test.ts'],
    globalSetup: ['test/interop/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    teardownTimeout: 30_000,
    // One file per agent; each starts its own model stand-in, so they can run side by side.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
