import type { LineStats } from '../io/lines.js';
import type { ReportProblem } from './types.js';

/**
 * Tell the user, once per file, that lines were skipped: a file of garbage is not silently dropped.
 * A partial last line is not reported: an agent may be writing it right now.
 */
export function reportSkippedLines(report: ReportProblem, path: string, stats: LineStats, listed: boolean): void {
  if (stats.malformed === 0) return;
  const lines = `${stats.malformed} malformed line${stats.malformed === 1 ? '' : 's'}`;
  report({ path, message: listed ? `skipped ${lines}` : `not a session file (${lines}, no session found)` });
}
