/** A chat file's log of records folded as Gemini CLI loads it (updates by id, `$set`, `$rewindTo`), and the fold saved. */
import { foldLines, newLineStats, parseJsonLine, type FoldedFile, type LineStats } from '../../io/lines.js';
import { readJsonDocument } from '../../io/clip-stream.js';
import { type Usage } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { isRecord, type JsonObject } from '../../json.js';

/** `session-<anything>.json` or `.jsonl`: the names Gemini CLI lists (`getAllSessionFiles`). */
export const SESSION_FILE = /^session-.+\.jsonl?$/;
/** A sub-agent's chat (0.61): `chats/<parent session id>/<sub-agent session id>.jsonl`, both ids as Gemini CLI sanitizes them. */
export const SUBAGENT_FOLDER = /^[A-Za-z0-9_-]+$/;
export const SUBAGENT_FILE = /^[A-Za-z0-9_-]+\.jsonl$/;

/** The fold of one file: what `loadConversationRecord` would load (each message as `M`), plus what a row needs. */
export interface GeminiRecord<M = JsonObject> {
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
  readonly messages: readonly M[];
}

/** What a row needs of one message: the index keeps this, never the message's content. */
export interface MessageDigest {
  readonly timestamp: string | null;
  /** The prompt's opening, when the message is a turn. */
  readonly prompt?: string;
  readonly model?: string;
  readonly usage?: Usage;
  /** The folders a session context message names (older releases' cwd is the one whose sha256 is the projectHash). */
  readonly context?: readonly string[];
}

/** The record log folded as Gemini CLI loads it, each message kept as `take` makes it (whole, or a row's digest). */
export class RecordFold<M> {
  sessionId: string | null = null;
  projectHash: string | null = null;
  startTime: string | null = null;
  lastUpdated: string | null = null;
  summary: string | null = null;
  kind: string | null = null;
  forkedFrom: GeminiRecord['forkedFrom'] = null;
  readonly messages = new Map<string, M>();
  /**
   * What `/compress` took out of the history Gemini CLI keeps (its `$set.messages` then holds only the summary):
   * the messages before each compression, then a `compression` message holding its summary, in order.
   */
  readonly compressed: [string, M][] = [];
  /** Ids of a compression's own messages in the kept history (the summary, the model's "Got it", copies of the kept tail). */
  readonly hidden = new Set<string>();

  constructor(private readonly take: (message: JsonObject) => M) {}

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
      this.messages.set(record.id, this.take(record));
    } else if (isRecord(record.$set)) {
      if (Array.isArray(record.$set.messages)) {
        this.retireCompressed(record.$set.messages);
        this.messages.clear();
        this.addMessages(record.$set.messages);
      }
      this.merge(record.$set);
    } else if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
      this.merge(record);
      if (Array.isArray(record.messages)) this.addMessages(record.messages);
    }
  }

  /**
   * A `$set.messages` that a compression wrote (Gemini CLI 0.61's `/compress`, or its automatic one): a user message
   * new to the history followed by the model's fixed "Got it. Thanks for the additional context!", then the kept
   * tail re-recorded under new ids. What was typed before stays the user's: the messages held until now are kept
   * as history, the summary becomes a `compression` message (context, as Codex and Claude compaction are), and the
   * compression's own messages are hidden from the transcript.
   */
  private retireCompressed(list: readonly unknown[]): void {
    const at = list.findIndex(
      (message, index) =>
        isRecord(message) && message.type === 'user' && typeof message.id === 'string' && !this.messages.has(message.id) && !this.hidden.has(message.id) && isCompressionAck(list[index + 1]),
    );
    if (at < 0) return;
    const summary = list[at] as JsonObject;
    for (const [id, message] of this.messages) if (!this.hidden.has(id)) this.compressed.push([id, message]);
    this.compressed.push([summary.id as string, this.take({ ...summary, type: 'compression' })]);
    for (const message of list.slice(at)) if (isRecord(message) && typeof message.id === 'string' && !this.messages.has(message.id)) this.hidden.add(message.id);
  }

  private addMessages(list: readonly unknown[]): void {
    for (const message of list) if (isRecord(message) && typeof message.id === 'string') this.messages.set(message.id, this.take(message));
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

  result(): GeminiRecord<M> {
    return {
      sessionId: this.sessionId,
      projectHash: this.projectHash,
      startTime: this.startTime,
      lastUpdated: this.lastUpdated,
      summary: this.summary,
      kind: this.kind,
      forkedFrom: this.forkedFrom,
      messages: [...this.compressed.map(([, message]) => message), ...[...this.messages].flatMap(([id, message]) => (this.hidden.has(id) ? [] : [message]))],
    };
  }
}

