// The native engine (native/*.c, Node-API only, built by `npm ci` when a C compiler is there), loaded once. Everything
// it does has a JavaScript path giving the same results: without it (no compiler, a failed build) nothing changes
// but speed.
import { createRequire } from 'node:module';

let engine: unknown;

/**
 * The engine's exports, or null when it was not built or does not load. Its place is fixed relative to this module:
 * two folders down from the package root, in src/, dist/ and dist/bundle/ alike. SESSIONS_NO_NATIVE=1 leaves it
 * unloaded (tests prove the JavaScript paths give the same results).
 */
export function nativeEngine(): unknown {
  if (engine === undefined) {
    try {
      engine = process.env.SESSIONS_NO_NATIVE === '1' ? null : (createRequire(import.meta.url)('../../native/build/Release/sessions_search.node') as unknown);
    } catch {
      engine = null;
    }
  }
  return engine;
}
