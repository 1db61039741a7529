/** A session's row and transcript from its events and workspace. */
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { SUMMARY_CLIP_LIMITS, unmarkMessages, withPromptLines } from '../../io/clip.js';
import { indexReads } from '../../io/lines.js';
import { type Session, type SessionSummary } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, FoldResume, IndexedSession, ReadSessionOptions, SessionFileGroup } from '../types.js';
import { type Fold, importFold, isPromptLine, newFold, readEvents } from './events.js';
import { eventsPath, readWorkspace, type Workspace, workspacePath } from './files.js';

async function summarize(group: SessionFileGroup, fold: Fold, size: number, mtimeMs: number, workspace: Workspace | null): Promise<SessionSummary> {
  const events = eventsPath(group);
  let totalSize = size;
  let newest = mtimeMs;
  const yaml = workspacePath(group);
  if (yaml !== null) {
    try {
      const info = await stat(yaml);
      totalSize += info.size;
      newest = Math.max(newest, info.mtimeMs);
    } catch {
      // removed meanwhile: the row is the events'
    }
  }
  const id = (fold.sessionId ?? workspace?.id ?? group.idHint ?? basename(dirname(events))).toLowerCase();
  const forkParent = (fold.forkNotes.find(([, child]) => child === id) ?? fold.forkNotes.at(-1))?.[0] ?? null;
  const userNamed = workspace?.user_named === 'true';
  const agentName = workspace?.name?.trim() || null;
  const name = userNamed ? agentName : null;
  const firstPrompt = fold.prompts[0] ?? null;
  const createdAt = isoTimestamp(workspace?.created_at) ?? fold.startTime ?? new Date(newest).toISOString();
  const updated = [fold.lastTime, isoTimestamp(workspace?.updated_at)].filter((t): t is string => t !== null).sort().at(-1) ?? createdAt;
  return {
    id,
    agent: 'copilot',
    path: events,
    paths: group.paths,
    cwd: workspace?.cwd || fold.cwd,
    title: name ?? agentName ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    lastPrompt: fold.prompts.at(-1) ?? null,
    name,
    userTurns: fold.prompts.length,
    userTurnsExact: true,
    prompts: fold.prompts,
    createdAt,
    updatedAt: updated > createdAt ? updated : createdAt,
    forkedFrom: forkParent,
    fork: forkParent === null ? null : { id: forkParent },
    gitBranch: workspace?.branch || fold.branch,
    model: fold.model,
    archived: false,
    usage: fold.usage,
    size: totalSize,
    mtimeMs: newest,
  };
}

/**
 * The row, from one pass over every event (long strings clipped: the row needs openings only); with `resume` (a
 * fold of the same events file saved earlier, which only grew), only the appended events are read.
 */
export async function indexCopilot(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const events = eventsPath(group);
  const before = indexReads.bytes;
  const resumed = resume !== undefined && resume.path === events ? importFold(resume.state) : null;
  const start = resumed === null ? 0 : resume!.offset;
  const read = await readEvents(events, false, withPromptLines(SUMMARY_CLIP_LIMITS, isPromptLine), start, resumed ?? newFold());
  const { fold, stats, size, mtimeMs, fingerprint } = read;
  const saved = size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? { resume: { path: events, offset: read.end, state: read.saved } } : {};
  const listed = fold.sessionId !== null || fold.prompts.length > 0;
  reportSkippedLines(context.report, events, stats, listed);
  if (!listed) return { summary: null, fingerprint, bytesRead: indexReads.bytes - before, ...saved };
  const summary = await summarize(group, fold, size, mtimeMs, await readWorkspace(group));
  return { summary, fingerprint, bytesRead: indexReads.bytes - before, ...saved };
}

export async function readCopilotSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  return (await indexCopilot(group, context)).summary;
}

/** The whole transcript: prompts, answers (with reasoning), tool calls and results, compaction markers. */
export async function readCopilotSession(group: SessionFileGroup, _context?: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
  const events = eventsPath(group);
  const { fold, messages, stats, size, mtimeMs } = await readEvents(events, true, withPromptLines(options.clip, isPromptLine));
  const summary = await summarize(group, fold, size, mtimeMs, await readWorkspace(group));
  return { ...summary, messages: options.clip === undefined ? messages : unmarkMessages(messages), malformedLines: stats.malformed };
}
