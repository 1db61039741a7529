/** A fork: the kept records copied byte for byte under a new `session_meta`. */
import { dirname, join } from 'node:path';
import { checkForkTurn, errorCode } from '../../errors.js';
import { createFileAtomic } from '../../io/atomic.js';
import { parseSpan } from '../../io/json-bytes.js';
import { type JsonLine } from '../../io/lines.js';
import { truncateBeforeUserTurn } from '../../truncate.js';
import type { AdapterContext, ForkRequest, ForkResult, SessionFileGroup } from '../types.js';
import { clawMessageJson } from './append.js';
import { layoutTop, type LegacyLayout } from './legacy.js';
import { readLiveFile } from './read.js';
import { ClawDoc, normalizeMessage, recordKind } from './records.js';
import { fileStem, livePath, objectOf, sortKeys } from './values.js';

// ---------------------------------------------------------------------------------------------------------
// Fork

let sessionCounter = 0;

/** A fresh id the way claw's generate_session_id makes them: `session-<ms>-<counter>`. */
export function nextSessionId(nowMs: number): string {
  return `session-${nowMs}-${sessionCounter++}`;
}

/** A record a fork may keep, marked for truncateBeforeUserTurn. */
interface KeptLine {
  readonly userTurn: boolean;
  readonly promptHistory: boolean;
  readonly line: Buffer;
}

/**
 * Write a new JSONL session in the source's folder holding user turns 1..atTurn-1 and everything answering them:
 * a fresh session_meta with fork metadata, then the kept compaction / prompt_history / message lines byte for byte.
 */
export async function forkClaw(group: SessionFileGroup, request: ForkRequest, _context?: AdapterContext): Promise<ForkResult> {
  const live = livePath(group);
  const { doc, records, legacy } = await readLiveFile(live, true);
  const userTurns = doc.messages.filter((message) => message.userTurn).length;
  checkForkTurn(request.atTurn, userTurns);

  const lines: KeptLine[] = [...(legacy ? keptLegacyLines(legacy.buf, legacy.layout) : []), ...keptJsonlLines(records)];
  const history = truncateBeforeUserTurn(lines, request.atTurn - 1);
  const kept = history.kind === 'forked' ? history.history.slice() : [];
  // claw records a prompt_history entry just before the prompt's message: it goes with the dropped turn.
  while (kept.length > 0 && kept[kept.length - 1]!.promptHistory) kept.pop();
  const parentId = doc.sessionId ?? fileStem(live);
  const nowMs = (request.now ?? new Date()).getTime();
  const branchName = request.branchName?.trim() || null;

  for (;;) {
    const id = nextSessionId(nowMs);
    const path = join(dirname(live), `${id}.jsonl`);
    const meta = forkMetaLine(doc, id, parentId, branchName, nowMs);
    const chunks: Buffer[] = [Buffer.from(`${meta}\n`, 'utf8')];
    for (const line of kept) chunks.push(line.line, NEWLINE);
    try {
      await createFileAtomic(path, chunks);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') continue; // another session took this name: take the next counter
      throw error;
    }
    return { agent: 'claw', id, path, parentId, keptUserTurns: request.atTurn - 1 };
  }
}

const NEWLINE = Buffer.from('\n');

function keptJsonlLines(records: readonly JsonLine[]): KeptLine[] {
  const lines: KeptLine[] = [];
  for (const record of records) {
    const kind = recordKind(record.value);
    // The fork writes its own session_meta; unknown record types would make claw's loader refuse the file.
    if (kind !== 'message' && kind !== 'compaction' && kind !== 'prompt_history') continue;
    const message = kind === 'message' ? normalizeMessage(record.value.message) : null;
    if (kind === 'message' && message === null) continue;
    lines.push({ userTurn: message?.userTurn ?? false, promptHistory: kind === 'prompt_history', line: record.bytes });
  }
  return lines;
}

/** Legacy messages become JSONL message records around their original bytes (re-serialised only if multi-line). */
function keptLegacyLines(buf: Buffer, layout: LegacyLayout): KeptLine[] {
  const lines: KeptLine[] = [];
  const top = layoutTop(buf, layout);
  const compaction = objectOf(top.compaction);
  if (compaction) {
    const record = { count: compaction.count, removed_message_count: compaction.removed_message_count, summary: compaction.summary, type: 'compaction' };
    lines.push({ userTurn: false, promptHistory: false, line: Buffer.from(JSON.stringify(record), 'utf8') });
  }
  for (const span of layout.messages) {
    const raw = buf.subarray(span.start, span.end);
    const value = parseSpan(buf, span.start, span.end);
    const message = normalizeMessage(value);
    if (message === null) continue;
    let body: Buffer;
    if (typeof value === 'string') {
      body = Buffer.from(JSON.stringify(clawMessageJson({ role: 'user', blocks: message.blocks })), 'utf8');
    } else if (raw.includes(0x0a) || raw.includes(0x0d)) {
      body = Buffer.from(JSON.stringify(sortKeys(value)), 'utf8');
    } else {
      body = raw;
    }
    lines.push({ userTurn: message.userTurn, promptHistory: false, line: Buffer.concat([MESSAGE_PREFIX, body, MESSAGE_SUFFIX]) });
  }
  return lines;
}

const MESSAGE_PREFIX = Buffer.from('{"message":');
const MESSAGE_SUFFIX = Buffer.from(',"type":"message"}');

/** claw's session_meta with its keys in claw's (alphabetical) order. */
function forkMetaLine(doc: ClawDoc, id: string, parentId: string, branchName: string | null, nowMs: number): string {
  return JSON.stringify({
    created_at_ms: nowMs,
    fork: branchName === null ? { parent_session_id: parentId } : { branch_name: branchName, parent_session_id: parentId },
    ...(doc.model !== null ? { model: doc.model } : {}),
    session_id: id,
    type: 'session_meta',
    updated_at_ms: nowMs,
    version: doc.version ?? 1,
    ...(doc.workspaceRoot !== null ? { workspace_root: doc.workspaceRoot } : {}),
  });
}
