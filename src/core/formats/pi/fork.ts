/** Forking a pi session as pi's own `createBranchedSession` does: the active branch, cut before a turn, in a new file. */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { checkForkTurn, UnsupportedForkError } from '../../errors.js';
import { uuidv7 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import { cutBeforeTurn } from '../../truncate.js';
import type { ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import { activePath, isPiUserTurn, livePath, pathTo, readPiFile, type PiEntry } from './entries.js';

/** pi's name for a session file: `<ISO time, : and . as ->_<id>.jsonl`. */
export function piFileName(now: Date, id: string): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}_${id}.jsonl`;
}

/** An entry id as pi makes them: 8 hex digits. */
export function piEntryId(): string {
  return randomBytes(4).toString('hex');
}

/**
 * A new `<time>_<uuid v7>.jsonl` beside the original (where `pi --session ID` looks for the cwd's sessions): a header
 * naming the original's file in `parentSession` (as pi's `/fork` and `--fork` do), then the active branch's entries
 * before user turn `atTurn`, each line as the original has it. pi resumes at the last entry: the cut's.
 */
export async function forkPi(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
  const path = livePath(group);
  const file = await readPiFile(path);
  if (file.header === null) throw new Error(`${path}: not a pi session (no session header on its first line)`);
  const branch = request.leaf === undefined ? activePath(file.entries) : pathTo(file.entries, entryNamed(file.entries, request.leaf.id, path));
  const turns = branch.filter((entry) => isPiUserTurn(entry.value)).length;
  const atTurn = request.leaf?.whole ? turns + 1 : request.atTurn;
  checkForkTurn(atTurn, turns);
  const kept = branch.slice(0, cutBeforeTurn(branch, (entry) => isPiUserTurn(entry.value), atTurn));
  const now = request.now ?? new Date();
  const id = uuidv7(now.getTime());
  const header = { ...file.headerValue, id, timestamp: now.toISOString(), parentSession: path };
  const lines: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), ...kept.map((entry) => entry.line)];
  const name = request.branchName?.trim();
  if (name) {
    // pi's own name record (`/name`): the fork shows under this name in pi's picker and here.
    const entry = { type: 'session_info', id: piEntryId(), parentId: kept.at(-1)?.id ?? null, timestamp: now.toISOString(), name };
    lines.push(Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8'));
  }
  const target = join(dirname(path), piFileName(now, id));
  await createFileAtomic(target, lines);
  return { agent: 'pi', id, path: target, parentId: file.header.id, keptUserTurns: atTurn - 1 };
}

/** The entry `id` names (whole, or a unique prefix of at least 4 characters). */
function entryNamed(entries: readonly PiEntry[], id: string, path: string): PiEntry {
  const exact = entries.find((entry) => entry.id === id);
  if (exact !== undefined) return exact;
  const matches = id.length >= 4 ? entries.filter((entry) => entry.id.startsWith(id)) : [];
  if (matches.length === 1) return matches[0]!;
  throw new UnsupportedForkError(`${path} holds ${matches.length === 0 ? 'no entry' : `${matches.length} entries`} named ${JSON.stringify(id)}${matches.length === 0 ? ' (the transcript names each branch\'s last entry)' : ': give more of the id'}`);
}

