import type { ClipLimits } from '../io/clip.js';
import type { Agent, Message, Session, SessionSummary } from '../model.js';

/** Something wrong with one file or directory: reported once, never fatal to a scan. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

export type ReportProblem = (problem: Problem) => void;

/** One conversation's files, as discovery found them (before any content is read). */
export interface SessionFileGroup {
  readonly agent: Agent;
  /** Oldest first; the last one is the live file a resume appends to. */
  readonly paths: readonly string[];
  /** The id the file name suggests (Codex/Claude names carry it), or null. */
  readonly idHint: string | null;
  /** The location root this came from (a CODEX_HOME, a Claude config dir, a claw workspace). */
  readonly root: string;
  /** Codex `archived_sessions/`. */
  readonly archived: boolean;
}

export interface AdapterContext {
  readonly report: ReportProblem;
  /** Files of another conversation of the same agent by id (Codex paginated forks read their parent). */
  readonly lookup: (agent: Agent, id: string) => SessionFileGroup | undefined;
  /** Codex thread names from `session_index.jsonl`, per CODEX_HOME root (newest wins). */
  readonly names: (root: string) => ReadonlyMap<string, string>;
  /** Files at least this big get their fold saved with the row (IndexedSession.resume); default: never. */
  readonly saveFoldFrom?: number;
}

/**
 * Where a saved fold stopped, and what it needs to go on: the live file's offset just past its last complete
 * line, and the adapter's own fold state (plain JSON, read back from disk: the adapter checks it).
 */
export interface FoldResume {
  readonly path: string;
  readonly offset: number;
  readonly state: unknown;
  /** The row the fold made (the cache keeps it anyway): a fold may keep counts where the row has the texts. */
  readonly row?: SessionSummary;
}

/** A row folded from every line, with what a later fold over appended bytes needs (absent: read it whole again). */
export interface IndexedSession {
  readonly summary: SessionSummary | null;
  readonly resume?: FoldResume;
  /** Fingerprint of the live file's first bytes when it was read (lines.ts headFingerprint). */
  readonly fingerprint?: string;
  /** Bytes of the live file this fold read (an appended read reads only what was appended). */
  readonly bytesRead: number;
}

/** How a transcript is read: exactly (the default: forks, exports, `show`) or clipped for display. */
export interface ReadSessionOptions {
  /**
   * Cut long JSON string values while reading, before they are decoded: a screen needs a few KiB of each tool
   * output, not all 200 MB of a session. Clipped blocks carry `clippedBytes`.
   */
  readonly clip?: ClipLimits;
  /**
   * Called once with the messages of the start of a big transcript, before the rest is read, so that a screen
   * can show them at once. Not called when the start cannot be shown on its own (a Codex fork whose history
   * lives in its parent's file, several segment files) or the file is small. The messages are replaced by the
   * returned session: later lines can still roll back turns or move Claude's active leaf.
   */
  readonly onPartial?: (messages: readonly Message[]) => void;
}

export interface ForkRequest {
  /** 1-based user turn to cut before: the fork keeps user turns 1..atTurn-1 and everything answering them. */
  readonly atTurn: number;
  readonly branchName?: string;
  readonly now?: Date;
}

export interface ForkResult {
  readonly agent: Agent;
  readonly id: string;
  readonly path: string;
  readonly parentId: string;
  readonly keptUserTurns: number;
}

export interface FormatAdapter {
  readonly agent: Agent;
  /** Find this agent's session files under one root, grouped one conversation per group. */
  discover(root: string, report: ReportProblem): Promise<SessionFileGroup[]>;
  /**
   * Group known files under `root` the way `discover` would, without walking the root (the watcher's path:
   * a few changed files in a home of thousands). Files that are not this agent's sessions are left out.
   */
  groupFiles?(root: string, paths: readonly string[]): SessionFileGroup[];
  /** The row, folded from every line of the files; null when the files hold no conversation. */
  readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null>;
  /**
   * The row and the fold's state, in one streaming pass over every line. With `resume` (a fold of the same live
   * file saved earlier, whose head is unchanged and which only grew), only the bytes after `resume.offset` are read.
   */
  indexSession(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession>;
  /** The whole active transcript (long strings clipped when `options.clip` is set). */
  readSession(group: SessionFileGroup, context: AdapterContext, options?: ReadSessionOptions): Promise<Session>;
  /** Write a new native session holding user turns 1..atTurn-1; the original files are never touched. */
  fork(group: SessionFileGroup, request: ForkRequest, context: AdapterContext): Promise<ForkResult>;
  /**
   * True for a line that is never conversation text, judged by its opening bytes (the agent's own records: request
   * shapes, system prompts): a full-text search must not match inside it.
   */
  isNonConversationLine?(opening: string): boolean;
  /**
   * What the JSON before a string looks like when the string is not conversation (system prompts, skill listings):
   * a full-text search's snippet shows a match elsewhere when there is one. Tested against the bytes just
   * before the string's opening quote.
   */
  readonly notConversation?: RegExp;
}