/** The answer Gemini CLI records for the model after a compression's summary (`chatCompressionService`). */
const COMPRESSION_ACK = 'Got it. Thanks for the additional context!';

function isCompressionAck(message: unknown): boolean {
  if (!isRecord(message) || message.type !== 'gemini') return false;
  const content = message.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('') : '';
  return text.trim() === COMPRESSION_ACK;
}

interface FoldedRecords {
  readonly file: FoldedFile;
  readonly stats: LineStats;
  readonly objects: number;
}

/** Fold the JSONL records of `path` from byte `start` into `fold`; the last line, when unterminated, is left to the caller. */
export async function foldRecords<M>(path: string, fold: RecordFold<M>, start: number): Promise<FoldedRecords> {
  const stats = newLineStats();
  let objects = 0;
  const file = await foldLines(path, start, (line) => {
    const value = parseJsonLine(line.bytes);
    if (isRecord(value)) {
      objects++;
      fold.add(value);
    } else if (line.bytes.length > 0 && line.bytes.some((byte) => byte !== 0x20 && byte !== 0x09)) {
      stats.malformed++;
    }
  });
  return { file, stats, objects };
}

/** Fold a last line still being written (or return it as partial). */
export function addPartial<M>(fold: RecordFold<M>, folded: FoldedRecords): number {
  if (folded.file.partial === null) return 0;
  const value = parseJsonLine(folded.file.partial.bytes);
  if (isRecord(value)) {
    fold.add(value);
    return 1;
  }
  if (folded.file.partial.bytes.length > 0) folded.stats.partial++;
  return 0;
}

/** A legacy `session-*.json`, one (pretty-printed) JSON object, folded whole; null when the file is not one. */
export async function foldLegacy<M>(path: string, take: (message: JsonObject) => M): Promise<RecordFold<M> | null> {
  const legacy = parseJsonLine(await readJsonDocument(path));
  if (!isRecord(legacy) || typeof legacy.sessionId !== 'string') return null;
  const whole = new RecordFold(take);
  whole.add({ ...legacy, projectHash: typeof legacy.projectHash === 'string' ? legacy.projectHash : '' });
  return whole;
}

interface ReadFile<M = JsonObject> {
  readonly record: GeminiRecord<M>;
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
  readonly fingerprint: string;
}

/** Fold one file whole (a JSONL log, or a legacy single JSON object), every message as its last record. */
export async function readGeminiFile(path: string): Promise<ReadFile> {
  const fold = new RecordFold((message) => message);
  const folded = await foldRecords(path, fold, 0);
  const objects = folded.objects + addPartial(fold, folded);
  const { file, stats } = folded;
  if (fold.sessionId === null || fold.projectHash === null) {
    const legacy = await foldLegacy(path, (message) => message);
    if (legacy !== null) return { record: legacy.result(), stats: newLineStats(), size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
    if (objects === 0) stats.malformed = Math.max(stats.malformed, 1);
  }
  return { record: fold.result(), stats, size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
}

/** The name a fork is written under, as Gemini CLI names a new session: `session-<minute, UTC>-<id8>.jsonl`. */
export function geminiSessionFileName(id: string, now: Date): string {
  return `session-${now.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`;
}
