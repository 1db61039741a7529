import { cleanup } from 'ink-testing-library';
import { afterEach } from 'vitest';

// With CI=true Ink renders only the last frame on exit; component tests read intermediate frames.
delete process.env.CI;

// Unmount every Ink app a test rendered, so its timers and watchers stop before the next test.
afterEach(() => {
  cleanup();
});
