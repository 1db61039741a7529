/** A fork: the kept chain's lines read back by offset, each with its `sessionId` rewritten and nothing else touched. */
import { createFileAtomic } from '../../io/atomic.js';
import { uuidv4 } from '../../ids.js';
import { checkForkTurn, ForkRangeError } from '../../errors.js';
import { join, dirname } from 'node:path';
import { topLevelStringSpans } from '../../io/json-bytes.js';
import { openRegular } from '../../io/regular.js';
import type { SessionFileGroup, ForkRequest, ForkResult } from '../types.js';
import { truncateBeforeUserTurn } from '../../truncate.js';
import { type ClaudeNode } from './lines.js';
import { livePath, fileStem } from './summary.js';
import { scanFile } from './scan.js';
import { isIdeContextLine } from './messages.js';
import { claudeProjectFolder } from './discovery.js';

/** The line with every top-level `sessionId` string replaced by `id`; all other bytes untouched. */
export function rewriteSessionId(line: Buffer, id: string): Buffer {
  return rewriteTopLevelString(line, 'sessionId', id);
}

/**
 * A line copied into a fork: its `sessionId` is the fork's; a `requestSessionId` (2.1.330 marks the lines its
 * --fork-session copied with the session they came from) names the session this copy came from. All other
 * bytes untouched.
 */
function rewriteForkedLine(line: Buffer, id: string, parentId: string, cwd: string | undefined): Buffer {
  const copied = rewriteTopLevelString(rewriteSessionId(line, id), 'requestSessionId', parentId);
  return cwd === undefined ? copied : rewriteTopLevelString(copied, 'cwd', cwd);
}

function rewriteTopLevelString(line: Buffer, key: string, value: string): Buffer {
  const spans = topLevelStringSpans(line, key);
  if (spans.length === 0) return line;
  const replacement = Buffer.from(JSON.stringify(value), 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  for (const { start, end } of spans) {
    parts.push(line.subarray(from, start), replacement);
    from = end;
  }
  parts.push(line.subarray(from));
  return Buffer.concat(parts);
}

async function readSpans(path: string, nodes: readonly ClaudeNode[]): Promise<Buffer[]> {
  const handle = await openRegular(path);
  try {
    const out: Buffer[] = [];
    for (const node of nodes) {
      const buffer = Buffer.alloc(node.length);
      let filled = 0;
      while (filled < node.length) {
        const { bytesRead } = await handle.read(buffer, filled, node.length - filled, node.offset + filled);
        if (bytesRead === 0) throw new Error(`${path} changed while forking: line at byte ${node.offset} is gone`);
        filled += bytesRead;
      }
      out.push(buffer);
    }
    return out;
  } finally {
    await handle.close();
  }
}

/**
 * A new `<uuid>.jsonl` in the same project folder holding the active chain before user turn `atTurn`, in file
 * order, each line byte for byte apart from its `sessionId` value; the last kept line is the leaf.
 */
export async function forkClaude(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
  const path = livePath(group);
  const { scan } = await scanFile(path);
  const chain = scan.activeChain();
  const userTurns = chain.filter((node) => node.userTurn).length;
  checkForkTurn(request.atTurn, userTurns);
  const history = truncateBeforeUserTurn(chain, request.atTurn - 1);
  if (history.kind !== 'forked') throw new ForkRangeError(request.atTurn, 2, userTurns);
  // IDE context on a line of its own belongs to the prompt under it: it goes with the turn that was cut.
  const before = [...history.history];
  while (before.length > 1 && isIdeContextLine(before.at(-1)!)) before.pop();
  const kept = before.sort((a, b) => a.offset - b.offset);
  const id = request.id ?? uuidv4();
  const chunks: Buffer[] = [];
  for (const line of await readSpans(path, kept)) chunks.push(rewriteForkedLine(line, id, fileStem(path), request.cwd), Buffer.from('\n'));
  if (request.branchName !== undefined && request.branchName.length > 0) {
    // Claude Code's own /rename line: the fork shows under this name in Claude Code and here.
    chunks.push(Buffer.from(`${JSON.stringify({ type: 'custom-title', customTitle: request.branchName, sessionId: id })}\n`));
  }
  // Claude Code looks for a session in its cwd's project folder: a fork run elsewhere goes into that one's.
  const folder = request.cwd === undefined ? dirname(path) : join(dirname(dirname(path)), claudeProjectFolder(request.cwd));
  const target = join(folder, `${id}.jsonl`);
  await createFileAtomic(target, chunks);
  return { agent: 'claude', id, path: target, parentId: fileStem(path), keptUserTurns: request.atTurn - 1 };
}
