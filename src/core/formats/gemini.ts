/**
 * Gemini CLI sessions: `<gemini dir>/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`,
 * the gemini dir being `$GEMINI_CLI_HOME/.gemini` or `~/.gemini`. `<project>` is a slug of the project folder's
 * name with a `.project_root` file naming the folder (0.3x on), or sha256(project folder) in older releases.
 *
 * A file is a log of records (verified against 0.61.0's `loadConversationRecord`):
 * - a metadata record `{sessionId, projectHash, startTime, lastUpdated, kind}` first (and again, mid-file, when a
 *   later run started in the same minute appended to it);
 * - message records `{id, timestamp, type: user|gemini|info|error|warning, content, thoughts?, toolCalls?,
 *   tokens?, model?}`; a record whose id was seen replaces that message in place (tool calls, token counts);
 * - `{$set: {...}}` updates the metadata; `$set.messages` replaces every message;
 * - `{$rewindTo: id}` drops that message and everything after it.
 * Releases before the JSONL log wrote one JSON object `{sessionId, projectHash, startTime, lastUpdated, messages}`
 * as `session-*.json`; resuming one makes a `.jsonl` copy next to it (one conversation, two files).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

import { checkForkTurn } from '../errors.js';
import { uuidv4 } from '../ids.js';
import { createFileAtomic } from '../io/atomic.js';
import { foldLines, newLineStats, parseJsonLine, type LineStats } from '../io/lines.js';
import { isKind, readRegularFile } from '../io/regular.js';
import { addUsage, promptOpening, type Block, type Message, type Session, type SessionSummary, type Usage } from '../model.js';
import { isoTimestamp } from '../time.js';
import { isHandoffNote } from '../handoff/note-opening.js';
import { argsText, functionResponseBlocks, functionResponseOutput, hasFunctionResponse, imageBlocks, modelPartBlocks, partList, partsText } from './gemini-parts.js';
import { reportSkippedLines } from './problems.js';
import type { AdapterContext, ForkRequest, ForkResult, FormatAdapter, IndexedSession, ReportProblem, SessionFileGroup } from './types.js';
import { isRecord, type JsonObject } from '../json.js';
import { listDir } from './roots.js';


/** `session-<anything>.json` or `.jsonl`: the names Gemini CLI lists (`getAllSessionFiles`). */
const SESSION_FILE = /^session-.+\.jsonl?$/;

/** The context Gemini CLI puts in a user message of its own before the first prompt: never the user's words. */
const INJECTED_CONTEXT = /^\s*<(?:session_context|hook_context)>/;

/** The fold of one file: what `loadConversationRecord` would load, plus what a row needs. */
export interface GeminiRecord {
  readonly sessionId: string | null;
  readonly projectHash: string | null;
  /** The first metadata record's start (a later run appending to the file writes its own). */
  readonly startTime: string | null;
  readonly lastUpdated: string | null;
  /** Gemini CLI's generated summary of the session (its title in `--list-sessions`). */
  readonly summary: string | null;
  readonly kind: string | null;
  /** Set in forks `sessions` wrote: `{sessionId, atTurn}` of the session it was cut from. */
  readonly forkedFrom: { readonly sessionId: string; readonly atTurn: number | null } | null;
  /** The messages, in order, each as its last record. */
  readonly messages: readonly JsonObject[];
}

class RecordFold {
  sessionId: string | null = null;
  projectHash: string | null = null;
  startTime: string | null = null;
  lastUpdated: string | null = null;
  summary: string | null = null;
  kind: string | null = null;
  forkedFrom: GeminiRecord['forkedFrom'] = null;
  readonly messages = new Map<string, JsonObject>();

