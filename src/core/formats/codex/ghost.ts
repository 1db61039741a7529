/**
 * Codex's ghost commits (`fork --with-code`): at the start of each turn Codex (0.4x–0.1xx with its undo feature on)
 * commits the working tree, untracked files included, to an unreferenced commit and records it as a
 * `ghost_snapshot` response item after the turn's prompt; its `/undo` restores that commit's tree
 * (codex-rs/utils/git/src/ghost_commits.rs: `git restore --source <ghost> --worktree --staged`).
 */
import { checkCodeTurn, NoCodeError } from '../../errors.js';
import { newLineStats } from '../../io/lines.js';
import { isRecord } from '../../json.js';
import { indexOfUserTurn } from '../../truncate.js';
import type { AdapterContext, CodeAtTurn, RecordedTurns, SessionFileGroup } from '../types.js';
import { collect } from './collect.js';
import type { CodexLine } from './lines.js';

/** A recorded ghost commit: the snapshot's commit and the HEAD it was taken on. */
export interface GhostCommit {
  readonly id: string;
  readonly parent: string | null;
}

const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The ghost commit a `ghost_snapshot` item records, or null for any other line. */
export function ghostCommitOf(line: CodexLine): GhostCommit | null {
  if (line.kind !== 'item' || line.type !== 'ghost_snapshot') return null;
  const commit = line.payload.ghost_commit;
  if (!isRecord(commit) || typeof commit.id !== 'string' || !COMMIT_ID.test(commit.id)) return null;
  const parent = typeof commit.parent === 'string' && COMMIT_ID.test(commit.parent) ? commit.parent : null;
  return { id: commit.id, parent };
}

/** The ghost commit of each user turn (index 0: turn 1), null for a turn that has none. */
export function ghostCommitsByTurn(lines: readonly CodexLine[]): (GhostCommit | null)[] {
  const turns: (GhostCommit | null)[] = [];
  for (const line of lines) {
    if (line.userTurn) turns.push(null);
    else if (turns.length > 0 && turns.at(-1) === null) {
      const ghost = ghostCommitOf(line);
      if (ghost !== null) turns[turns.length - 1] = ghost;
    }
  }
  return turns;
}

/** The files when user turn `atTurn` was typed: its ghost commit's tree over the commit it was taken on. */
export async function codexCodeAt(group: SessionFileGroup, atTurn: number, context: AdapterContext): Promise<CodeAtTurn> {
  const collected = await collect(group, context, 'full', newLineStats(), undefined, new Set());
  const turns = collected.lines.filter((line) => line.userTurn).length;
  checkCodeTurn(atTurn, turns);
  const cwd = collected.header?.cwd ?? null;
  if (cwd === null) throw new NoCodeError(`${group.paths[0] ?? 'the session'}: no cwd recorded, so no repository to take the files from`);
  const at = indexOfUserTurn(collected.lines, atTurn - 1);
  const ghost = ghostCommitsByTurn(collected.lines.slice(at))[0] ?? null;
  if (ghost === null) {
    throw new NoCodeError(
      `turn ${atTurn} has no ghost snapshot: Codex records one per turn only with its undo feature on (ghost commits: on by default in 0.4x–0.5x, removed in later releases) and in a git repository`,
    );
  }
  if (ghost.parent === null) throw new NoCodeError(`turn ${atTurn}'s ghost commit ${ghost.id} was taken in a repository with no commit yet: there is no commit to start the worktree from`);
  return {
    cwd,
    base: { kind: 'commit', id: ghost.parent },
    tree: { commit: ghost.id, what: `turn ${atTurn}'s ghost commit` },
    files: [],
    notes: ['ignored files and large untracked files Codex left out of its snapshot are not restored'],
  };
}

/**
 * What each turn recorded: its ghost commit. Codex names no changed file (its shell edits are not tool edits): the
 * changes are read from git, between a turn's ghost commit and the next one's.
 */
export async function codexTurns(group: SessionFileGroup, context: AdapterContext): Promise<RecordedTurns> {
  const collected = await collect(group, context, 'full', newLineStats(), undefined, new Set());
  const turns = ghostCommitsByTurn(collected.lines).map((ghost) => (ghost === null ? { recorded: false, changed: [] } : { recorded: true, changed: [], tree: ghost.id }));
  return { cwd: collected.header?.cwd ?? null, turns };
}
