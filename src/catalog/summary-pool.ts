import { Worker } from 'node:worker_threads';
import type { SessionFileGroup } from '../core/formats/types.js';
import type { SummaryJob, SummaryReply, SummaryRequest, SummaryResult } from './summary-worker.js';

/** Groups per message: big enough that messaging costs nothing, small enough to balance slow files. */
const BATCH = 48;

export interface PoolOptions {
  readonly workers: number;
  readonly saveFoldFrom: number;
  readonly names: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly onResult: (result: SummaryResult) => void;
  readonly onProblem: (problem: SummaryReply['problems'][number]) => void;
}

/**
 * Summarise `todo` (indexes into `groups`) on worker threads, handing out batches as workers finish them.
 * Resolves when every index has a result; rejects when a worker fails (the caller reads what is left itself:
 * `onResult` has been called for exactly the finished ones).
 */
export async function summarizeOnWorkers(groups: readonly SessionFileGroup[], todo: readonly number[], options: PoolOptions): Promise<void> {
  const job: SummaryJob = { saveFoldFrom: options.saveFoldFrom, groups, names: options.names };
  let next = 0;
  const take = (): number[] => todo.slice(next, (next += BATCH));
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, options.workers) }, () => {
        const worker = new Worker(new URL('./summary-worker.js', import.meta.url), { workerData: job });
        workers.push(worker);
        return new Promise<void>((resolve, reject) => {
          let inFlight = 0;
          const send = (): void => {
            const indexes = take();
            if (indexes.length === 0) return;
            inFlight++;
            worker.postMessage({ kind: 'batch', indexes } satisfies SummaryRequest);
          };
          worker.on('message', (reply: SummaryReply) => {
            inFlight--;
            for (const problem of reply.problems) options.onProblem(problem);
            for (const result of reply.results) options.onResult(result);
            send();
            if (inFlight === 0) {
              worker.postMessage({ kind: 'end' } satisfies SummaryRequest);
              resolve();
            }
          });
          worker.on('error', reject);
          worker.on('exit', (code) => {
            if (inFlight > 0) reject(new Error(`summary worker exited with code ${code} before it finished`));
          });
          // Two batches in flight: the worker never waits for the main thread to hand it the next one.
          send();
          send();
          if (inFlight === 0) {
            worker.postMessage({ kind: 'end' } satisfies SummaryRequest);
            resolve();
          }
        });
      }),
    );
  } finally {
    for (const worker of workers) void worker.terminate();
  }
}
