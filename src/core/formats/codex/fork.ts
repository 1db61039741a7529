import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UnsupportedForkError, checkForkTurn, describeError, errorCode } from '../../errors.js';
import { uuidv7 } from '../../ids.js';
import { WriteCheckError, appendLines, checkAppendable, createFileAtomic } from '../../io/atomic.js';
import { newLineStats } from '../../io/lines.js';
import { truncateBeforeUserTurn } from '../../truncate.js';
import type { AdapterContext, ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import { collect } from './collect.js';
import { digest } from './digest.js';
import { isTypeScriptRollout } from './discovery.js';
import { type CodexLine, type Header, isUserPromptItem } from './lines.js';
import { isRecord } from '../../json.js';

// Fork

/** Lines that open a turn before its user message: a fork cut moves back over them. */
function isTurnPreamble(line: CodexLine): boolean {
  switch (line.kind) {
    case 'state':
    case 'turn_context':
    case 'world_state':
      return true;
    case 'event':
      return line.type === 'task_started' || line.type === 'turn_started' || line.type === 'thread_settings_applied';
    case 'item':
      if (line.type !== 'message' || line.userTurn) return false;
      return line.payload.role === 'developer' || line.payload.role === 'system' || (line.payload.role === 'user' && !isUserPromptItem(line));
    default:
      return false;
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl` in local time, as Codex names them. */
export function codexRolloutPath(root: string, id: string, now: Date): string {
  const y = pad(now.getFullYear(), 4);
  const m = pad(now.getMonth() + 1);
  const d = pad(now.getDate());
  const stamp = `${y}-${m}-${d}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return join(root, 'sessions', y, m, d, `rollout-${stamp}-${id}.jsonl`);
}

export async function forkCodex(group: SessionFileGroup, request: ForkRequest, context: AdapterContext): Promise<ForkResult> {
  const typescript = group.paths.find(isTypeScriptRollout);
  if (typescript !== undefined) {
    throw new UnsupportedForkError(
      `${typescript}: a rollout of the TypeScript Codex CLI (one JSON object, before the Rust rewrite) cannot be forked: no Codex release that reads it can resume it`,
    );
  }
  const stats = newLineStats();
  const collected = await collect(group, context, 'full', stats, undefined, new Set());
  const d = digest(collected.lines, collected.id);
  checkForkTurn(request.atTurn, d.turns.length);
  const header = collected.header;
  const sourceId = collected.id;
  if (!header || sourceId === null) throw new Error(`${group.paths[0] ?? 'session'}: no session_meta line, cannot fork`);

  const history = truncateBeforeUserTurn(collected.lines, request.atTurn - 1);
  let cut = history.kind === 'forked' ? history.history.length : 0;
  // Cut before the turn's context (task_started, turn_context, injected messages), not just before its prompt.
  while (cut > 0 && isTurnPreamble(collected.lines[cut - 1]!)) cut--;

  const now = request.now ?? new Date();
  const id = request.id ?? uuidv7(now.getTime());
  const path = codexRolloutPath(group.root, id, now);
  const name = request.branchName?.trim();
  // The name goes in session_index.jsonl: check it can be written before the fork is, so a failure writes nothing.
  if (name) await checkAppendable(codexIndexPath(group.root), { mayCreate: true });
  const chunks: Buffer[] = [Buffer.from(`${JSON.stringify(forkHeader(header, sourceId, id, now, collected.rootHeaderOrdinal, request.cwd))}\n`, 'utf8')];
  const newline = Buffer.from('\n');
  for (const line of collected.lines.slice(0, cut)) chunks.push(request.cwd === undefined ? line.bytes : withCwd(line, request.cwd), newline);
  await createFileAtomic(path, chunks);
  if (name) {
    try {
      await nameCodexThread(group.root, id, name, now);
    } catch (error) {
      await unlink(path).catch(() => undefined); // a fork without its name is not what was asked for
      throw error instanceof WriteCheckError ? error : new WriteCheckError(codexIndexPath(group.root), describeError(error));
    }
  }
  return { agent: 'codex', id, path, parentId: sourceId, keptUserTurns: request.atTurn - 1 };
}

/** Name a thread the way `codex` does: one more `{id, thread_name, updated_at}` line in session_index.jsonl. */
export function codexIndexPath(root: string): string {
  return join(root, 'session_index.jsonl');
}

export async function nameCodexThread(root: string, id: string, name: string, now: Date): Promise<void> {
  const index = codexIndexPath(root);
  const line = JSON.stringify({ id, thread_name: name, updated_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z') });
  try {
    await appendLines(index, [line]);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    await createFileAtomic(index, `${line}\n`).catch(async (raced: unknown) => {
      if (errorCode(raced) !== 'EEXIST') throw raced;
      await appendLines(index, [line]);
    });
  }
}

/** The source's header with the new id, the fork parent, and no pointer into another file (history is inline). */
function forkHeader(header: Header, sourceId: string, id: string, now: Date, rootOrdinal: number | undefined, cwd: string | undefined): Record<string, unknown> {
  const value = JSON.parse(header.line.bytes.toString('utf8')) as Record<string, unknown>;
  const at = now.toISOString();
  if (isRecord(value.payload)) {
    const payload = value.payload;
    if (cwd !== undefined) payload.cwd = cwd;
    payload.id = id;
    if ('session_id' in payload) payload.session_id = id;
    payload.forked_from_id = sourceId;
    delete payload.history_base;
    delete payload.forked_from_ordinal_exclusive;
    payload.timestamp = at;
    value.timestamp = at;
    if (typeof value.ordinal === 'number' && rootOrdinal !== undefined) value.ordinal = rootOrdinal;
  } else {
    value.id = id;
    value.forked_from_id = sourceId;
    value.timestamp = at;
  }
  return value;
}

/** A turn_context line run in `cwd` (a fork with the code runs in its worktree); other lines as they are. */
function withCwd(line: CodexLine, cwd: string): Buffer {
  if (line.kind !== 'turn_context' || typeof line.payload.cwd !== 'string') return line.bytes;
  const value = JSON.parse(line.bytes.toString('utf8')) as Record<string, unknown>;
  if (isRecord(value.payload)) value.payload.cwd = cwd;
  return Buffer.from(JSON.stringify(value), 'utf8');
}
