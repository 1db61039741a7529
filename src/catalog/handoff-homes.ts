import type { HandoffHomes } from '../core/handoff/index.js';
import type { Locations } from './locations.js';

/**
 * Where a hand-off to each agent is written: the first home of that agent this run reads (`--home`, `--codex-home`,
 * `--claude-dir`, else the agent's own variable or default), so the new session is listed with the others and the
 * agent, pointed at that home, resumes it. claw keeps sessions in the workspace and needs none.
 */
export function handoffHomes(locations: Locations): HandoffHomes {
  return { codex: locations.codexHomes[0], claude: locations.claudeDirs[0] };
}
