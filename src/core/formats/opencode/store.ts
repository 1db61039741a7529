/** The opencode database (and its forks'): its sessions, messages and parts read into rows and transcripts. */
import { statSync } from 'node:fs';
import { walkFs } from '../../io/walk-fs.js';
import { basename, dirname, join } from 'node:path';
import { errorCode } from '../../errors.js';
import { withReadOnly, type SqliteDatabase } from '../../io/sqlite.js';
import { isRecord, type JsonObject } from '../../json.js';
import { addUsage, IMAGE_PLACEHOLDER, imageFromUrl, promptOpening, type Block, type Message, type Session, type SessionSummary, type Usage } from '../../model.js';
import type { AdapterContext, ConversationText, IndexedSession, ReportProblem, SessionFileGroup } from '../types.js';
import { withoutInjected, type OpencodeDialect } from './dialect.js';

/*
 * opencode (verified with 1.18.33) keeps every conversation of a user in one SQLite database,
 * `$XDG_DATA_HOME/opencode/opencode.db` (XDG_DATA_HOME defaults to ~/.local/share), in WAL mode (`opencode.db-wal`
 * beside it holds the newest writes until a checkpoint). The tables this reads:
 * - `session`: id (`ses_…`), directory (the cwd), title (opencode's own, `New session - <ISO time>` until it
 *   names it), parent_id (a sub-agent's parent: the task tool's child sessions), metadata (JSON), model (JSON
 *   {id, providerID}), time_created/time_updated/time_archived (epoch ms).
 * - `message`: id (`msg_…`, ascending), session_id, time_created, data (JSON: role user|assistant; an assistant's
 *   parentID is the user message it answers, modelID, tokens {input, output, reasoning, cache {read, write}}).
 * - `part`: id (`prt_…`, ascending), message_id, session_id, data (JSON: type text {text, synthetic?}, reasoning
 *   {text}, tool {callID, tool, state {status, input, output | error}}, file {mime, filename}, compaction,
 *   step-start/step-finish (bookkeeping)).
 * A conversation is its messages by (time_created, id), each with its parts by id. 1.18 also keeps an `event`
 * log of the same writes; `opencode import` and this adapter's fork write the three tables only (as import does).
 * `opencode -s <id>` (interactive) and `opencode run -s <id> PROMPT` append to the same session. Its own `--fork`
 * copies the messages under new ids into a new session titled `<title> (fork #1)` and records no parent; a fork
 * written here records its parent in the session's metadata (`sessionsFork`).
 * Releases before the database kept JSON files under `storage/`: those are not read.
 * Kilo Code CLI (an opencode fork, verified with 7.7.9) keeps the same tables in `$XDG_DATA_HOME/kilo/kilo.db`
 * (dialect.ts says what differs).
 */

