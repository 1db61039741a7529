/** A pi session's row: folded from every line, resumable from where a saved fold stopped (pi only appends). */
import { basename } from 'node:path';
import { foldJsonLines, indexReads } from '../../io/lines.js';
import { isRecord, type JsonObject } from '../../json.js';
import { addUsage, promptOpening, type SessionSummary, type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, FoldResume, IndexedSession, SessionFileGroup } from '../types.js';
import { activePath, EntryIds, handoffSourceOf, headerOf, idFromFileName, isPiUserTurn, livePath, messageOf, userText, type PiHeader } from './entries.js';

/** What the row needs of one entry: the index keeps this, never the content. */
interface PiNode {
  readonly id: string;
  readonly parentId: string | null;
  /** The prompt's opening when the entry is a user turn, else null. */
  readonly prompt: string | null;
  readonly model: string | null;
  readonly usage: Usage | null;
}

/** An assistant message's usage (pi records input without the cached part, as the providers count it). */
function usageOf(message: JsonObject): Usage | null {
  const usage = message.usage;
  if (!isRecord(usage)) return null;
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return { input: number(usage.input), output: number(usage.output), cacheRead: number(usage.cacheRead), cacheWrite: number(usage.cacheWrite) };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * The row's fold over a session file, in file order: the header, one node per entry (its parent, the prompt's
 * opening for a turn, an answer's model and usage), the newest `session_info` name (pi's title; an empty one clears
 * it), a hand-off note's source, the first and last times. Plain JSON: the index saves it with the offset it
 * stopped at, and a file that only grew is folded on from there.
 */
export class PiScan {
  header: PiHeader | null = null;
  /** The first line was read: a file whose first line is not a header is not pi's. */
  started = false;
  name: string | null = null;
  handoffSource: string | null = null;
  firstTimestamp: string | null = null;
  lastTimestamp: string | null = null;
  readonly ids = new EntryIds();
  readonly nodes: PiNode[] = [];

  add(value: unknown): boolean {
    if (!isRecord(value) || typeof value.type !== 'string') return false;
    if (!this.started) {
      this.started = true;
      this.header = headerOf(value);
    }
    const timestamp = isoTimestamp(value.timestamp);
    if (timestamp !== null) {
      this.firstTimestamp ??= timestamp;
      if (this.lastTimestamp === null || timestamp > this.lastTimestamp) this.lastTimestamp = timestamp;
    }
    const taken = this.ids.take(value);
    if (taken === null) return true;
    if (value.type === 'session_info') this.name = typeof value.name === 'string' && value.name.trim().length > 0 ? value.name.trim() : null;
    this.handoffSource ??= handoffSourceOf(value);
    const message = messageOf(value);
    const assistant = message !== null && message.role === 'assistant';
    const model = assistant ? text(message.model) : value.type === 'model_change' ? text(value.modelId) : null;
    this.nodes.push({
      ...taken,
      prompt: isPiUserTurn(value) ? promptOpening(userText(message!)) || '[image]' : null,
      model,
      usage: assistant ? usageOf(message) : null,
    });
    return true;
  }

  exportState(): JsonObject {
    const { header, started, name, handoffSource, firstTimestamp, lastTimestamp, nodes } = this;
    return { header, started, name, handoffSource, firstTimestamp, lastTimestamp, count: this.ids.count, previous: this.ids.previous, nodes };
  }

  static import(state: unknown): PiScan | null {
    if (!isRecord(state) || !Array.isArray(state.nodes) || typeof state.started !== 'boolean' || typeof state.count !== 'number') return null;
    const strings = [state.name, state.handoffSource, state.firstTimestamp, state.lastTimestamp, state.previous];
    if (!strings.every((value) => value === null || typeof value === 'string')) return null;
    const header = state.header === null ? null : headerOf({ type: 'session', ...(isRecord(state.header) ? state.header : {}) });
    if (state.header !== null && header === null) return null;
    if (!state.nodes.every(isNode)) return null;
    const scan = new PiScan();
    Object.assign(scan, { header, started: state.started, name: state.name, handoffSource: state.handoffSource, firstTimestamp: state.firstTimestamp, lastTimestamp: state.lastTimestamp });
    scan.ids.count = state.count;
    scan.ids.previous = state.previous as string | null;
    scan.nodes.push(...(state.nodes as PiNode[]));
    return scan;
  }
}

function isNode(value: unknown): value is PiNode {
  if (!isRecord(value) || typeof value.id !== 'string') return false;
  const strings = [value.parentId, value.prompt, value.model].every((field) => field === null || typeof field === 'string');
  const usage = value.usage === null || (isRecord(value.usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof (value.usage as JsonObject)[key] === 'number'));
  return strings && usage;
}

/** The parent a fork's header names: the id in its `parentSession` file name (pi names files `<time>_<id>.jsonl`). */
function parentOf(header: PiHeader | null): string | null {
  if (header?.parentSession == null) return null;
  return idFromFileName(basename(header.parentSession));
}

export function summarize(group: SessionFileGroup, scan: PiScan, size: number, mtimeMs: number): SessionSummary {
  const path = livePath(group);
  const id = scan.header?.id ?? idFromFileName(path) ?? basename(path);
  const prompts: string[] = [];
  let model: string | null = null;
  let usage: Usage | null = null;
  for (const node of activePath(scan.nodes)) {
    if (node.prompt !== null) prompts.push(node.prompt);
    model = node.model ?? model;
    usage = addUsage(usage, node.usage);
  }
  const forked = parentOf(scan.header) ?? scan.handoffSource;
  const parent = forked !== null && forked !== id ? forked : null;
  const mtime = new Date(mtimeMs).toISOString();
  const firstPrompt = prompts[0] ?? null;
  return {
    id,
    agent: 'pi',
    path,
    paths: [path],
    cwd: scan.header?.cwd ?? null,
    title: scan.name ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name: scan.name,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: isoTimestamp(scan.header?.timestamp) ?? scan.firstTimestamp ?? mtime,
    updatedAt: scan.lastTimestamp ?? mtime,
    forkedFrom: parent,
    fork: parent === null ? null : { id: parent },
    gitBranch: null,
    model,
    archived: false,
    usage,
    size,
    mtimeMs,
  };
}

/**
 * The row from every line of the file, or from a saved fold plus the lines appended since. Null for a file that is
 * not a pi session (no header first) or whose active branch holds no prompt.
 */
export async function indexPi(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const path = livePath(group);
  const resumed = resume !== undefined && resume.path === path ? PiScan.import(resume.state) : null;
  const scan = resumed ?? new PiScan();
  const before = indexReads.bytes;
  const { file, stats, takePartial } = await foldJsonLines(path, resumed === null ? 0 : resume!.offset, (value) => scan.add(value));
  const state = file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? scan.exportState() : undefined;
  takePartial();
  const bytesRead = indexReads.bytes - before;
  const saved = state === undefined ? {} : { resume: { path, offset: file.end, state } };
  const conversation = scan.header !== null && activePath(scan.nodes).some((node) => node.prompt !== null);
  reportSkippedLines(context.report, path, stats, conversation);
  if (!conversation) return { summary: null, fingerprint: file.fingerprint, bytesRead, ...saved };
  return { summary: summarize(group, scan, file.size, file.mtimeMs), fingerprint: file.fingerprint, bytesRead, ...saved };
}
