/** What a search pool (the JS workers' GrepPool or the native engine's NativeGrepPool) reports to the search that runs it. */
import type { Problem } from '../core/formats/types.js';
import type { Snippet } from '../core/io/snippet.js';
import type { GrepItem, GrepStamp } from './grep-worker.js';

/** What a matching session holds of the text. */
export interface GrepFound {
  /** Occurrences in the session's files (as the agent wrote them: a prompt some agents record twice counts twice); 0 when not counted. */
  readonly matches: number;
  /** The first occurrence in its surroundings (with `context`). */
  readonly snippet: Snippet | null;
  /**
   * The text is only in turns the session inherits from its parent's file (a Codex paginated fork's early turns):
   * `matches` and `snippet` are those of that part of the parent's file.
   */
  readonly inherited?: boolean;
}

/**
 * A file's lineage as its head shows it (null: not there), or a function that reads it: a search whose matches need
 * no lineage (no matching session of such an agent) never reads the lineages of thousands of heads.
 */
export type SniffedLineage = string | null | (() => string | null);

/**
 * The stamps a search took of a session's files (null: not taken), or how to make them: a search reports the stamps of
 * every file whose lineage it sniffed, and only those of sessions whose rows are wanted are ever made.
 */
export type SniffedStamps = readonly GrepStamp[] | null | (() => readonly GrepStamp[] | null);

export interface PoolEvents {
  readonly onMatch: (index: number, found: GrepFound, stamps: readonly GrepStamp[] | null) => void;
  /**
   * A batch is done: new cwds seen in files' heads and lineages; resolves to more work (sessions kept in those cwds:
   * claw's). `held`: sessions whose lineage was sniffed that matched nothing, seen but not in `lineages`: the pool holds
   * their lineages until `heldLineages` is asked (the native engine's; none held when absent).
   */
  readonly onBatch: (cwds: readonly string[], lineages: readonly (readonly [number, SniffedLineage, SniffedStamps])[], held?: number) => Promise<GrepItem[]>;
  readonly onProblem: (problem: Problem) => void;
}

/**
 * Pool events held until `open` says whether they may be reported: replayed in order when it says yes, dropped when
 * it says no (a batch's further work is then none). Exported for tests.
 */
export function gatedEvents(open: Promise<boolean>, events: PoolEvents): PoolEvents {
  let state: boolean | null = null;
  const held: (() => void)[] = [];
  void open.then((ok) => {
    state = ok;
    const waiting = held.splice(0);
    if (ok) for (const release of waiting) release();
  });
  const later = (release: () => void): void => {
    if (state === true) release();
    else if (state === null) held.push(release);
  };
  return {
    onMatch: (index, found, stamps) => later(() => events.onMatch(index, found, stamps)),
    onProblem: (problem) => later(() => events.onProblem(problem)),
    onBatch: (cwds, lineages, held) =>
      new Promise((resolve, reject) => {
        if (state === false) resolve([]);
        else later(() => events.onBatch(cwds, lineages, held).then(resolve, reject));
        void open.then((ok) => (ok ? undefined : resolve([])));
      }),
  };
}
