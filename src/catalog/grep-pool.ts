// The JS search engine's worker threads (grep-worker.ts), fed from the folder walks as they find files; the native
// engine (native-grep.ts) answers the same PoolEvents.
import { Worker } from 'node:worker_threads';
import type { PoolEvents } from './grep-pool-events.js';
import type { GrepItem, GrepMessage, GrepRequest, GrepWorkerData } from './grep-worker.js';

/** Worker threads that pull batches of files from one queue (a worker that finishes early takes more). */
export class GrepPool {
  private readonly workers: Worker[];
  /** Batches sent and not yet done, per worker: two in flight, so a worker never waits for the next one. */
  private readonly inFlight = new Map<Worker, number>();
  /**
   * Work not handed out yet, taken from the end: Claude files first (their rows wait for all of them), then the
   * others, newest first (the walks list them oldest first). No sort: 100,000 items would cost more than the search.
   */
  private readonly lineageQueue: GrepItem[] = [];
  private readonly queue: GrepItem[] = [];
  private busy = 0;
  /** Work that is still being found (folder walks): the pool is not done while any is pending. */
  private pending = 0;
  private running = false;
  private aborted = false;
  private failure: unknown = undefined;
  private done: ((error?: unknown) => void) | null = null;

  constructor(count: number, data: GrepWorkerData) {
    this.workers = Array.from({ length: count }, () => new Worker(new URL('./grep-worker.js', import.meta.url), { workerData: data }));
    for (const worker of this.workers) this.inFlight.set(worker, 0);
  }

  /** Queue the items `work` resolves to when it resolves. */
  expect(work: Promise<readonly GrepItem[]> | readonly GrepItem[]): void {
    this.pending++;
    Promise.resolve(work)
      .then((items) => {
        if (this.aborted) return;
        for (const item of items) (item.sniffLineage ? this.lineageQueue : this.queue).push(item);
      })
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.pending--;
        this.pump();
      });
  }

  /** Hand out what is queued now (it is: work goes out as it is found). */
  handOver(): void {
    this.pump();
  }

  stop(): void {
    for (const worker of this.workers) worker.postMessage({ kind: 'stop' } satisfies GrepRequest);
  }

  /** End the search now: what is queued is dropped, and the workers are ended mid-batch (a batch can be seconds of reading). */
  abort(): void {
    this.aborted = true;
    this.lineageQueue.length = 0;
    this.queue.length = 0;
    for (const worker of this.workers) void worker.terminate();
    this.done?.();
  }

  /** Search until the queue is empty, every worker idle and nothing more is expected. */
  run(events: PoolEvents): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.done = (error?: unknown): void => {
        if (this.done === null) return;
        this.done = null;
        this.stop();
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(String(error)));
      };
      for (const worker of this.workers) {
        worker.on('message', (message: GrepMessage) => {
          if (message.kind === 'match') events.onMatch(message.index, { matches: message.matches, snippet: message.snippet }, message.stamps);
          else if (message.kind === 'problem') events.onProblem({ path: message.path, message: message.message });
          else {
            this.busy--;
            this.inFlight.set(worker, this.inFlight.get(worker)! - 1);
            if (message.cwds.length > 0 || message.lineages.length > 0) this.expect(events.onBatch(message.cwds, message.lineages));
            this.pump();
          }
        });
        worker.on('error', (error) => this.done?.(error));
        worker.on('exit', (code) => this.done?.(new Error(`full-text search worker exited with code ${code}`)));
      }
      this.running = true;
      this.pump();
    });
  }

  private pump(): void {
    if (!this.running || this.done === null) return;
    if (this.aborted) {
      this.done();
      return;
    }
    if (this.failure !== undefined) {
      this.done(this.failure);
      return;
    }
    for (let depth = 1; depth <= 2; depth++) {
      for (const worker of this.workers) {
        const queue = this.lineageQueue.length > 0 ? this.lineageQueue : this.queue;
        if (queue.length === 0 || this.inFlight.get(worker)! >= depth) continue;
        // Big batches while there is plenty left, single sessions at the end so no worker waits on another.
        const left = this.lineageQueue.length + this.queue.length;
        const size = Math.max(1, Math.min(256, Math.ceil(left / (this.workers.length * 4))));
        const items = queue.splice(Math.max(0, queue.length - size)).reverse();
        worker.postMessage({ kind: 'work', items } satisfies GrepRequest);
        this.inFlight.set(worker, this.inFlight.get(worker)! + 1);
        this.busy++;
      }
    }
    if (this.lineageQueue.length === 0 && this.queue.length === 0 && this.busy === 0 && this.pending === 0) this.done?.();
  }
}