  add(record: JsonObject): void {
    if (typeof record.$rewindTo === 'string') {
      if (!this.messages.has(record.$rewindTo)) {
        this.messages.clear();
        return;
      }
      let found = false;
      for (const id of [...this.messages.keys()]) {
        if (id === record.$rewindTo) found = true;
        if (found) this.messages.delete(id);
      }
    } else if (typeof record.id === 'string') {
      // Map.set keeps a known id where it was: an update replaces the message in place.
      this.messages.set(record.id, record);
    } else if (isRecord(record.$set)) {
      if (Array.isArray(record.$set.messages)) {
        this.messages.clear();
        this.addMessages(record.$set.messages);
      }
      this.merge(record.$set);
    } else if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
      this.merge(record);
      if (Array.isArray(record.messages)) this.addMessages(record.messages);
    }
  }

  private addMessages(list: readonly unknown[]): void {
    for (const message of list) if (isRecord(message) && typeof message.id === 'string') this.messages.set(message.id, message);
  }

  private merge(meta: JsonObject): void {
    if (typeof meta.sessionId === 'string') this.sessionId = meta.sessionId;
    if (typeof meta.projectHash === 'string') this.projectHash = meta.projectHash;
    const start = isoTimestamp(meta.startTime);
    if (start !== null && this.startTime === null) this.startTime = start;
    const updated = isoTimestamp(meta.lastUpdated);
    if (updated !== null && (this.lastUpdated === null || updated > this.lastUpdated)) this.lastUpdated = updated;
    if (typeof meta.summary === 'string' && meta.summary.trim() !== '') this.summary = meta.summary;
    if (typeof meta.kind === 'string') this.kind = meta.kind;
    if (isRecord(meta.forkedFrom) && typeof meta.forkedFrom.sessionId === 'string') {
      const atTurn = meta.forkedFrom.atTurn;
      this.forkedFrom = { sessionId: meta.forkedFrom.sessionId, atTurn: typeof atTurn === 'number' && Number.isInteger(atTurn) ? atTurn : null };
    }
  }

  result(): GeminiRecord {
    return {
      sessionId: this.sessionId,
      projectHash: this.projectHash,
      startTime: this.startTime,
      lastUpdated: this.lastUpdated,
      summary: this.summary,
      kind: this.kind,
      forkedFrom: this.forkedFrom,
      messages: [...this.messages.values()],
    };
  }
}

interface ReadFile {
  readonly record: GeminiRecord;
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
}

