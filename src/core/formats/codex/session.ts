import { unmarkMessages, withPromptLines } from '../../io/clip.js';
import { closeSync, readSync } from 'node:fs';
import { openRegularSync } from '../../io/regular.js';
import { foldLines, indexReads, newLineStats, readLines } from '../../io/lines.js';
import type { Message, Session, SessionSummary, Usage } from '../../model.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, FoldResume, IndexedSession, MessageStream, ReadSessionOptions, SessionFileGroup } from '../types.js';
import type { SubagentSource } from './rules.js';
import { type Collected, type OnStart, collect, distinctFiles, parseLines } from './collect.js';
import { CodexDigest, type Digest, digest, turnOpening } from './digest.js';
import { isTypeScriptRollout } from './discovery.js';
import { isoOrUndefined, timeOf } from './fields.js';
import { type CodexLine, type Header, headerOf } from './lines.js';
import { isRecord } from '../../json.js';

// Summary and session

/** What a row needs of a conversation's lines besides the digest: its header, replayed ids, first time, size. */
interface RowFacts {
  readonly header: { readonly timestamp: string | undefined; readonly lineTimestamp: string | undefined; readonly cwd: string | null; readonly forkedFromId: string | null; readonly gitBranch: string | null; readonly subagent?: SubagentSource | null } | null;
  readonly replayedIds: readonly string[];
  /** The first timestamp of a line other than the header. */
  readonly firstTimestamp: string | undefined;
  readonly size: number;
  readonly mtimeMs: number;
}

function headerFacts(header: Header | null): RowFacts['header'] {
  return header === null ? null : { timestamp: header.timestamp, lineTimestamp: header.line.timestamp, cwd: header.cwd, forkedFromId: header.forkedFromId, gitBranch: header.gitBranch, subagent: header.subagent };
}

function factsOf(c: Collected): RowFacts {
  return { header: headerFacts(c.header), replayedIds: c.replayedIds, firstTimestamp: c.lines.find((l) => l.timestamp)?.timestamp, size: c.size, mtimeMs: c.mtimeMs };
}

function buildSummary(id: string, group: SessionFileGroup, context: AdapterContext, c: RowFacts, d: Digest): SessionSummary {
  const prompts = d.turns.flatMap((turn) => {
    const opening = turnOpening(turn);
    return opening === null ? [] : [opening];
  });
  const firstPrompt = prompts[0] ?? null;
  const lastPrompt = prompts[prompts.length - 1] ?? null;
  const name = context.names(group.root).get(id) ?? d.threadName;
  const forkedFrom = c.header?.forkedFromId ?? c.replayedIds[0] ?? null;
  const createdAt = isoOrUndefined(c.header?.timestamp) ?? isoOrUndefined(c.firstTimestamp);
  // The newest time the group's own lines record (legacy files only date their header); else the file time.
  const times = [d.newestOwn, timeOf(c.header?.lineTimestamp), timeOf(c.header?.timestamp)].filter(
    (t): t is number => t !== null && t !== undefined,
  );
  const updatedAt = new Date(times.length > 0 ? Math.max(...times) : c.mtimeMs).toISOString();
  return {
    id,
    agent: 'codex',
    path: group.paths[group.paths.length - 1]!,
    paths: group.paths,
    cwd: c.header?.cwd ?? d.turnContextCwd ?? d.environmentCwd ?? null,
    title: name ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt,
    name,
    userTurns: d.turns.length,
    userTurnsExact: true,
    prompts,
    createdAt: createdAt ?? updatedAt,
    updatedAt,
    forkedFrom,
    fork: forkedFrom ? { id: forkedFrom } : null,
    ...(c.header?.subagent ? { subagent: c.header.subagent } : {}),
    gitBranch: c.header?.gitBranch ?? null,
    model: d.model,
    archived: group.archived,
    usage: d.usage,
    size: c.size,
    mtimeMs: c.mtimeMs,
  };
}

export async function readCodexSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  return (await indexCodex(group, context)).summary;
}

/**
 * The index's fold of one rollout file, a line at a time: what `collect` and `digest` find of a single file
 * (its header, replayed ids, first time) and a row-only digest, all of it saveable as JSON.
 */
