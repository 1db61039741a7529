import { ADAPTER_LIST } from '../core/formats/index.js';
import type { HandoffHomes } from '../core/handoff/index.js';
import type { Agent } from '../core/model.js';
import type { Locations } from './locations.js';

/**
 * Where a hand-off to each agent is written: the first root of that agent this run reads (`--home`, its location
 * flag, else the agent's own variable or default), so the new session is listed with the others and the agent,
 * pointed at that home, resumes it. Agents without a home folder (claw keeps sessions in the workspace) get none.
 */
export function handoffHomes(locations: Locations): HandoffHomes {
  const homes: Partial<Record<Agent, string>> = {};
  for (const adapter of ADAPTER_LIST) {
    const first = locations.roots[adapter.agent][0];
    if (adapter.locations.homeFolder !== null && first !== undefined) homes[adapter.agent] = first;
  }
  return homes;
}
