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
  const out: TurnFiles[] = [];
  // One git at a time: a long session has hundreds of turns.
  for (const [index, code] of turns.entries()) {
    const next = turns[index + 1]?.tree;
    if (code.tree === undefined) {
      out.push({ turn: index + 1, recorded: code.recorded, files: code.changed });
      continue;
    }
    // A snapshot commit per turn: what the turn changed is what differs from the next turn's.
    const between = next === undefined || cwd === null ? null : await changedBetween(cwd, code.tree, next);
    const files = between === null ? (code.changed.length > 0 ? code.changed : null) : [...new Set([...code.changed, ...between])].sort();
    out.push({ turn: index + 1, recorded: code.recorded, files });
  }
  return out;
}
