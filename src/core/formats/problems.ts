import type { LineStats } from '../io/lines.js';
import type { Problem, ReportProblem } from './types.js';

/**
 * Tell the user, once per file, that lines were skipped: a file of garbage is not silently dropped.
 * A partial last line is not reported: an agent may be writing it right now.
 */
export function reportSkippedLines(report: ReportProblem, path: string, stats: LineStats, listed: boolean): void {
  if (stats.malformed === 0) return;
  report({ path, message: listed ? skippedLinesMessage(stats.malformed) : `not a session file (${malformedLines(stats.malformed)}, no session found)` });
}

/** How a session file's skipped lines are told (`list` while indexing it, `show` after reading its transcript). */
export function skippedLinesMessage(malformed: number): string {
  return `skipped ${malformedLines(malformed)}`;
}

/** Whether a problem is a session file's skipped lines (`skippedLinesMessage`). */
export function isSkippedLines(problem: Problem): boolean {
  return /^skipped \d+ malformed lines?$/.test(problem.message);
}

function malformedLines(count: number): string {
  return `${count} malformed line${count === 1 ? '' : 's'}`;
}
