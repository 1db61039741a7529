/**
 * A fork of a Droid session as Droid's own `exec --fork` writes one: a new `<uuid>.jsonl` beside the original whose
 * session_start is the original's with the new id, `parent` (the original) and `forkedAtMessageId` (the last message
 * kept), then the original's lines byte for byte up to where the cut turn starts (its hidden context included), and
 * the original's `<id>.settings.json` (model, autonomy) copied beside it.
 */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkForkTurn, errorCode } from '../../errors.js';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import { parseJsonLine } from '../../io/lines.js';
import { readRegularFile, SMALL_FILE_MAX_BYTES } from '../../io/regular.js';
import { isRecord } from '../../json.js';
import { livePath } from '../group-files.js';
import type { ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import { isDroidUserTurn, isHiddenContext, stringOrNull } from './records.js';
import { readDroidFile } from './session.js';

/** `<id>.settings.json` beside `<id>.jsonl`. */
export function settingsPath(sessionPath: string): string {
  return sessionPath.replace(/\.jsonl$/, '.settings.json');
}

export async function forkDroid(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
  const path = livePath(group);
  const file = await readDroidFile(path);
  const start = file.records[0];
  if (start === undefined || start.value.type !== 'session_start') throw new Error(`${path}: not a Droid session (its first line is no session_start)`);
  const turns = file.records.filter((record) => isDroidUserTurn(record.value));
  checkForkTurn(request.atTurn, turns.length);
  // Cut before the turn's prompt and the hidden context Droid wrote just before it.
  let cut = file.records.length;
  const turn = turns[request.atTurn - 1];
  if (turn !== undefined) {
    cut = file.records.indexOf(turn);
    while (cut > 1 && isHiddenContext(file.records[cut - 1]!.value)) cut--;
  }
  const kept = file.records.slice(1, cut);
  const lastMessage = kept.findLast((record) => record.value.type === 'message');
  const parentId = stringOrNull(start.value.id) ?? '';
  const id = uuidv4();
  const header: Record<string, unknown> = { ...start.value, id, parent: parentId };
  if (lastMessage !== undefined && typeof lastMessage.value.id === 'string') header.forkedAtMessageId = lastMessage.value.id;
  else delete header.forkedAtMessageId;
  const branch = request.branchName?.trim();
  if (branch) Object.assign(header, { title: branch, isSessionTitleManuallySet: true });
  const bytes = await readRegularFile(path);
  const end = cut < file.records.length ? file.records[cut]!.offset : bytes.length;
  const body = kept.length === 0 ? Buffer.alloc(0) : bytes.subarray(kept[0]!.offset, end);
  const target = join(dirname(path), `${id}.jsonl`);
  await createFileAtomic(target, [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), ...wholeLines(body)]);
  try {
    await copySettings(path, target);
  } catch (error) {
    // A failed fork writes nothing: the session file goes with its settings.
    await rm(target, { force: true });
    throw error;
  }
  return { agent: 'droid', id, path: target, parentId, keptUserTurns: request.atTurn - 1 };
}

/** The bytes as whole lines: a last line without its newline is ended when it is a whole record, left out when Droid is still writing it. */
function wholeLines(body: Buffer): Buffer[] {
  if (body.length === 0 || body.at(-1) === 0x0a) return [body];
  const last = body.lastIndexOf(0x0a) + 1;
  const partial = body.subarray(last);
  return isRecord(parseJsonLine(partial)) ? [body, Buffer.from('\n')] : [body.subarray(0, last)];
}

/** The original's session settings (its model and autonomy, which a resume takes), when it has them. */
async function copySettings(from: string, to: string): Promise<void> {
  let settings: Buffer;
  try {
    settings = await readRegularFile(settingsPath(from), SMALL_FILE_MAX_BYTES);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  await createFileAtomic(settingsPath(to), settings);
}