class CodexRowFold {
  headerSeen = false;
  header: RowFacts['header'] = null;
  /** The header points into another thread's file (a paginated fork): its row needs the parent. */
  paginated = false;
  readonly replayedIds: string[] = [];
  firstTimestamp: string | undefined = undefined;
  readonly digest: CodexDigest;

  constructor(
    public id: string | null,
    digest?: CodexDigest,
  ) {
    this.digest = digest ?? new CodexDigest(id, true);
  }

  add(line: CodexLine): void {
    if (line.kind === 'header') {
      const header = headerOf(line);
      if (!this.headerSeen) {
        this.headerSeen = true;
        this.header = headerFacts(header);
        this.id = header.id ?? this.id;
        this.digest.id = this.id;
        this.paginated = header.historyBase !== null && this.id !== null && header.historyBase.threadId !== this.id;
        return;
      }
      if (header.id !== null && header.id !== this.id) this.replayedIds.push(header.id);
    }
    if (this.firstTimestamp === undefined && line.timestamp !== undefined) this.firstTimestamp = line.timestamp;
    this.digest.add(line);
  }

  /** Saved with the row: everything `add` needs to go on and `buildSummary` reads. */
  save(): CodexFoldState {
    const d = this.digest;
    return {
      v: 2,
      headerSeen: this.headerSeen,
      header: this.header,
      id: this.id,
      replayedIds: this.replayedIds,
      firstTimestamp: this.firstTimestamp ?? null,
      // The prompts themselves are the row's (FoldResume.row): the saved fold stays small however long the session.
      turns: d.turns.length,
      assistantSeen: d.assistantSeen,
      usage: d.usage,
      model: d.model,
      turnContextCwd: d.turnContextCwd,
      environmentCwd: d.environmentCwd,
      threadName: d.threadName,
      newestOwn: d.newestOwn,
      inReview: d.inReview,
    };
  }

  /** A saved fold back, with the prompts of the row it made; null when it is not one (the file is then read whole). */
  static load(state: unknown, prompts: readonly string[]): CodexRowFold | null {
    if (!isRecord(state) || state.v !== 2 || typeof state.headerSeen !== 'boolean' || state.turns !== prompts.length || !Array.isArray(state.replayedIds)) return null;
    const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
    const header = state.header;
    if (!(header === null || (isRecord(header) && ['cwd', 'forkedFromId', 'gitBranch'].every((key) => header[key] === null || typeof header[key] === 'string')))) return null;
    const digest = new CodexDigest(text(state.id), true);
    // A row-only digest keeps no messages: the turns' message indexes are never read.
    for (const text of prompts) digest.turns.push({ messageIndex: 0, text, opened: true });
    if (typeof state.assistantSeen !== 'boolean') return null;
    digest.assistantSeen = state.assistantSeen;
    const usage = state.usage;
    digest.usage = isRecord(usage) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof usage[key] === 'number') ? (usage as unknown as Usage) : null;
    digest.model = text(state.model);
    digest.turnContextCwd = text(state.turnContextCwd);
    digest.environmentCwd = text(state.environmentCwd);
    digest.threadName = text(state.threadName);
    digest.newestOwn = typeof state.newestOwn === 'number' ? state.newestOwn : null;
    digest.inReview = state.inReview === true;
    const fold = new CodexRowFold(text(state.id), digest);
    fold.headerSeen = state.headerSeen;
    fold.header = header === null ? null : {
      timestamp: text(header.timestamp) ?? undefined,
      lineTimestamp: text(header.lineTimestamp) ?? undefined,
      cwd: text(header.cwd),
      forkedFromId: text(header.forkedFromId),
      gitBranch: text(header.gitBranch),
      subagent: subagentOf(header.subagent),
    };
    fold.replayedIds.push(...state.replayedIds.filter((id): id is string => typeof id === 'string'));
    fold.firstTimestamp = text(state.firstTimestamp) ?? undefined;
    return fold;
  }
}

