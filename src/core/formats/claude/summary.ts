/** A session's row from a scan: the live file, the `/rename` sidecar, titles, prompts, usage. */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readRegularFile } from '../../io/regular.js';
import { takeClipMarks } from '../../io/clip.js';
import { promptOpening, type SessionSummary } from '../../model.js';
import { sidecarTitle } from './rules.js';
import type { SessionFileGroup } from '../types.js';
import { type ClaudeNode } from './lines.js';
import { userTurnText } from './messages.js';
import { ClaudeScan } from './scan.js';
import { livePath, fileStem } from '../group-files.js';
export { livePath, fileStem };



/** The `/rename` sidecar Claude Code 2.1.330 writes beside a session file, when there is one. */
interface TitleSidecar {
  readonly title: string;
  readonly mtimeMs: number;
}

export async function readTitleSidecar(path: string): Promise<TitleSidecar | null> {
  const sidecar = join(dirname(path), fileStem(path), 'custom-title.json');
  try {
    // Synchronous and without an exception when it is missing (almost always): a failed promise stat builds an
    // Error with its stack, ≈ 0.1 ms per session on a cold index.
    const info = statSync(sidecar, { throwIfNoEntry: false });
    if (info === undefined || !info.isFile() || info.size > 64 * 1024) return null;
    const title = sidecarTitle((await readRegularFile(sidecar)).toString('utf8'));
    return title === null ? null : { title, mtimeMs: info.mtimeMs };
  } catch {
    return null;
  }
}

/** The newest of the sidecar's title and the file's last `custom-title` line. */
function customTitleOf(scan: ClaudeScan, sidecar: TitleSidecar | null): string | null {
  if (sidecar === null) return scan.customTitle;
  if (scan.customTitle === null) return sidecar.title;
  const inFileAt = scan.customTitleAt === null ? Number.NEGATIVE_INFINITY : Date.parse(scan.customTitleAt);
  return sidecar.mtimeMs >= inFileAt ? sidecar.title : scan.customTitle;
}

interface SummaryInput {
  readonly group: SessionFileGroup;
  readonly sidecar: TitleSidecar | null;
  readonly scan: ClaudeScan;
  readonly chain: readonly ClaudeNode[];
  readonly size: number;
  readonly mtimeMs: number;
}

export function summarize({ group, sidecar, scan, chain, size, mtimeMs }: SummaryInput): SessionSummary {
  const path = livePath(group);
  const prompts: string[] = [];
  for (const node of chain) {
    if (node.anchorTurns !== undefined) prompts.push(...scan.basePrompts.slice(0, node.anchorTurns));
    if (!node.userTurn) continue;
    const prompt = node.prompt ?? (node.value === null ? undefined : promptOpening(userTurnText(node.value)));
    if (prompt !== undefined) prompts.push(prompt);
  }
  const firstPrompt = prompts[0] || null;
  const name = customTitleOf(scan, sidecar) ?? scan.agentName;
  // The id `claude --resume` looks up is the file's name; copied lines may carry another session's id.
  const id = fileStem(path);
  const parent = scan.requestSessionId !== null && scan.requestSessionId !== id ? scan.requestSessionId : null;
  const mtime = new Date(mtimeMs).toISOString();
  const lineage = chain[0]?.anchorTurns !== undefined ? (scan.baseRoot ?? undefined) : chain[0]?.uuid;
  return {
    id,
    agent: 'claude',
    path,
    paths: [path],
    cwd: scan.cwd,
    title: name ?? scan.agentTitle() ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    // The chain decides: Claude Code's own `last-prompt` record is wrong in --fork-session files (it names the first prompt).
    lastPrompt: prompts.at(-1) ?? (scan.lastPrompt === null ? null : promptOpening(takeClipMarks(scan.lastPrompt).text)),
    name,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: scan.firstTimestamp ?? mtime,
    updatedAt: scan.lastTimestamp ?? mtime,
    forkedFrom: parent,
    fork: parent === null ? null : { id: parent },
    ...(lineage === undefined ? {} : { lineage }),
    gitBranch: scan.gitBranch,
    model: scan.model,
    archived: group.archived,
    usage: scan.totalUsage(),
    size,
    mtimeMs,
  };
}
