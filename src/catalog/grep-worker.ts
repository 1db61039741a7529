// A full-text search worker: checks its share of the session files and posts each match as it is found.
import { parentPort, workerData } from 'node:worker_threads';
import { fileContainsSync } from '../core/io/contains.js';

interface GrepJob {
  /** Per session: its files. */
  readonly sessions: readonly (readonly string[])[];
  /** Which of the sessions are this worker's (indexes into `sessions`). */
  readonly indexes: readonly number[];
  readonly needles: readonly Uint8Array[];
  readonly ignoreCase: boolean;
}

export type GrepMessage = { readonly kind: 'match'; readonly index: number } | { readonly kind: 'problem'; readonly path: string; readonly message: string } | { readonly kind: 'done' };

const job = workerData as GrepJob;
const needles = job.needles.map((needle) => Buffer.from(needle));
for (const index of job.indexes) {
  for (const path of job.sessions[index]!) {
    try {
      if (fileContainsSync(path, needles, { ignoreCase: job.ignoreCase })) {
        parentPort!.postMessage({ kind: 'match', index } satisfies GrepMessage);
        break;
      }
    } catch (error) {
      parentPort!.postMessage({ kind: 'problem', path, message: error instanceof Error ? error.message : String(error) } satisfies GrepMessage);
    }
  }
}
parentPort!.postMessage({ kind: 'done' } satisfies GrepMessage);
