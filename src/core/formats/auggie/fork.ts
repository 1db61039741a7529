/**
 * A fork of an Auggie session: a new `<uuid>.json` beside the original, the original's object with a new
 * `sessionId`, the chat history entries before the cut turn (each as the original holds it: a fork shares its first
 * exchange's request id with the original, its lineage), and nothing that ties it to the original's task list,
 * cloud agent or name. Auggie records no parent of a fork (its `parentConversationId` marks a sub-agent's session,
 * which `auggie session list` hides): the catalog links the two by their lineage.
 */
import { dirname, join } from 'node:path';
import { checkForkTurn } from '../../errors.js';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import type { JsonObject } from '../../json.js';
import { cutBeforeTurn } from '../../truncate.js';
import { livePath } from '../group-files.js';
import type { ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import { historyOf, isAuggieUserTurn, readAuggieFile, stringOrNull } from './records.js';

/** The fields of a session that are the original's alone: its task list, its cloud agent, its titles, its queue. */
const NOT_INHERITED = ['rootTaskUuid', 'poseidonAgentId', 'isCloudAgent', 'remoteCreatedAt', 'title', 'customTitle', 'queue', 'parentConversationId'];

/** A session object as Auggie writes one: pretty printed with two spaces. */
export function auggieDocumentText(document: JsonObject): string {
  return `${JSON.stringify(document, null, 2)}`;
}

export async function forkAuggie(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
  const path = livePath(group);
  const { document } = await readAuggieFile(path);
  if (document === null) throw new Error(`${path} is not an Auggie session (not one JSON object)`);
  const history = historyOf(document);
  checkForkTurn(request.atTurn, history.filter(isAuggieUserTurn).length);
  const kept = history.slice(0, cutBeforeTurn(history, isAuggieUserTurn, request.atTurn));
  const parentId = stringOrNull(document.sessionId) ?? group.idHint ?? '';
  const id = request.id ?? uuidv4();
  const now = (request.now ?? new Date()).toISOString();
  const fork: JsonObject = { ...document, sessionId: id, created: now, modified: now, chatHistory: kept };
  for (const key of NOT_INHERITED) delete fork[key];
  const branch = request.branchName?.trim();
  if (branch) fork.customTitle = branch;
  const target = join(dirname(path), `${id}.json`);
  await createFileAtomic(target, auggieDocumentText(fork));
  return { agent: 'auggie', id, path: target, parentId, keptUserTurns: request.atTurn - 1 };
}
