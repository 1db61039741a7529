// Turns of the event loop for the loops that index many files (the scan's), shared by their concurrent workers.
import { performance } from 'node:perf_hooks';

/**
 * Turns of the event loop shared by every concurrent worker of a loop: when the budget is spent, all of them wait
 * for the same `setImmediate`, and the budget starts again once, when it fires. (Each worker waiting for its own
 * turn and restarting the budget when it resumed let the 32 workers run 16 ms each, one after another, in a single
 * check phase: timers, and so the browser's rows and keys, waited ≈ 0.5 s at a time.)
 */
export class EventLoopTurns {
  private since: number;
  private pending: Promise<void> | null = null;
  /** How many turns were given (a test reads it). */
  given = 0;

  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.since = now();
  }

  /**
   * Undefined while the budget lasts; else the next turn of the event loop (the same one for every caller). Check
   * right before a piece of work, and again after waiting (`for (let w = t.maybeYield(); w; w = t.maybeYield()) await
   * w;`), with nothing awaited between the last check and the work's synchronous part: of the workers that waited
   * for a turn, the first goes on and spends the budget, and the others wait for the next turn.
   */
  maybeYield(): Promise<void> | undefined {
    if (this.pending !== null) return this.pending;
    if (this.now() - this.since < this.budgetMs) return undefined;
    this.pending = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.given++;
        this.pending = null;
        this.since = this.now();
        resolve();
      }),
    );
    return this.pending;
  }
}
