// `show --files` and the transcript's marks: per user turn, whether its files as they were are recorded (a fork with the
// code can be made before it) and which files it changed.
import { groupOf, type CatalogSession } from '../catalog/scan.js';
import { NoCodeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { AdapterContext } from '../core/formats/types.js';
import { changedBetween } from './code-worktree.js';

export interface TurnFiles {
  /** 1-based user turn. */
  readonly turn: number;
  /** The files as they were when it was typed are recorded. */
  readonly recorded: boolean;
  /** The files it changed; null when nothing tells (the last turn of an agent whose snapshots alone tell). */
  readonly files: readonly string[] | null;
}

/** Each user turn's files, or NoCodeError for an agent that records none. */
export async function turnFiles(session: CatalogSession, context: AdapterContext): Promise<TurnFiles[]> {
  const adapter = ADAPTERS[session.agent];
  if (adapter.checkpoints === undefined) throw new NoCodeError(`${adapter.label} records no files per turn`);
  const { cwd, turns } = await adapter.checkpoints.turns(groupOf(session), context);
  // A snapshot commit per turn: what a turn changed is what differs from the next turn's.
  const pairs = turns.flatMap((code, index) => {
    const next = turns[index + 1]?.tree;
    return code.tree === undefined || next === undefined ? [] : [[code.tree, next] as const];
  });
  const changes = cwd === null || pairs.length === 0 ? [] : await changedBetween(cwd, pairs);
  let pair = 0;
  return turns.map((code, index): TurnFiles => {
    if (code.tree === undefined) return { turn: index + 1, recorded: code.recorded, files: code.changed };
    const between = turns[index + 1]?.tree === undefined ? null : (changes[pair++] ?? null);
    const files = between === null ? (code.changed.length > 0 ? code.changed : null) : [...new Set([...code.changed, ...between])].sort();
    return { turn: index + 1, recorded: code.recorded, files };
  });
}