interface CodexFoldState {
  readonly v: 2;
  readonly headerSeen: boolean;
  readonly header: RowFacts['header'];
  readonly id: string | null;
  readonly replayedIds: readonly string[];
  readonly firstTimestamp: string | null;
  /** How many prompts the row holds (their openings are the row's `prompts`). */
  readonly turns: number;
  readonly assistantSeen: boolean;
  readonly usage: Usage | null;
  readonly model: string | null;
  readonly turnContextCwd: string | null;
  readonly environmentCwd: string | null;
  readonly threadName: string | null;
  readonly newestOwn: number | null;
  readonly inReview: boolean;
}

/** A saved header's sub-agent origin back (null when there is none or it is not one). */
function subagentOf(value: unknown): SubagentSource | null {
  if (!isRecord(value) || typeof value.kind !== 'string' || !(value.parentId === null || typeof value.parentId === 'string')) return null;
  return { kind: value.kind, parentId: value.parentId };
}

/**
 * The row from every line. A single rollout is folded as it streams (and its fold can be saved, then continued
 * over appended bytes); a thread of several files, or a paginated fork (whose history is in its parent's file),
 * is collected whole and digested.
 */
export async function indexCodex(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const paths = distinctFiles(group.paths);
  const live = group.paths[group.paths.length - 1]!;
  const before = indexReads.bytes;
  // A TypeScript-era rollout is one JSON object, not lines: read whole (collect), never folded.
  if (paths.length === 1 && !isTypeScriptRollout(paths[0]!)) {
    const path = paths[0]!;
    const resumed = resume !== undefined && resume.path === path && resume.row !== undefined ? CodexRowFold.load(resume.state, resume.row.prompts) : null;
    const fold = resumed ?? new CodexRowFold(group.idHint);
    const stats = newLineStats();
    const file = await foldLines(path, resumed === null ? 0 : resume!.offset, (raw) => {
      for (const line of parseLines(path, [raw], stats, true)) fold.add(line);
    });
    if (!fold.paginated) {
      const state = file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? fold.save() : undefined;
      if (file.partial !== null) for (const line of parseLines(path, [file.partial], stats, true)) fold.add(line);
      const d = fold.digest;
      const listed = fold.id !== null && !(d.turns.length === 0 && !d.assistantSeen);
      reportSkippedLines(context.report, live, stats, listed);
      const facts: RowFacts = { header: fold.header, replayedIds: fold.replayedIds, firstTimestamp: fold.firstTimestamp, size: file.size, mtimeMs: file.mtimeMs };
      const summary = listed && fold.id !== null ? buildSummary(fold.id, group, context, facts, d) : null;
      return { summary, fingerprint: file.fingerprint, bytesRead: indexReads.bytes - before, ...(state === undefined ? {} : { resume: { path, offset: file.end, state } }) };
    }
  }
  const stats = newLineStats();
  const collected = await collect(group, context, 'summary', stats, undefined, new Set());
  const d = digest(collected.lines, collected.id);
  // Header-only and context-only files are not conversations (yet): not listed.
  // Decided by content, not size: a file no line of which is a Codex line (head and tail of a big one) is not a
  // session, however big it is.
  const noCodexLine = collected.header === null && collected.lines.length === 0;
  const listed = collected.id !== null && !noCodexLine && !(collected.exact && d.turns.length === 0 && !d.assistantSeen);
  reportSkippedLines(context.report, group.paths[group.paths.length - 1]!, stats, listed);
  const summary = !listed || collected.id === null ? null : buildSummary(collected.id, group, context, factsOf(collected), d);
  return { summary, bytesRead: indexReads.bytes - before };
}

const PROMPT_MARKS = ['"role":"user"', '"type":"user_message"', '"type":"UserMessage"'].map((mark) => Buffer.from(mark, 'latin1'));

/** A user message, a `user_message` event or a 0.16x `UserMessage` item: a prompt, which a display read keeps whole (clip.ts). */
function mayHoldPrompt(bytes: Buffer): boolean {
  return PROMPT_MARKS.some((mark) => bytes.includes(mark));
}

