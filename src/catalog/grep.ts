import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { jsonNeedles } from '../core/io/contains.js';
import type { Problem } from '../core/formats/types.js';
import type { GrepMessage } from './grep-worker.js';
import type { CatalogSession } from './scan.js';

export interface GrepOptions {
  /** Fold ASCII letters (the text and the files). */
  readonly ignoreCase?: boolean;
  /** Called as soon as a session is known to match (each worker goes newest first). */
  readonly onMatch: (session: CatalogSession) => void;
  readonly onProblem?: (problem: Problem) => void;
  /** Worker threads to read with (default: one per core, at most 4). */
  readonly workers?: number;
}

/**
 * Full-text search over whole transcripts: every file of every session, for the literal `text` (as written
 * in JSON: raw, escaped, or \u-escaped), spread over worker threads; matches are reported as they are found.
 * Resolves to how many sessions matched.
 */
export async function grepSessions(sessions: readonly CatalogSession[], text: string, options: GrepOptions): Promise<number> {
  if (sessions.length === 0) return 0;
  const ignoreCase = options.ignoreCase ?? false;
  const needles = jsonNeedles(ignoreCase ? text.toLowerCase() : text);
  const count = Math.max(1, Math.min(options.workers ?? Math.min(availableParallelism(), 4), sessions.length));
  const files = sessions.map((session) => session.paths);
  let matched = 0;
  // Round robin: every worker starts with the newest sessions of its share.
  const shares = Array.from({ length: count }, (_, w) => sessions.map((_, i) => i).filter((i) => i % count === w));
  await Promise.all(
    shares.map(
      (indexes) =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(new URL('./grep-worker.js', import.meta.url), { workerData: { sessions: files, indexes, needles, ignoreCase } });
          worker.on('message', (message: GrepMessage) => {
            if (message.kind === 'match') {
              matched++;
              options.onMatch(sessions[message.index]!);
            } else if (message.kind === 'problem') {
              options.onProblem?.({ path: message.path, message: message.message });
            }
          });
          worker.on('error', reject);
          worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`full-text search worker exited with code ${code}`))));
        }),
    ),
  );
  return matched;
}
