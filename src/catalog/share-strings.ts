// A row folded on a worker thread arrives as a structured clone: every string in it is a copy of its own, even
// where the fold had one string for two fields (a title that is the first prompt) or the main thread already holds
// it (the group's paths, the agent, a model or a directory that thousands of rows share). At 100k sessions those
// copies were a quarter of the cold index's live heap; here a row takes the main thread's strings instead.
import type { SessionFileGroup } from '../core/formats/types.js';
import type { SessionSummary } from '../core/model.js';

/** Strings many rows repeat, one copy each (bounded: past the limit a new one is kept as it is). */
export class StringPool {
  private readonly strings = new Map<string, string>();
  constructor(private readonly limit = 1 << 16) {}
  share<T extends string | null>(text: T): T {
    if (text === null) return text;
    const known = this.strings.get(text);
    if (known !== undefined) return known as T;
    if (this.strings.size < this.limit) this.strings.set(text, text);
    return text;
  }
}

/** The same row with the group's paths, the pool's shared strings and one copy of each repeated prompt. */
export function shareStrings<S extends SessionSummary>(summary: S, group: SessionFileGroup, pool: StringPool): S {
  const paths = samePaths(summary.paths, group.paths) ? group.paths : summary.paths;
  const path = paths[paths.indexOf(summary.path)] ?? summary.path;
  const firstPrompt = summary.firstPrompt;
  const prompt = (text: string | null): string | null => (text !== null && text === firstPrompt ? firstPrompt : text);
  const prompts = summary.prompts.map((text) => prompt(text) ?? text);
  return {
    ...summary,
    agent: group.agent,
    path,
    paths,
    cwd: pool.share(summary.cwd),
    title: prompt(summary.title) ?? summary.title,
    lastPrompt: prompt(summary.lastPrompt),
    prompts,
    gitBranch: pool.share(summary.gitBranch),
    model: pool.share(summary.model),
  };
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((path, i) => path === b[i]);
}