/** The whole transcript; a file that would not be listed (no turns yet) still opens when asked for. */
export async function readCodexSession(group: SessionFileGroup, context: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
  const stats = newLineStats();
  const clip = withPromptLines(options.clip, mayHoldPrompt);
  const shown = (messages: Message[]): Message[] => (clip === undefined ? messages : unmarkMessages(messages));
  const onPartial = options.onPartial;
  const onStart: OnStart | undefined = onPartial
    ? (lines) => {
        const header = lines.find((line) => line.kind === 'header');
        // A paginated fork's conversation starts in its parent's file, read after this one.
        if (header === undefined || headerOf(header).historyBase !== null) return;
        onPartial(shown(digest(lines, headerOf(header).id).messages));
      }
    : undefined;
  const collected = await collect(group, context, 'full', stats, undefined, new Set(), clip, onStart);
  const d = digest(collected.lines, collected.id);
  const summary = buildSummary(collected.id ?? group.paths[0]!, group, context, factsOf(collected), d);
  return { ...summary, messages: shown(d.messages), malformedLines: stats.malformed };
}

/**
 * The transcript as a stream (`show`), for a thread of one rollout: a line at a time, each message written as the
 * digest makes it and then let go, in the order `readCodexSession` gives them. A file that records a rollback (it
 * takes back messages already written) or a `history_base` (a paginated fork starts in its parent's file; a revert
 * cuts the lines before it) is read whole first, as `readCodexSession` reads it; so is a thread of several files
 * (null: `readSession`).
 */
export function streamCodexMessages(group: SessionFileGroup, context: AdapterContext): MessageStream | null {
  const paths = distinctFiles(group.paths);
  if (paths.length !== 1 || isTypeScriptRollout(paths[0]!)) return null;
  const path = paths[0]!;
  const stats = newLineStats();
  let passes: 1 | 2 | null = null;
  async function* messages(): AsyncGenerator<readonly Message[]> {
    if (fileHoldsAny(path, WHOLE_READ_MARKS)) {
      passes = 2;
      const collected = await collect(group, context, 'full', stats, undefined, new Set());
      yield digest(collected.lines, collected.id).messages;
      return;
    }
    passes = 1;
    const d = new CodexDigest(group.idHint);
    let headerSeen = false;
    for await (const raw of readLines(path)) {
      // One line at a time: parseLines's only cross-line state (the legacy header) is the line at offset 0.
      for (const line of parseLines(path, [raw], stats)) {
        // The thread's own header (the first) is not a line of the conversation (collect leaves it out).
        if (!headerSeen && line.kind === 'header') {
          headerSeen = true;
          d.id = headerOf(line).id ?? group.idHint;
          continue;
        }
        // Without its bytes: a prompt's line is kept with its turn, and its bytes are a view that would keep the whole
        // chunk it was read in (a 200 MB rollout held ~1 MB per turn that way).
        d.add({ ...line, bytes: NO_BYTES });
      }
      if (d.messages.length === 0) continue;
      // Without rollbacks a message is final once made: the digest counts it (turns keep message indexes) and lets it go.
      const made = d.messages.splice(0);
      d.dropped += made.length;
      yield made;
    }
  }
  return { messages: messages(), malformedLines: () => stats.malformed, passes: () => passes };
}

const NO_BYTES = Buffer.alloc(0);

/** A rollback event's type and a header's `history_base` member, as Codex writes them (outside strings). */
const WHOLE_READ_MARKS = ['"thread_rolled_back"', '"history_base"'].map((mark) => Buffer.from(mark, 'latin1'));

/** Whether the file's bytes hold any of these marks (read in big chunks, searched at memchr speed). */
function fileHoldsAny(path: string, marks: readonly Buffer[]): boolean {
  const overlap = Math.max(...marks.map((mark) => mark.length)) - 1;
  const buffer = Buffer.allocUnsafe(4 << 20);
  const fd = openRegularSync(path);
  try {
    let carried = 0;
    let position = 0;
    for (;;) {
      const read = readSync(fd, buffer, carried, buffer.length - carried, position);
      if (read === 0) return false;
      const view = buffer.subarray(0, carried + read);
      if (marks.some((mark) => view.indexOf(mark) !== -1)) return true;
      position += read;
      carried = Math.min(overlap, view.length);
      buffer.copy(buffer, 0, view.length - carried, view.length);
    }
  } finally {
    closeSync(fd);
  }
}