/** Fold one file (a JSONL log, or a legacy single JSON object). */
export async function readGeminiFile(path: string): Promise<ReadFile> {
  const fold = new RecordFold();
  const stats = newLineStats();
  let objects = 0;
  const file = await foldLines(path, 0, (line) => {
    const value = parseJsonLine(line.bytes);
    if (isRecord(value)) {
      objects++;
      fold.add(value);
    } else if (line.bytes.length > 0 && line.bytes.some((byte) => byte !== 0x20 && byte !== 0x09)) {
      stats.malformed++;
    }
  });
  if (file.partial !== null) {
    const value = parseJsonLine(file.partial.bytes);
    if (isRecord(value)) {
      objects++;
      fold.add(value);
    } else if (file.partial.bytes.length > 0) {
      stats.partial++;
    }
  }
  if (fold.sessionId === null || fold.projectHash === null) {
    // A legacy `session-*.json`: one (pretty-printed) JSON object.
    const legacy = parseJsonLine(await readRegularFile(path));
    if (isRecord(legacy) && typeof legacy.sessionId === 'string') {
      const whole = new RecordFold();
      whole.add({ ...legacy, projectHash: typeof legacy.projectHash === 'string' ? legacy.projectHash : '' });
      return { record: whole.result(), stats: newLineStats(), size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
    }
    if (objects === 0) stats.malformed = Math.max(stats.malformed, 1);
  }
  return { record: fold.result(), stats, size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

function userText(message: JsonObject): string {
  return partsText(message.content);
}

/**
 * True for a user message that is a prompt: Gemini CLI's own rule for what it sends back on resume
 * (`isIgnoredUserContent`: not empty, not a `/command` or `?` help, not its injected context).
 */
export function isGeminiUserTurn(message: JsonObject): boolean {
  if (message.type !== 'user' || hasFunctionResponse(message.content)) return false;
  const text = userText(message).trim();
  // An image alone is a prompt (Gemini CLI's own string of it is `[Image: …]`).
  if (text.length === 0) return imageBlocks(message.content).length > 0;
  // The note a hand-off to Gemini CLI starts with is a user message for the model, not the user's words.
  return !text.startsWith('/') && !text.startsWith('?') && !INJECTED_CONTEXT.test(text) && !isHandoffNote(text);
}

function tokensUsage(tokens: unknown): Usage | undefined {
  if (!isRecord(tokens)) return undefined;
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  // `input` counts cached tokens too; `thoughts` are output the model spent thinking.
  return { input: number(tokens.input) - number(tokens.cached), output: number(tokens.output) + number(tokens.thoughts), cacheRead: number(tokens.cached), cacheWrite: 0 };
}

function thoughtSummary(thought: JsonObject): string {
  const subject = typeof thought.subject === 'string' ? thought.subject : '';
  const description = typeof thought.description === 'string' ? thought.description : '';
  // As Gemini CLI replays a recorded thought on resume.
  return subject ? `**${subject}** ${description}` : description;
}

/**
 * The transcript: prompts, answers with their thoughts, tool calls and their results; injected context left out.
 * A model message is read as Gemini CLI rebuilds it on resume (`convertSessionToClientHistory`): from its content
 * parts when they hold the calls or thoughts (what a resumed run's `$set.messages` writes), else from `thoughts`,
 * the content and `toolCalls`. A tool's result is shown once, though 0.61 records it in the call
 * (`toolCalls[].result`), as a user message after it, and after a resume as `<id>_response` too.
 */
export function geminiMessages(record: GeminiRecord): Message[] {
  const out: Message[] = [];
  const shownResults = new Set<string>();
  const newResults = (blocks: readonly Block[]): Block[] =>
    blocks.filter((block) => {
      if (block.type !== 'tool_result' || block.toolUseId === '') return true;
      if (shownResults.has(block.toolUseId)) return false;
      shownResults.add(block.toolUseId);
      return true;
    });
  for (const message of record.messages) {
    const timestamp = isoTimestamp(message.timestamp) ?? undefined;
    const stamp = timestamp === undefined ? {} : { timestamp };
    if (message.type === 'user') {
      if (hasFunctionResponse(message.content)) {
        const blocks = newResults(functionResponseBlocks(message.content));
        if (blocks.length > 0) out.push({ role: 'tool', blocks, userTurn: false, ...stamp });
        continue;
      }
      const text = userText(message);
      const images = imageBlocks(message.content);
      if ((text.trim().length === 0 && images.length === 0) || INJECTED_CONTEXT.test(text)) continue;
      out.push({ role: 'user', blocks: [...(text.length > 0 ? [{ type: 'text' as const, text }] : []), ...images], userTurn: isGeminiUserTurn(message), ...stamp });
    } else if (message.type === 'gemini') {
      const content = partList(message.content);
      const toolCalls = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isRecord) : [];
      const blocks: Block[] = [];
      if (content.some((part) => isRecord(part.functionCall) || part.thought === true)) {
        blocks.push(...modelPartBlocks(content));
      } else {
        for (const thought of Array.isArray(message.thoughts) ? message.thoughts.filter(isRecord) : []) {
          blocks.push({ type: 'reasoning', summary: thoughtSummary(thought), encrypted: false });
        }
        blocks.push(...modelPartBlocks(content));
        for (const call of toolCalls) {
          blocks.push({ type: 'tool_use', id: typeof call.id === 'string' ? call.id : '', name: typeof call.name === 'string' ? call.name : '', input: argsText(call.args) });
        }
      }
      const results: Block[] = [];
      for (const call of toolCalls) {
        if (call.result === undefined || call.result === null) continue;
        const id = typeof call.id === 'string' ? call.id : '';
        const isError = call.status === 'error' || call.status === 'cancelled';
        const fromParts = typeof call.result === 'string' ? [] : functionResponseBlocks(call.result, isError);
        results.push(...(fromParts.length > 0 ? fromParts : [{ type: 'tool_result' as const, toolUseId: id, output: typeof call.result === 'string' ? call.result : functionResponseOutput(call.result), isError }]));
      }
      const usage = tokensUsage(message.tokens);
      if (blocks.length > 0) out.push({ role: 'assistant', blocks, userTurn: false, ...stamp, ...(usage ? { usage } : {}) });
      const shown = newResults(results);
      if (shown.length > 0) out.push({ role: 'tool', blocks: shown, userTurn: false, ...stamp });
    }
    // info / error / warning records are the CLI's own notices, not conversation.
  }
  return out;
}

/** A message record's opening as Gemini CLI writes it: `{"id":…,"timestamp":…,"type":…` (the type is group 1). */
const MESSAGE_OPENING = /^\{"id":"[^"]*",(?:"timestamp":"[^"]*",)?"type":"([a-z]+)"(,"content":\[?\{?(?:"text":)?"\s*<(?:session_context|hook_context)>)?/;

/**
 * True for a line that is never conversation text, by its opening (`sessions grep` counts no match in it): `$set`
 * records (metadata, and `$set.messages`, which copies the history with Gemini CLI's `<session_context>`: the
 * workspace's folder listing, the date), `$rewindTo`, the CLI's own info/error/warning notices and the session
 * context message itself. Lines of a legacy pretty-printed `.json` file never match these openings: all counted.
 */
export function isGeminiNonConversationLine(opening: string): boolean {
  if (opening.startsWith('{"$set":') || opening.startsWith('{"$rewindTo":')) return true;
  const message = MESSAGE_OPENING.exec(opening);
  if (message === null) return false;
  return message[1] === 'info' || message[1] === 'error' || message[1] === 'warning' || (message[1] === 'user' && message[2] !== undefined);
}

// ---------------------------------------------------------------------------------------------------------------
// Rows

/** The gemini dir's project folder of a session file: `<root>/tmp/<project>/chats/<file>` → `<root>/tmp/<project>`. */
function projectDirOf(path: string): string {
  return dirname(dirname(path));
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The session's project folder (its cwd): the project folder's `.project_root` (0.3x on), else the workspace
 * folder Gemini CLI wrote into its session context, when its sha256 is the file's `projectHash` (older releases).
 */
async function projectRootOf(path: string, record: GeminiRecord): Promise<string | null> {
  try {
    const marker = (await readFile(join(projectDirOf(path), '.project_root'), 'utf8')).trim();
    // The folder Gemini CLI keeps this project's sessions for (one folder per project, claimed by this marker).
    if (marker.startsWith('/')) return marker;
  } catch {
    // no marker: an older layout
  }
  for (const message of record.messages) {
    if (message.type !== 'user') continue;
    const text = userText(message);
    if (!INJECTED_CONTEXT.test(text)) continue;
    const candidates = [
      ...text.matchAll(/\*\*Workspace Directories:\*\*\n((?:\s+- .+\n?)+)/g),
    ].flatMap((match) => (match[1] ?? '').split('\n').map((line) => line.replace(/^\s+- /, '').trim()).filter(Boolean));
    const working = /I'm currently working in the directory: (.+)/.exec(text);
    if (working?.[1]) candidates.push(working[1].trim());
    for (const candidate of candidates) if (record.projectHash !== null && sha256(candidate) === record.projectHash) return candidate;
  }
  return null;
}

function livePath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined) throw new Error('a Gemini CLI session group has no file');
  return path;
}

function hasConversation(record: GeminiRecord): boolean {
  return record.sessionId !== null && record.kind !== 'subagent' && record.messages.some((message) => isGeminiUserTurn(message));
}

function summarize(group: SessionFileGroup, file: ReadFile, cwd: string | null): SessionSummary {
  const { record } = file;
  const path = livePath(group);
  const prompts: string[] = [];
  let model: string | null = null;
  let usage: Usage | null = null;
  let lastTimestamp: string | null = null;
  let firstTimestamp: string | null = null;
  for (const message of record.messages) {
    const timestamp = isoTimestamp(message.timestamp);
    if (timestamp !== null) {
      firstTimestamp ??= timestamp;
      if (lastTimestamp === null || timestamp > lastTimestamp) lastTimestamp = timestamp;
    }
    if (isGeminiUserTurn(message)) prompts.push(promptOpening(userText(message)));
    if (message.type === 'gemini') {
      if (typeof message.model === 'string' && message.model.length > 0) model = message.model;
      usage = addUsage(usage, tokensUsage(message.tokens));
    }
  }
  const mtime = new Date(file.mtimeMs).toISOString();
  const firstPrompt = prompts[0] ?? null;
  const updated = [record.lastUpdated, lastTimestamp].filter((value): value is string => value !== null).sort().at(-1);
  const parent = record.forkedFrom;
  return {
    id: record.sessionId!,
    agent: 'gemini',
    path,
    paths: group.paths,
    cwd,
    title: record.summary ?? firstPrompt ?? '(no prompt)',
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name: null,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: record.startTime ?? firstTimestamp ?? mtime,
    updatedAt: updated ?? mtime,
    forkedFrom: parent?.sessionId ?? null,
    fork: parent === null ? null : { id: parent.sessionId, ...(parent.atTurn === null ? {} : { atTurn: parent.atTurn }) },
    gitBranch: null,
    model,
    archived: group.archived,
    usage,
    size: file.size,
    mtimeMs: file.mtimeMs,
  };
}

async function indexGemini(group: SessionFileGroup, context: AdapterContext): Promise<IndexedSession> {
  const path = livePath(group);
  const file = await readGeminiFile(path);
  reportSkippedLines(context.report, path, file.stats, hasConversation(file.record));
  if (!hasConversation(file.record)) return { summary: null, fingerprint: file.fingerprint, bytesRead: file.size };
  const cwd = await projectRootOf(path, file.record);
  return { summary: summarize(group, file, cwd), fingerprint: file.fingerprint, bytesRead: file.size };
}

// ---------------------------------------------------------------------------------------------------------------
// Discovery

/** `session-X.json` and `session-X.jsonl` are one conversation (a resumed legacy file): the `.jsonl` is live. */
function groupChatFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const byStem = new Map<string, string[]>();
  for (const path of [...paths].sort()) {
    const stem = path.replace(/\.jsonl?$/, '');
    const list = byStem.get(stem) ?? [];
    list.push(path);
    byStem.set(stem, list);
  }
  return [...byStem.values()].map((list) => ({
    agent: 'gemini' as const,
    // `.json` sorts before `.jsonl`: oldest first, the live file last.
    paths: list.sort(),
    idHint: null,
    root,
    archived: false,
  }));
}


/** The name a fork is written under, as Gemini CLI names a new session: `session-<minute, UTC>-<id8>.jsonl`. */
export function geminiSessionFileName(id: string, now: Date): string {
  return `session-${now.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`;
}

export const geminiAdapter: FormatAdapter = {
  agent: 'gemini',
  label: 'Gemini CLI',
  locations: {
    flag: '--gemini-dir <dir>',
    flagHelp: 'a Gemini CLI folder, the one holding tmp/ (repeatable; default $GEMINI_CLI_HOME/.gemini or ~/.gemini)',
    homeFolder: '.gemini',
    // GEMINI_CLI_HOME stands for the user's home: Gemini CLI keeps its files in its `.gemini`.
    defaultRoots: ({ home, env, homeDir, abs }) => [join(home ?? (env.GEMINI_CLI_HOME ? abs(env.GEMINI_CLI_HOME) : homeDir), '.gemini')],
    readme: {
      where: '`$GEMINI_CLI_HOME/.gemini/tmp/*/chats/session-*.jsonl` (default `~/.gemini`; older releases\' `session-*.json` too)',
      options: '`--gemini-dir DIR` (repeatable: the `.gemini` folder), `--home DIR` (= `DIR/.gemini`)',
    },
    describeRoot: (dir) => `${dir}/tmp/*/chats (Gemini CLI)`,
  },
  // <dir>/tmp/<project>/chats/session-*.jsonl; nothing else under tmp/ (tool outputs, memory) is watched.
  watch: {
    roots: 'configured',
    depth: 3,
    wanted: (parts) => parts[0] === 'tmp' && (parts.length < 3 || (parts[2] === 'chats' && parts.length <= 4)),
    fileSuffixes: ['.jsonl', '.json'],
  },
  // The chats, and the `.project_root` naming each project's folder (the sessions' cwd).
  mirror: { variables: ['GEMINI_CLI_HOME'], filter: ['+ tmp/', '+ tmp/*/', '+ tmp/*/.project_root', '+ tmp/*/chats/', '+ tmp/*/chats/session-*.json', '+ tmp/*/chats/session-*.jsonl'] },
  resume: {
    // A prompt given with --resume makes Gemini CLI answer it and exit: the interactive resume takes none.
    interactive: ['gemini', '{args}', '--resume', '{id}'],
    exec: ['gemini', '{args}', '--resume', '{id}', '-p', '{prompt}'],
    homeEnvironment: (root): Record<string, string> => {
      const home = geminiHomeOf(root);
      return home === null ? {} : { GEMINI_CLI_HOME: home };
    },
  },
  idShape: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, description: 'a UUID' },
  isNonConversationLine: isGeminiNonConversationLine,
  forkTarget: 'in the same chats folder as the original, session-<minute>-<first 8 of the new id>.jsonl\n(forkedFrom in its first record names the original)',

  groupFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
    return groupChatFiles(
      root,
      paths.filter((path) => {
        const rel = relative(root, path).split(sep);
        return rel.length === 4 && rel[0] === 'tmp' && rel[2] === 'chats' && SESSION_FILE.test(rel[3] ?? '');
      }),
    );
  },

  async discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
    const tmp = join(root, 'tmp');
    const paths: string[] = [];
    for (const project of await listDir(tmp, report)) {
      const projectDir = join(tmp, project.name);
      if (!(await isKind(projectDir, project, 'directory'))) continue;
      const chats = join(projectDir, 'chats');
      for (const entry of await listDir(chats, report)) {
        const path = join(chats, entry.name);
        if (SESSION_FILE.test(entry.name) && (await isKind(path, entry, 'file'))) paths.push(path);
      }
    }
    return groupChatFiles(root, paths);
  },

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexGemini(group, context)).summary;
  },

  indexSession: indexGemini,

  async readSession(group: SessionFileGroup): Promise<Session> {
    const path = livePath(group);
    const file = await readGeminiFile(path);
    if (file.record.sessionId === null) throw new Error(`${path} is not a Gemini CLI session (no sessionId)`);
    const cwd = await projectRootOf(path, file.record);
    return { ...summarize(group, file, cwd), messages: geminiMessages(file.record), malformedLines: file.stats.malformed };
  },

  /**
   * A new `session-<now>-<id8>.jsonl` in the original's chats folder (where `gemini --resume` looks, from the same
   * cwd): a metadata record with a new id, the original's `projectHash` and `forkedFrom {sessionId, atTurn}`, then
   * every message before user turn `atTurn`, each as its last record in the original.
   */
  async fork(group: SessionFileGroup, request: ForkRequest): Promise<ForkResult> {
    const path = livePath(group);
    const { record } = await readGeminiFile(path);
    if (record.sessionId === null) throw new Error(`${path} is not a Gemini CLI session (no sessionId)`);
    const turns = record.messages.filter((message) => isGeminiUserTurn(message)).length;
    checkForkTurn(request.atTurn, turns);
    let seen = 0;
    const cut = record.messages.findIndex((message) => isGeminiUserTurn(message) && ++seen === request.atTurn);
    const kept = record.messages.slice(0, cut);
    const now = request.now ?? new Date();
    const id = uuidv4();
    const projectHash = record.projectHash || sha256((await projectRootOf(path, record)) ?? '');
    const meta = {
      sessionId: id,
      projectHash,
      startTime: now.toISOString(),
      lastUpdated: now.toISOString(),
      kind: 'main',
      ...(request.branchName ? { summary: request.branchName } : {}),
      forkedFrom: { sessionId: record.sessionId, atTurn: request.atTurn },
    };
    const lines = [meta, ...kept].map((value) => `${JSON.stringify(value)}\n`);
    const target = join(dirname(path), geminiSessionFileName(id, now));
    await createFileAtomic(target, lines.join(''));
    return { agent: 'gemini', id, path: target, parentId: record.sessionId, keptUserTurns: request.atTurn - 1 };
  },
};

/** The default gemini dir for a user home: `<home>/.gemini` (Gemini CLI's GEMINI_CLI_HOME stands for the home). */
export function geminiDirOf(home: string): string {
  return join(home, '.gemini');
}

/** The home a gemini dir belongs to (what GEMINI_CLI_HOME must be for Gemini CLI to use it), or null. */
export function geminiHomeOf(root: string): string | null {
  return basename(root) === '.gemini' ? dirname(root) : null;
}