/** SQLite's write-ahead log: the newest writes live here until a checkpoint copies them into the database. */
export const WAL_SUFFIX = '-wal';
/** The placeholder a session is titled with until the agent names it; its own fork appends ` (fork #N)` to it. */
const PLACEHOLDER_TITLE = /^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z( \(fork #\d+\))*$/;
export const ID_PATTERN = /^ses_[0-9A-Za-z]{10,60}$/;
/** Where a fork written here names its parent, in the session's metadata. */
export const FORK_KEY = 'sessionsFork';

/** The data folder under a home: `~/.local/share/<dataName>`. */
export function dataFolder(dialect: OpencodeDialect): string {
  return join('.local', 'share', dialect.dataName);
}

export interface SessionRow {
  readonly id: string;
  readonly parent_id: string | null;
  readonly directory: string;
  readonly title: string;
  readonly model: string | null;
  readonly metadata: string | null;
  readonly time_created: number;
  readonly time_updated: number;
  readonly time_archived: number | null;
  readonly [column: string]: unknown;
}

export interface MessageRow {
  readonly id: string;
  readonly session_id: string;
  readonly time_created: number;
  readonly data: string;
  readonly [column: string]: unknown;
}

export interface PartRow {
  readonly id: string;
  readonly message_id: string;
  readonly data: string;
  readonly [column: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------------
// Files

/** The database under one root (an opencode data folder), as one store group: its conversations are read from it. */
export async function discoverOpencode(dialect: OpencodeDialect, root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const path = join(root, dialect.dbName);
  try {
    if (!(await walkFs.stat(path)).isFile()) return [];
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') report({ path, message: `cannot read: ${code ?? String(error)}` });
    return [];
  }
  return [storeGroup(dialect, root, path)];
}

function storeGroup(dialect: OpencodeDialect, root: string, path: string): SessionFileGroup {
  return { agent: dialect.agent, paths: [path], idHint: null, root, archived: false };
}

/** The database a changed path belongs to (the database or its write-ahead log, directly under `root`). */
export function storeOf(dialect: OpencodeDialect, path: string): string | null {
  const name = basename(path);
  if (name === dialect.dbName) return path;
  if (name === dialect.dbName + WAL_SUFFIX) return path.slice(0, -WAL_SUFFIX.length);
  return null;
}

export function groupOpencodeFiles(dialect: OpencodeDialect, root: string, paths: readonly string[]): SessionFileGroup[] {
  const stores = new Set<string>();
  for (const path of paths) {
    const store = storeOf(dialect, path);
    if (store !== null && dirname(store) === root && isFile(store)) stores.add(store);
  }
  return [...stores].map((path) => storeGroup(dialect, root, path));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Reading

export function parseObject(text: string | null | undefined): JsonObject | null {
  if (typeof text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
export const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** A message's parts, decoded (a part that is not JSON is skipped and counted). */
export interface DecodedMessage {
  readonly row: MessageRow;
  readonly info: JsonObject;
  readonly parts: readonly { readonly row: PartRow; readonly data: JsonObject }[];
}

/** A text part's words as the user typed them: without the blocks the agent appended (Kilo's environment details). */
function partWords(dialect: OpencodeDialect, data: JsonObject): string {
  return typeof data.text === 'string' ? withoutInjected(dialect, data.text) : '';
}

/** The words a user typed: the text parts the agent did not add itself (synthetic: file contents, reminders). */
function typedText(dialect: OpencodeDialect, message: DecodedMessage): string {
  return message.parts
    .filter(({ data }) => data.type === 'text' && data.synthetic !== true && data.ignored !== true && partWords(dialect, data) !== '')
    .map(({ data }) => partWords(dialect, data))
    .join('\n');
}

const isImagePart = (data: JsonObject): boolean => data.type === 'file' && typeof data.mime === 'string' && data.mime.startsWith('image/');

/** A prompt as a row shows it: the typed words, else the image it was (an image sent alone is a prompt too). */
function promptText(dialect: OpencodeDialect, message: DecodedMessage): string {
  const text = typedText(dialect, message);
  return text.trim() === '' && message.parts.some(({ data }) => isImagePart(data)) ? IMAGE_PLACEHOLDER : text;
}

/** A real prompt: a user message with words of the user's or an image (not a compaction request, not only synthetic text). */
export function isUserTurn(dialect: OpencodeDialect, message: DecodedMessage): boolean {
  return message.info.role === 'user' && promptText(dialect, message).trim() !== '' && !message.parts.some(({ data }) => data.type === 'compaction');
}

export function usageOf(info: JsonObject): Usage | null {
  if (info.role !== 'assistant' || !isRecord(info.tokens)) return null;
  const tokens = info.tokens;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  return { input: num(tokens.input), output: num(tokens.output) + num(tokens.reasoning), cacheRead: num(cache.read), cacheWrite: num(cache.write) };
}

function modelOf(session: SessionRow, messages: readonly DecodedMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const model = str(messages[i]!.info.modelID);
    if (model) return model;
  }
  const recorded = parseObject(session.model);
  return recorded ? str(recorded.id) : null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The row of one conversation, from its session row and decoded messages. */
function summaryOf(dialect: OpencodeDialect, session: SessionRow, messages: readonly DecodedMessage[], path: string, bytes: number): SessionSummary {
  const prompts: string[] = [];
  let usage: Usage | null = null;
  for (const message of messages) {
    if (isUserTurn(dialect, message)) prompts.push(promptOpening(promptText(dialect, message)));
    usage = addUsage(usage, usageOf(message.info));
  }
  const firstPrompt = prompts[0] ?? null;
  const title = session.title && !PLACEHOLDER_TITLE.test(session.title) ? session.title : (firstPrompt ?? '(no prompt)');
  const metadata = parseObject(session.metadata);
  const fork = metadata && isRecord(metadata[FORK_KEY]) ? metadata[FORK_KEY] : null;
  const forkId = fork ? str(fork.id) : null;
  const atTurn = fork && typeof fork.atTurn === 'number' ? fork.atTurn : undefined;
  return {
    id: session.id,
    agent: dialect.agent,
    path,
    paths: [path],
    cwd: session.directory || null,
    title,
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name: null,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: iso(session.time_created),
    updatedAt: iso(session.time_updated),
    forkedFrom: forkId,
    fork: forkId ? { id: forkId, ...(atTurn !== undefined ? { atTurn } : {}) } : null,
    ...(session.parent_id ? { subagent: { kind: 'task', parentId: session.parent_id } } : {}),
    gitBranch: null,
    model: modelOf(session, messages),
    archived: session.time_archived !== null && session.time_archived !== undefined,
    usage,
    size: bytes,
    mtimeMs: session.time_updated,
  };
}

/**
 * Messages and parts of the given sessions (all when `ids` is null), decoded, by session. `prompts`: only what a
 * row needs (the parts of user messages; an assistant's own parts are tool output and answers, often megabytes).
 */
function readConversations(db: SqliteDatabase, ids: readonly string[] | null, partsOf: 'all' | 'prompts', report: ReportProblem, path: string): Map<string, { messages: DecodedMessage[]; bytes: number }> {
  const where = ids === null ? '' : `WHERE session_id IN (${ids.map(() => '?').join(',')})`;
  const args = ids ?? [];
  const messages = db.prepare(`SELECT * FROM message ${where} ORDER BY session_id, time_created, id`).all(...args) as MessageRow[];
  const partWhere = partsOf === 'prompts' ? `${where ? `${where} AND` : 'WHERE'} message_id IN (SELECT id FROM message WHERE json_extract(data, '$.role') = 'user')` : where;
  const parts = db.prepare(`SELECT * FROM part ${partWhere} ORDER BY message_id, id`).all(...args) as PartRow[];
  const sizes = db.prepare(`SELECT session_id, SUM(LENGTH(CAST(data AS BLOB))) AS bytes FROM part ${where} GROUP BY session_id`).all(...args) as { session_id: string; bytes: number }[];
  const byMessage = new Map<string, { row: PartRow; data: JsonObject }[]>();
  let malformed = 0;
  for (const row of parts) {
    const data = parseObject(row.data);
    if (data === null) {
      malformed++;
      continue;
    }
    const list = byMessage.get(row.message_id);
    if (list) list.push({ row, data });
    else byMessage.set(row.message_id, [{ row, data }]);
  }
  const out = new Map<string, { messages: DecodedMessage[]; bytes: number }>();
  for (const row of messages) {
    const info = parseObject(row.data);
    if (info === null) {
      malformed++;
      continue;
    }
    let conversation = out.get(row.session_id);
    if (!conversation) out.set(row.session_id, (conversation = { messages: [], bytes: 0 }));
    conversation.messages.push({ row, info, parts: byMessage.get(row.id) ?? [] });
    conversation.bytes += Buffer.byteLength(row.data);
  }
  for (const { session_id, bytes } of sizes) {
    const conversation = out.get(session_id);
    if (conversation) conversation.bytes += bytes;
  }
  if (malformed > 0) report({ path, message: `${malformed} message or part row(s) that are not JSON were skipped` });
  return out;
}

/** Every conversation's row in the database. */
export async function readOpencodeRows(dialect: OpencodeDialect, group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary[]> {
  const path = group.paths[0]!;
  return withReadOnly(path, (db) => {
    const sessions = db.prepare('SELECT * FROM session ORDER BY id').all() as SessionRow[];
    const conversations = readConversations(db, null, 'prompts', context.report, path);
    return sessions.map((session) => {
      const conversation = conversations.get(session.id);
      return summaryOf(dialect, session, conversation?.messages ?? [], path, conversation?.bytes ?? 0);
    });
  });
}

export function conversationId(dialect: OpencodeDialect, group: SessionFileGroup): string {
  if (group.idHint === null) throw new Error(`a ${dialect.label} conversation is named by its session id`);
  return group.idHint;
}

export function readOne(dialect: OpencodeDialect, db: SqliteDatabase, id: string, partsOf: 'all' | 'prompts', report: ReportProblem, path: string): { session: SessionRow; messages: DecodedMessage[]; bytes: number } {
  const session = db.prepare('SELECT * FROM session WHERE id = ?').get(id) as SessionRow | undefined;
  if (!session) throw new Error(`no ${dialect.label} session ${id} in ${path}`);
  const conversation = readConversations(db, [id], partsOf, report, path).get(id);
  return { session, messages: conversation?.messages ?? [], bytes: conversation?.bytes ?? 0 };
}

export async function readOpencodeSummary(dialect: OpencodeDialect, group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  const path = group.paths[0]!;
  return withReadOnly(path, (db) => {
    const { session, messages, bytes } = readOne(dialect, db, conversationId(dialect, group), 'prompts', context.report, path);
    return summaryOf(dialect, session, messages, path, bytes);
  });
}

export async function indexOpencode(dialect: OpencodeDialect, group: SessionFileGroup, context: AdapterContext): Promise<IndexedSession> {
  const summary = await readOpencodeSummary(dialect, group, context);
  return { summary, bytesRead: summary?.size ?? 0 };
}

/** The normalized messages of one conversation: prompts, answers with reasoning and tool calls, tool results. */
function toMessages(dialect: OpencodeDialect, messages: readonly DecodedMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const timestamp = iso(message.row.time_created);
    if (message.info.role === 'user') {
      const userTurn = isUserTurn(dialect, message);
      const blocks: Block[] = [];
      for (const { data } of message.parts) {
        // The agent's own additions to a prompt (file contents, reminders, Kilo's environment details) are not the
        // user's words; a message of nothing else (a hand-off's note) is shown as what it is, a message that is no turn.
        const text = partWords(dialect, data);
        if (data.type === 'text' && text !== '' && data.ignored !== true && (data.synthetic !== true || !userTurn)) blocks.push({ type: 'text', text });
        else if (data.type === 'file') {
          const mime = str(data.mime);
          if (mime?.startsWith('image/')) blocks.push(imageBlock(mime, str(data.url)));
          else blocks.push({ type: 'text', text: `[file: ${str(data.filename) ?? str(data.url) ?? ''}]` });
        } else if (data.type === 'compaction') blocks.push({ type: 'compaction', summary: '' });
      }
      out.push({ role: 'user', blocks, userTurn, timestamp });
      continue;
    }
    const blocks: Block[] = [];
    const results: Block[] = [];
    for (const { data } of message.parts) {
      if (data.type === 'text' && typeof data.text === 'string') blocks.push({ type: 'text', text: data.text });
      else if (data.type === 'reasoning') blocks.push({ type: 'reasoning', summary: str(data.text) ?? '', encrypted: false });
      else if (data.type === 'tool') {
        const state = isRecord(data.state) ? data.state : {};
        const id = str(data.callID) ?? '';
        blocks.push({ type: 'tool_use', id, name: str(data.tool) ?? 'tool', input: JSON.stringify(state.input ?? {}) });
        if (state.status === 'completed' || state.status === 'error') {
          results.push({ type: 'tool_result', toolUseId: id, output: str(state.output) ?? str(state.error) ?? '', isError: state.status === 'error' });
        }
      }
    }
    const usage = usageOf(message.info);
    out.push({ role: 'assistant', blocks, userTurn: false, timestamp, ...(usage ? { usage } : {}) });
    if (results.length > 0) out.push({ role: 'tool', blocks: results, userTurn: false, timestamp });
  }
  return out;
}

/** An image file part: opencode keeps an attached image inline as a `data:` URL (its bytes), else its URL. */
function imageBlock(mime: string, url: string | null): Block {
  if (url === null) return { type: 'image', mediaType: mime, data: null, url: null };
  const image = imageFromUrl(url);
  return { ...image, mediaType: image.mediaType ?? mime };
}

export async function readOpencodeSession(dialect: OpencodeDialect, group: SessionFileGroup, context: AdapterContext): Promise<Session> {
  const path = group.paths[0]!;
  return withReadOnly(path, (db) => {
    const { session, messages, bytes } = readOne(dialect, db, conversationId(dialect, group), 'all', context.report, path);
    return { ...summaryOf(dialect, session, messages, path, bytes), messages: toMessages(dialect, messages), malformedLines: 0 };
  });
}

/** Each conversation's words (prompts, answers, reasoning, tool calls and their output), for full-text search. */
export async function opencodeTexts(dialect: OpencodeDialect, group: SessionFileGroup, context: AdapterContext): Promise<ConversationText[]> {
  const path = group.paths[0]!;
  return withReadOnly(path, (db) => {
    const ids = (db.prepare('SELECT id FROM session ORDER BY id').all() as { id: string }[]).map((row) => row.id);
    const conversations = readConversations(db, null, 'all', context.report, path);
    return ids.map((id) => ({ id, text: textOf(toMessages(dialect, conversations.get(id)?.messages ?? [])) }));
  });
}

function textOf(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const message of messages) {
    for (const block of message.blocks) {
      if (block.type === 'text') out.push(block.text);
      else if (block.type === 'reasoning') out.push(block.summary);
      else if (block.type === 'tool_use') out.push(`${block.name} ${block.input}`);
      else if (block.type === 'tool_result') out.push(block.output);
      else if (block.type === 'compaction') out.push(block.summary);
    }
  }
  return out.join('\n');
}
