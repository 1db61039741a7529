/** A fork: a new session folder holding the kept events under a new session.start, and its workspace.yaml. */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkForkTurn } from '../../errors.js';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic, firstMissingFolder, removeEmptyFolders } from '../../io/atomic.js';
import { jsonObjects, newLineStats, readLines } from '../../io/lines.js';
import { promptOpening } from '../../model.js';
import { truncateBeforeUserTurn } from '../../truncate.js';
import type { AdapterContext, ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import { isRecord, type JsonObject } from '../../json.js';
import { isTypedPrompt, typeOf } from './events.js';
import { EVENTS, eventsPath, readWorkspace, SESSION_STATE, WORKSPACE, yamlValue } from './files.js';

// ---------------------------------------------------------------------------------------------------------
// Fork

interface KeptEvent {
  readonly userTurn: boolean;
  readonly bytes: Buffer;
  readonly id: string | null;
}

/**
 * A new session folder `<root>/session-state/<new uuid>/` holding user turns 1..atTurn-1: Copilot's own fork
 * layout (a new session.start with the new id, the parent's events byte for byte up to the cut, a `session.info`
 * fork note naming the parent) and a workspace.yaml. The parent's folder is not touched.
 */
export async function forkCopilot(group: SessionFileGroup, request: ForkRequest, _context?: AdapterContext): Promise<ForkResult> {
  const events = eventsPath(group);
  const workspace = await readWorkspace(group);
  const stats = newLineStats();
  const kept: KeptEvent[] = [];
  let start: JsonObject | null = null;
  let parentId: string | null = null;
  let userTurns = 0;
  for await (const line of readLines(events)) {
    if (!line.terminated) continue; // being written: not part of the conversation yet
    const opening = typeOf(line.bytes);
    for (const object of jsonObjects([line], stats)) {
      const type = opening ?? (typeof object.value.type === 'string' ? object.value.type : null);
      if (type === 'session.start' && start === null) {
        start = object.value;
        const data = isRecord(start.data) ? start.data : {};
        parentId = typeof data.sessionId === 'string' ? data.sessionId.toLowerCase() : null;
        continue;
      }
      const userTurn = type === 'user.message' && isRecord(object.value.data) && isTypedPrompt(object.value.data);
      if (userTurn) userTurns++;
      kept.push({ userTurn, bytes: Buffer.from(line.bytes), id: typeof object.value.id === 'string' ? object.value.id : null });
    }
  }
  if (start === null || parentId === null) throw new Error(`${events}: no session.start event, so it cannot be forked`);
  checkForkTurn(request.atTurn, userTurns);
  const history = truncateBeforeUserTurn(kept, request.atTurn - 1);
  const keep = history.kind === 'forked' ? history.history : [];

  const now = (request.now ?? new Date()).toISOString();
  const id = uuidv4();
  const state = dirname(dirname(events));
  const folder = join(state, id);
  const parentName = workspace?.name?.trim() || promptOpening(firstPromptOf(kept) ?? '', 80) || parentId;
  const branchName = request.branchName?.trim() || null;
  const name = branchName ?? `${parentName} (fork)`;

  const startData = isRecord(start.data) ? { ...start.data } : {};
  startData.sessionId = id;
  startData.startTime = now;
  delete startData.remoteSteerable;
  const header = { ...start, data: startData, timestamp: now };
  const lastId = keep.at(-1)?.id ?? (typeof start.id === 'string' ? start.id : null);
  const note = {
    type: 'session.info',
    data: { infoType: 'fork', message: `Forked from ${JSON.stringify(parentName)} (${parentId}) as ${JSON.stringify(name)} (${id}).` },
    id: uuidv4(),
    timestamp: now,
    parentId: lastId,
  };
  const chunks: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8')];
  for (const event of keep) chunks.push(event.bytes, NEWLINE);
  chunks.push(Buffer.from(`${JSON.stringify(note)}\n`, 'utf8'));

  const cwd = workspace?.cwd || cwdOf(start);
  const path = await writeCopilotSession(folder, chunks, { id, cwd, name, userNamed: branchName !== null, clientName: workspace?.client_name ?? null, createdAt: now });
  return { agent: 'copilot', id, path, parentId, keptUserTurns: request.atTurn - 1 };
}

/** The folder of session `id` under a Copilot home. */
export function copilotSessionFolder(root: string, id: string): string {
  return join(root, SESSION_STATE, id);
}

export interface CopilotWorkspace {
  readonly id: string;
  readonly cwd: string | null;
  /** The session's name (null: none, Copilot then names it after its first prompt). */
  readonly name: string | null;
  /** A name the user chose (`user_named: true`), not one Copilot made. */
  readonly userNamed?: boolean;
  readonly clientName?: string | null;
  readonly createdAt: string;
}

/**
 * Write a new session folder: `events.jsonl` (buffers as they are, or records one per line) and `workspace.yaml`.
 * The folder must not exist (a new id is never someone else's session); nothing is left behind on failure.
 */
export async function writeCopilotSession(folder: string, events: readonly Buffer[] | readonly Record<string, unknown>[], workspace: CopilotWorkspace): Promise<string> {
  const chunks = events.map((event) => (Buffer.isBuffer(event) ? event : Buffer.from(`${JSON.stringify(event)}\n`, 'utf8')));
  const yaml = [
    `id: ${workspace.id}`,
    ...(workspace.cwd ? [`cwd: ${yamlValue(workspace.cwd)}`] : []),
    ...(workspace.clientName ? [`client_name: ${yamlValue(workspace.clientName)}`] : []),
    ...(workspace.name !== null ? [`name: ${yamlValue(workspace.name)}`] : []),
    `user_named: ${workspace.userNamed === true}`,
    'summary_count: 0',
    'fork_count: 0',
    `created_at: ${workspace.createdAt}`,
    `updated_at: ${workspace.createdAt}`,
    '',
  ].join('\n');
  const madeFrom = await firstMissingFolder(dirname(folder));
  await mkdir(dirname(folder), { recursive: true, mode: 0o700 });
  // mkdir without `recursive` fails when the folder exists.
  await mkdir(folder, { mode: 0o700 });
  try {
    await createFileAtomic(join(folder, EVENTS), chunks);
    await createFileAtomic(join(folder, WORKSPACE), yaml);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    // The session-state folder (and those above) this write made go too, if still empty.
    if (madeFrom !== undefined) await removeEmptyFolders(dirname(folder), madeFrom);
    throw error;
  }
  return join(folder, EVENTS);
}

const NEWLINE = Buffer.from('\n');

function firstPromptOf(kept: readonly KeptEvent[]): string | null {
  for (const event of kept) {
    if (!event.userTurn) continue;
    try {
      const data = (JSON.parse(event.bytes.toString('utf8')) as { data?: { content?: unknown } }).data;
      if (typeof data?.content === 'string') return data.content;
    } catch {
      return null;
    }
  }
  return null;
}

function cwdOf(start: JsonObject): string | null {
  const data = isRecord(start.data) ? start.data : {};
  return isRecord(data.context) && typeof data.context.cwd === 'string' ? data.context.cwd : null;
}
