import type { CatalogSession, ScanProgress } from '../catalog/scan.js';

/** Timers as the batcher uses them (injectable: tests drive them by hand). */
export interface BatchTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: BatchTimers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface RowBatchOptions {
  /** Rows of a screen: once this many are indexed, the first screen is painted at once. */
  readonly screenRows: number;
  /** Before the first screen: the longest a first row waits for more (a home with few sessions). */
  readonly firstWaitMs: number;
  /** After it: rows and progress go to the reducer at most this often (each batch re-sorts and repaints). */
  readonly intervalMs: number;
  readonly timers?: BatchTimers;
}

export const ROW_BATCHES: RowBatchOptions = { screenRows: 64, firstWaitMs: 50, intervalMs: 200 };

/**
 * Rows indexed on a cold start, handed to the reducer in batches. The first screen is painted as soon as a screenful
 * of rows is indexed (newest files are indexed first) or the first row has waited `firstWaitMs`. Rows and the
 * progress line go together, at most every `intervalMs` (the first row's shorter wait aside): every frame is a
 * re-sort of the catalog and a repaint, and costs what indexing dozens of small files does.
 */
export class RowBatcher {
  private batch: CatalogSession[] = [];
  private progress: ScanProgress | null = null;
  private timer: unknown = null;
  /** The wait the pending timer was set for. */
  private timerMs = 0;
  private firstShown = false;
  private stopped = false;
  private readonly timers: BatchTimers;

  constructor(
    private readonly options: RowBatchOptions,
    private readonly onRows: (rows: CatalogSession[]) => void,
    private readonly onProgress: (progress: ScanProgress) => void,
  ) {
    this.timers = options.timers ?? realTimers;
  }

  row(session: CatalogSession): void {
    if (this.stopped) return;
    this.batch.push(session);
    if (!this.firstShown && this.batch.length >= this.options.screenRows) return this.flush();
    this.schedule(this.firstShown ? this.options.intervalMs : this.options.firstWaitMs);
  }

  progressed(progress: ScanProgress): void {
    if (this.stopped) return;
    this.progress = progress;
    // The last file done: say so now.
    if (progress.done === progress.total) return this.flush();
    this.schedule(this.options.intervalMs);
  }

  /** The scan is over (or the browser is gone): nothing more is handed on. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.batch = [];
  }

  /** A flush within `ms` (a pending longer wait is cut short: the first row does not wait for the progress line's turn). */
  private schedule(ms: number): void {
    if (this.timer !== null) {
      if (this.timerMs <= ms) return;
      this.timers.clear(this.timer);
    }
    this.timerMs = ms;
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.flush();
    }, ms);
  }

  private flush(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    if (this.stopped) return;
    if (this.batch.length > 0) {
      const rows = this.batch;
      this.batch = [];
      this.firstShown = true;
      this.onRows(rows);
    }
    if (this.progress !== null) {
      const progress = this.progress;
      this.progress = null;
      this.onProgress(progress);
    }
  }
}
