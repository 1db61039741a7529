import { Worker } from 'node:worker_threads';
import type { SessionFileGroup } from '../core/formats/types.js';
import type { SummaryJob, SummaryReply, SummaryRequest, SummaryResult } from './summary-worker.js';

/** Groups per message: big enough that messaging costs nothing, small enough to balance slow files. */
const BATCH = 48;

/**
 * Files at least this big are folded one per batch, biggest first, on the workers while the main thread takes the
 * small ones: a 200 MB session takes seconds, and one left for last would keep a core idle that long.
 */
export const BIG_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The groups left to fold, shared by the main thread and the workers: small files in the order given (newest
 * first), big files by size. Workers take the biggest first, the main thread the small ones first (then the
 * smallest big ones), so both cores stay busy to the end.
 */
export class FoldQueue {
  private smallAt = 0;
  private readonly small: number[] = [];
  /** Biggest first: workers take from the front, the main thread from the back. */
  private readonly big: number[] = [];
  private bigFrom = 0;
  private bigTo: number;
  /** Groups given back by workers: the main thread's only. */
  private readonly back: number[] = [];

  /** The big files' bytes. */
  readonly bigBytes: number = 0;

  constructor(order: readonly number[], sizeOf: (index: number) => number) {
    for (const index of order) (sizeOf(index) >= BIG_FILE_BYTES ? this.big : this.small).push(index);
    for (const index of this.big) this.bigBytes += sizeOf(index);
    this.big.sort((a, b) => sizeOf(b) - sizeOf(a));
    this.bigTo = this.big.length;
  }

  get size(): number {
    return this.small.length - this.smallAt + this.bigTo - this.bigFrom + this.back.length;
  }

  get bigCount(): number {
    return this.bigTo - this.bigFrom;
  }

  /** The main thread's next group: a small one, else (when `big`) the smallest big one. */
  takeOne(big = true): number | undefined {
    if (this.back.length > 0) return this.back.pop();
    if (this.smallAt < this.small.length) return this.small[this.smallAt++];
    return big && this.bigFrom < this.bigTo ? this.big[--this.bigTo] : undefined;
  }

  /** A worker's next batch: the biggest file left alone, or up to `BATCH` small ones. */
  takeBatch(): number[] {
    if (this.bigFrom < this.bigTo) return [this.big[this.bigFrom++]!];
    const batch = this.small.slice(this.smallAt, this.smallAt + BATCH);
    this.smallAt += batch.length;
    return batch;
  }

  /** Groups a worker took and did not finish (it died), or must not fold (a lookup): the main thread folds them. */
  giveBack(indexes: readonly number[]): void {
    this.back.push(...indexes);
  }
}

export interface PoolOptions {
  readonly workers: number;
  readonly saveFoldFrom: number;
  readonly names: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly onResult: (result: SummaryResult) => void;
  readonly onProblem: (problem: SummaryReply['problems'][number]) => void;
}

/**
 * Fold groups of `queue` (indexes into `groups`) on worker threads, taking batches as workers finish them, while
 * the caller takes groups of the same queue on the main thread. Resolves when no worker has work left; what a
 * worker took and could not finish (it could not start, or died) is given back to the queue. `onResult` is called
 * for exactly the finished ones.
 */
export async function summarizeOnWorkers(groups: readonly SessionFileGroup[], queue: FoldQueue, options: PoolOptions): Promise<void> {
  const job: SummaryJob = { saveFoldFrom: options.saveFoldFrom, names: options.names };
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, options.workers) }, () => {
        // A small young generation: a worker's garbage is short-lived lines; the default's headroom would be RSS.
        const worker = new Worker(new URL('./summary-worker.js', import.meta.url), { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
        workers.push(worker);
        const inFlight = new Map<number, readonly number[]>();
        let sent = 0;
        return new Promise<void>((resolve) => {
          let settled = false;
          const finish = (): void => {
            if (settled) return;
            settled = true;
            for (const indexes of inFlight.values()) queue.giveBack(indexes);
            inFlight.clear();
            resolve();
          };
          const send = (): void => {
            const indexes = queue.takeBatch();
            if (indexes.length === 0) return;
            const batch = sent++;
            inFlight.set(batch, indexes);
            worker.postMessage({ kind: 'batch', batch, indexes, groups: indexes.map((index) => groups[index]!) } satisfies SummaryRequest);
          };
          worker.on('message', (reply: SummaryReply) => {
            inFlight.delete(reply.batch);
            for (const problem of reply.problems) options.onProblem(problem);
            for (const result of reply.results) options.onResult(result);
            send();
            if (inFlight.size === 0) {
              worker.postMessage({ kind: 'end' } satisfies SummaryRequest);
              finish();
            }
          });
          // A worker that cannot start or dies: what it held goes back to the queue, for the main thread.
          worker.on('error', finish);
          worker.on('exit', finish);
          // Two batches in flight: the worker never waits for the main thread to hand it the next one.
          send();
          send();
          if (inFlight.size === 0) {
            worker.postMessage({ kind: 'end' } satisfies SummaryRequest);
            finish();
          }
        });
      }),
    );
  } finally {
    for (const worker of workers) void worker.terminate();
  }
}
