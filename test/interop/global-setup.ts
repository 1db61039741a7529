import type { TestProject } from 'vitest/node';
import { AGENT_CACHE_DIR, ensureAgent, interopTargets, PINNED_TARGETS, type AgentAvailability, type InteropTarget } from './agents.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Per target key: the release this run tests and whether it could be installed. */
    interopTargets: Record<string, { readonly target: InteropTarget } & AgentAvailability>;
  }
}

/**
 * Install (or reuse) the pinned agents once per run. An agent that cannot be installed fails the whole run
 * loudly, unless SESSIONS_ALLOW_NO_AGENTS=1: then its tests are skipped with a message saying why.
 */
export default async function setup(project: TestProject): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`[interop] ${line}\n`);
  };
  const allowMissing = process.env.SESSIONS_ALLOW_NO_AGENTS === '1';
  const result: Record<string, { readonly target: InteropTarget } & AgentAvailability> = {};
  const missing: string[] = [];
  const targets = interopTargets();
  // A run of other releases (interop:latest) leaves out the pins it does not name: their files skip, saying so.
  for (const pin of PINNED_TARGETS) {
    if (!targets.some((t) => t.key === pin.key)) result[pin.key] = { target: pin, available: false, reason: 'not part of this run (SESSIONS_INTEROP_VERSIONS)' };
  }
  for (const pin of targets) {
    const availability = await ensureAgent(pin, log);
    result[pin.key] = { target: pin, ...availability };
    if (availability.available) {
      log(`${pin.packageName}@${pin.version}: ${availability.installedNow ? 'installed' : 'cached'} in ${availability.seconds.toFixed(1)} s (${availability.bin})`);
    } else {
      missing.push(`${pin.packageName}@${pin.version}: ${availability.reason}`);
    }
  }
  if (missing.length > 0) {
    const detail = missing.join('\n\n');
    if (!allowMissing) {
      throw new Error(
        `INTEROP FAILED: could not install the pinned agent(s) into ${AGENT_CACHE_DIR}.\n${detail}\n` +
          'The real-agent round trips cannot run. Set SESSIONS_ALLOW_NO_AGENTS=1 to skip them instead (not for CI).',
      );
    }
    for (const line of missing) log(`SKIP (SESSIONS_ALLOW_NO_AGENTS=1): interop tests for ${line.split('\n')[0]}`);
  }
  project.provide('interopTargets', result);
}
