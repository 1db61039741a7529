/**
 * opencode's snapshots (`fork --with-code`): in a git repository, with `snapshot` not set to false in its config,
 * opencode stages the whole working tree (tracked and untracked files, not ignored ones, not untracked files over
 * 2 MB) into a repository of its own, `<data dir>/snapshot/<project id>/<sha1 of the worktree path>`, at the start of
 * every step of an answer, and records the tree's hash on the step's `step-start` part (`snapshot`); its revert puts
 * files back from those trees (`read-tree` + `checkout-index`, per file `checkout <tree> -- file`), and its cleanup
 * prunes trees older than 7 days (`git gc --prune=7.days`). Read from opencode 1.18.33's own code.
 */
import { readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { checkCodeTurn, NoCodeError } from '../../errors.js';
import { withReadOnly } from '../../io/sqlite.js';
import type { AdapterContext, CodeAtTurn, RecordedTurns, SessionFileGroup } from '../types.js';
import type { OpencodeDialect } from './dialect.js';
import { conversationId, isUserTurn, readOne, type DecodedMessage } from './store.js';

const TREE = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** A git project's id is its first root commit; a folder outside git is the project `global` (never snapshotted). */
const PROJECT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The tree of the first step of the answer to each user turn (index 0: turn 1); null where none was recorded. */
export function snapshotsByTurn(dialect: OpencodeDialect, messages: readonly DecodedMessage[]): (string | null)[] {
  const turns: (string | null)[] = [];
  let open = false;
  for (const message of messages) {
    if (isUserTurn(dialect, message)) {
      turns.push(null);
      open = true;
      continue;
    }
    if (!open || message.info.role !== 'assistant') continue;
    for (const { data } of message.parts) {
      if (data.type !== 'step-start') continue;
      // The first step of the answer decides: a step without a snapshot means opencode took none for this turn.
      open = false;
      if (typeof data.snapshot === 'string' && TREE.test(data.snapshot)) turns[turns.length - 1] = data.snapshot;
      break;
    }
  }
  return turns;
}

/**
 * Per user turn, whether its snapshot was taken and the files its answer's steps changed (their `patch` parts, absolute
 * paths: named relative to the session's directory when inside it).
 */
export async function opencodeTurns(dialect: OpencodeDialect, group: SessionFileGroup, context: AdapterContext): Promise<RecordedTurns> {
  const path = group.paths[0]!;
  const { session, messages } = withReadOnly(path, (db) => readOne(dialect, db, conversationId(dialect, group), 'all', context.report, path));
  const cwd = session.directory;
  const snapshots = snapshotsByTurn(dialect, messages);
  const changed: Set<string>[] = [];
  for (const message of messages) {
    if (isUserTurn(dialect, message)) changed.push(new Set());
    else if (changed.length > 0 && message.info.role === 'assistant') {
      for (const { data } of message.parts) {
        if (data.type !== 'patch' || !Array.isArray(data.files)) continue;
        for (const file of data.files) {
          if (typeof file !== 'string' || !isAbsolute(file)) continue;
          const inside = relative(cwd, file);
          changed.at(-1)!.add(inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside) ? file : inside);
        }
      }
    }
  }
  return { cwd, turns: changed.map((files, index) => ({ recorded: snapshots[index] !== null && snapshots[index] !== undefined, changed: [...files].sort() })) };
}

/** The snapshot repositories of a project under a data folder (one per worktree opencode ran in). */
async function snapshotRepositories(root: string, project: string): Promise<string[]> {
  const folder = join(root, 'snapshot', project);
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(folder, entry.name)).sort();
}

/** The files when user turn `atTurn` was typed: the tree opencode snapshotted as its answer began. */
export async function opencodeCodeAt(dialect: OpencodeDialect, group: SessionFileGroup, atTurn: number, context: AdapterContext): Promise<CodeAtTurn> {
  const path = group.paths[0]!;
  const { session, messages } = withReadOnly(path, (db) => readOne(dialect, db, conversationId(dialect, group), 'all', context.report, path));
  const turns = messages.filter((message) => isUserTurn(dialect, message));
  checkCodeTurn(atTurn, turns.length);
  const tree = snapshotsByTurn(dialect, messages)[atTurn - 1] ?? null;
  const project = typeof session.project_id === 'string' ? session.project_id : '';
  if (tree === null || !PROJECT.test(project)) {
    throw new NoCodeError(
      `turn ${atTurn} has no snapshot: ${dialect.label} takes one as each answer begins only in a git repository and with "snapshot" not set to false in its config`,
    );
  }
  const gitDirs = await snapshotRepositories(group.root, project);
  const typed = new Date(turns[atTurn - 1]!.row.time_created);
  return {
    cwd: session.directory,
    base: { kind: 'branch-at', branch: 'HEAD', at: typed },
    snapshot: {
      tree,
      gitDirs,
      what: `turn ${atTurn}'s snapshot`,
      gone: `${dialect.label} prunes snapshots older than 7 days from its snapshot repository (${join(group.root, 'snapshot', project)})`,
    },
    files: [],
    notes: [`ignored files and untracked files over 2 MB, which ${dialect.label} leaves out of its snapshots, are not restored`],
  };
}
