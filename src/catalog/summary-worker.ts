// An index worker: folds the rows of the batches of session files the main thread hands it.
// A cold index is reading and JSON parsing of every file; spread over the cores it takes half the time or less.
import { readingGiantLinesClipped } from '../core/io/clip-stream.js';
import { parentPort, workerData } from 'node:worker_threads';
import { describeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { AdapterContext, IndexedSession, Problem, SessionFileGroup } from '../core/formats/types.js';

export interface SummaryJob {
  /** Files at least this big send their fold back with their row. */
  readonly saveFoldFrom: number;
  /** Codex thread names per CODEX_HOME root. */
  readonly names: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/**
 * Main → worker: summarise these groups (each with its index in the scan's list), or finish. A worker is handed only
 * its batch's groups: every group discovered, cloned into each worker, was ≈ 100 MB at 100k sessions.
 */
export type SummaryRequest = { readonly kind: 'batch'; readonly batch: number; readonly indexes: readonly number[]; readonly groups: readonly SessionFileGroup[] } | { readonly kind: 'end' };

export interface SummaryResult {
  readonly index: number;
  readonly indexed?: IndexedSession;
  /** The row could not be read (the message names the cause); reported against the group's live file. */
  readonly error?: string;
  /** The fold looked up another conversation's files (a Codex fork's parent): only the main thread knows them all. */
  readonly retry?: true;
}

/** Worker → main: one batch done. */
export interface SummaryReply {
  /** The batch's number, as sent. */
  readonly batch: number;
  readonly results: readonly SummaryResult[];
  readonly problems: readonly Problem[];
}

const job = workerData as SummaryJob;

let problems: Problem[] = [];
/** Set when a fold asked for another conversation's files: its row is read again on the main thread. */
let lookedUp = false;
const context: AdapterContext = {
  report: (problem) => problems.push(problem),
  lookup: () => {
    lookedUp = true;
    return undefined;
  },
  names: (root: string) => job.names.get(root) ?? new Map<string, string>(),
  saveFoldFrom: job.saveFoldFrom,
};

/** Batches are folded one after another (a fold's lookups are told apart by `lookedUp`). */
let done: Promise<void> = Promise.resolve();
parentPort!.on('message', (request: SummaryRequest) => {
  if (request.kind === 'end') {
    void done.then(() => parentPort!.close());
    return;
  }
  done = done.then(async () => parentPort!.postMessage(await summarizeBatch(request.batch, request.indexes, request.groups)));
});

async function summarizeBatch(batch: number, indexes: readonly number[], groups: readonly SessionFileGroup[]): Promise<SummaryReply> {
  const results: SummaryResult[] = [];
  for (let i = 0; i < indexes.length; i++) {
    const index = indexes[i]!;
    const group = groups[i]!;
    const reported = problems.length;
    lookedUp = false;
    try {
      const indexed = await readingGiantLinesClipped(() => ADAPTERS[group.agent].indexSession(group, context));
      results.push(lookedUp ? { index, retry: true } : { index, indexed });
    } catch (error) {
      results.push(lookedUp ? { index, retry: true } : { index, error: describeError(error) });
    }
    // What a fold read again on the main thread met is reported there.
    if (lookedUp) problems.length = reported;
  }
  const reply = { batch, results, problems };
  problems = [];
  return reply;
}
