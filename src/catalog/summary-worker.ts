// An index worker: folds the rows of the batches of session files the main thread hands it.
// A cold index is reading and JSON parsing of every file; spread over the cores it takes half the time or less.
import { readingGiantLinesClipped } from '../core/io/clip-stream.js';
import { parentPort, workerData } from 'node:worker_threads';
import { describeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { AdapterContext, IndexedSession, Problem, SessionFileGroup } from '../core/formats/types.js';
import { type Agent, sessionKey } from '../core/model.js';

export interface SummaryJob {
  /** Files at least this big send their fold back with their row. */
  readonly saveFoldFrom: number;
  /** Every group discovery found (Codex paginated forks look up their parent's files by id). */
  readonly groups: readonly SessionFileGroup[];
  /** Codex thread names per CODEX_HOME root. */
  readonly names: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** Main → worker: summarise these groups (indexes into the job's `groups`), or finish. */
export type SummaryRequest = { readonly kind: 'batch'; readonly indexes: readonly number[] } | { readonly kind: 'end' };

export interface SummaryResult {
  readonly index: number;
  readonly indexed?: IndexedSession;
  /** The row could not be read (the message names the cause); reported against the group's live file. */
  readonly error?: string;
}

/** Worker → main: one batch done. */
export interface SummaryReply {
  readonly results: readonly SummaryResult[];
  readonly problems: readonly Problem[];
}

const job = workerData as SummaryJob;
const byId = new Map<string, SessionFileGroup>();
const register = (group: SessionFileGroup, id: string | null): void => {
  if (id !== null && !byId.has(sessionKey({ agent: group.agent, id }))) byId.set(sessionKey({ agent: group.agent, id }), group);
};
for (const group of job.groups) register(group, group.idHint);

let problems: Problem[] = [];
const context: AdapterContext = {
  report: (problem) => problems.push(problem),
  lookup: (agent: Agent, id: string) => byId.get(sessionKey({ agent, id })),
  names: (root: string) => job.names.get(root) ?? new Map<string, string>(),
  saveFoldFrom: job.saveFoldFrom,
};

parentPort!.on('message', (request: SummaryRequest) => {
  if (request.kind === 'end') {
    parentPort!.close();
    return;
  }
  void summarizeBatch(request.indexes).then((reply) => parentPort!.postMessage(reply));
});

async function summarizeBatch(indexes: readonly number[]): Promise<SummaryReply> {
  const results: SummaryResult[] = [];
  for (const index of indexes) {
    const group = job.groups[index]!;
    try {
      const indexed = await readingGiantLinesClipped(() => ADAPTERS[group.agent].indexSession(group, context));
      if (indexed.summary) register(group, indexed.summary.id);
      results.push({ index, indexed });
    } catch (error) {
      results.push({ index, error: describeError(error) });
    }
  }
  const reply = { results, problems };
  problems = [];
  return reply;
}
