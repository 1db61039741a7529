/**
 * The grep engine the test run asked for (vitest.config.ts runs the grep tests again with SESSIONS_GREP_ENGINE=js),
 * for the environment of the `sessions` processes a test starts: they must search with the same engine.
 */
export function grepEngineEnv(): { SESSIONS_GREP_ENGINE?: string } {
  const engine = process.env.SESSIONS_GREP_ENGINE;
  return engine === undefined ? {} : { SESSIONS_GREP_ENGINE: engine };
}

/** The same, as the option a test passes to grepLocations. */
export function grepEngineOption(): { engine?: 'native' | 'js' } {
  const engine = process.env.SESSIONS_GREP_ENGINE;
  return engine === 'js' || engine === 'native' ? { engine } : {};
}
