// A summary worker: reads head+tail summaries for the batches of session files the main thread hands it.
// A cold scan is JSON parsing of ~10k heads and tails; spread over the cores it takes half the time or less.
import { parentPort, workerData } from 'node:worker_threads';
import { describeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { AdapterContext, Problem, SessionFileGroup } from '../core/formats/types.js';
import type { Agent, SessionSummary } from '../core/model.js';

export interface SummaryJob {
  readonly headBytes: number;
  readonly tailBytes: number;
  /** Every group discovery found (Codex paginated forks look up their parent's files by id). */
  readonly groups: readonly SessionFileGroup[];
  /** Codex thread names per CODEX_HOME root. */
  readonly names: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** Main → worker: summarise these groups (indexes into the job's `groups`), or finish. */
export type SummaryRequest = { readonly kind: 'batch'; readonly indexes: readonly number[] } | { readonly kind: 'end' };

export interface SummaryResult {
  readonly index: number;
  readonly summary: SessionSummary | null;
  /** The summary could not be read (the message names the cause); reported against the group's live file. */
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
  if (id !== null && !byId.has(`${group.agent}:${id}`)) byId.set(`${group.agent}:${id}`, group);
};
for (const group of job.groups) register(group, group.idHint);

let problems: Problem[] = [];
const context: AdapterContext = {
  report: (problem) => problems.push(problem),
  lookup: (agent: Agent, id: string) => byId.get(`${agent}:${id}`),
  names: (root: string) => job.names.get(root) ?? new Map<string, string>(),
  headBytes: job.headBytes,
  tailBytes: job.tailBytes,
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
      const summary = await ADAPTERS[group.agent].readSummary(group, context);
      if (summary) register(group, summary.id);
      results.push({ index, summary });
    } catch (error) {
      results.push({ index, summary: null, error: describeError(error) });
    }
  }
  const reply = { results, problems };
  problems = [];
  return reply;
}
