/** A Factory Droid session file: its records folded into a row, read as a transcript. */
import { basename } from 'node:path';
import { foldJsonLines, indexReads, type LineStats } from '../../io/lines.js';
import { isRecord, type JsonObject } from '../../json.js';
import { promptOpening, type Message, type SessionSummary } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { reportSkippedLines } from '../problems.js';
import { livePath } from '../group-files.js';
import type { AdapterContext, IndexedSession, SessionFileGroup } from '../types.js';
import { droidMessages, isDroidUserTurn, modelOf, promptText, startOf, type DroidRecord, type DroidStart } from './records.js';

/** The session file names Droid writes: `<uuid>.jsonl` (its settings are `<uuid>.settings.json` beside it). */
export const SESSION_FILE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$/;

export function droidGroup(root: string, path: string): SessionFileGroup {
  return { agent: 'droid', paths: [path], idHint: basename(path, '.jsonl'), root, archived: false };
}

interface DroidFile {
  readonly records: readonly DroidRecord[];
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
}

/** Every record of a session file, in file order, with its offset (malformed lines counted, a partial last line kept). */
export async function readDroidFile(path: string): Promise<DroidFile> {
  const records: DroidRecord[] = [];
  const { file, stats, takePartial } = await foldJsonLines(path, 0, (value, offset) => {
    const taken = isRecord(value) && typeof value.type === 'string';
    if (taken) records.push({ value, offset });
    return taken;
  });
  takePartial();
  return { records, stats, size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
}

/** What a row needs of a file, folded line by line: the session_start, each prompt's opening, the model, the times. */
class DroidScan {
  start: DroidStart | null = null;
  readonly prompts: string[] = [];
  model: string | null = null;
  firstTimestamp: string | null = null;
  lastTimestamp: string | null = null;

  add(value: unknown): boolean {
    if (!isRecord(value) || typeof value.type !== 'string') return false;
    if (this.start === null && value.type === 'session_start') {
      this.start = startOf(value);
      return true;
    }
    const timestamp = isoTimestamp(value.timestamp);
    if (timestamp !== null) {
      this.firstTimestamp ??= timestamp;
      if (this.lastTimestamp === null || timestamp > this.lastTimestamp) this.lastTimestamp = timestamp;
    }
    if (isDroidUserTurn(value)) this.prompts.push(promptOpening(promptText(value).trim() === '' ? '[image]' : promptText(value)));
    this.model = modelOf(value) ?? this.model;
    return true;
  }
}

function summarize(group: SessionFileGroup, scan: DroidScan, size: number, mtimeMs: number): SessionSummary {
  const path = livePath(group);
  const start = scan.start;
  const id = start?.id ?? basename(path, '.jsonl');
  const prompts = scan.prompts;
  const firstPrompt = prompts[0] ?? null;
  const parent = start?.parent !== null && start?.parent !== undefined && start.parent !== id ? start.parent : null;
  // Droid titles a session by its first prompt (exec) or a generated title; a title set with /rename is a name.
  const name = start?.manualTitle === true ? start.title : null;
  const mtime = new Date(mtimeMs).toISOString();
  return {
    id,
    agent: 'droid',
    path,
    paths: [path],
    cwd: start?.cwd ?? null,
    title: start?.title ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: scan.firstTimestamp ?? mtime,
    updatedAt: scan.lastTimestamp ?? mtime,
    forkedFrom: parent,
    fork: parent === null ? null : { id: parent },
    gitBranch: null,
    model: scan.model,
    archived: group.archived,
    usage: null,
    size,
    mtimeMs,
  };
}

/**
 * The row from every line of the file. No fold is saved: Droid rewrites its first line in place (a /rename, a new
 * cwd), so a file that grew may not have only been appended to.
 */
export async function indexDroid(group: SessionFileGroup, context: AdapterContext): Promise<IndexedSession> {
  const path = livePath(group);
  const scan = new DroidScan();
  const before = indexReads.bytes;
  const { file, stats, takePartial } = await foldJsonLines(path, 0, (value) => scan.add(value));
  takePartial();
  const bytesRead = indexReads.bytes - before;
  const conversation = scan.start !== null && scan.prompts.length > 0;
  reportSkippedLines(context.report, path, stats, conversation);
  if (!conversation) return { summary: null, fingerprint: file.fingerprint, bytesRead };
  return { summary: summarize(group, scan, file.size, file.mtimeMs), fingerprint: file.fingerprint, bytesRead };
}

/** The row and the transcript of a file read whole. */
export async function readDroidSession(group: SessionFileGroup): Promise<{ summary: SessionSummary; messages: Message[]; malformedLines: number }> {
  const file = await readDroidFile(livePath(group));
  const scan = new DroidScan();
  const messages: Message[] = [];
  for (const record of file.records) {
    scan.add(record.value);
    messages.push(...droidMessages(record.value as JsonObject));
  }
  return { summary: summarize(group, scan, file.size, file.mtimeMs), messages, malformedLines: file.stats.malformed };
}
