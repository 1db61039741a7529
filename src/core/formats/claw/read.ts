/** Reading a conversation: its live file (and rotated ones) into a row or a transcript. */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { openRegular } from '../../io/regular.js';
import { clipJsonStrings, clipRawLine, SUMMARY_CLIP_LIMITS, unmarkMessages, withPromptLines, type ClipLimits } from '../../io/clip.js';
import { foldLines, indexReads, jsonObjects, newLineStats, readAt, readLines, readWholeFileSync, splitLines, type JsonLine, type RawLine } from '../../io/lines.js';
import { messageText, promptOpening, type ForkOrigin, type Session, type SessionSummary } from '../../model.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, IndexedSession, ReadSessionOptions, SessionFileGroup } from '../types.js';
import { ROTATED_NAME, workspaceOf } from './discovery.js';
import { addLegacyLayout, type LegacyLayout, scanLegacyHead } from './legacy.js';
import { addJsonlRecords, ClawDoc, recordKind } from './records.js';
import { fileStem, isoOf, livePath, msFromSessionName } from './values.js';

// ---------------------------------------------------------------------------------------------------------
// Reading

interface FileSizes {
  readonly size: number;
  readonly mtimeMs: number;
  /** Newest `.rot-<ms>` time among the group's rotated files. */
  readonly rotatedMs: number | null;
}

/** The row from every line of the live file; null when it holds no message at all. */
export async function readClawSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
  return (await indexClaw(group, context)).summary;
}

/**
 * The row, from a whole read of the live file with long strings clipped (claw rewrites a file past 256 KiB into
 * a snapshot and rotates it, and a legacy file is one object: a live file is small, and read whole when it changes).
 * Read synchronously: for the thousand files of a workspace tree, fs/promises' stat, open, read and close cost the
 * main thread more than the reading (as `foldLines` reads Codex's and Claude's files).
 */
export async function indexClaw(group: SessionFileGroup, context: AdapterContext): Promise<IndexedSession> {
  const live = livePath(group);
  const before = indexReads.bytes;
  const { doc, size, mtimeMs, fingerprint } = await indexLiveFile(live, SUMMARY_CLIP_LIMITS);
  const listed = doc.messageCount > 0;
  if (doc.malformed > 0) reportSkippedLines(context.report, live, { malformed: doc.malformed, partial: 0 }, listed);
  if (!listed) return { summary: null, fingerprint, bytesRead: indexReads.bytes - before };
  const unmarked = unmarkMessages(doc.messages);
  for (let i = 0; i < unmarked.length; i++) doc.messages[i] = unmarked[i]!;
  const sizes = groupSizes(group, size, mtimeMs);
  return { summary: summarize(group, doc, true, sizes), fingerprint, bytesRead: indexReads.bytes - before };
}

/** readLiveFile's document for the index (no records kept), with the live file's stamp and fingerprint as opened. */
async function indexLiveFile(path: string, clip: ClipLimits): Promise<{ readonly doc: ClawDoc; readonly size: number; readonly mtimeMs: number; readonly fingerprint: string }> {
  if (path.endsWith('.json')) {
    const { data, size, mtimeMs, fingerprint } = readWholeFileSync(path);
    return { doc: jsonFileDoc(new ClawDoc(), data, path, clip).doc, size, mtimeMs, fingerprint };
  }
  const lines = new LiveLines(false, clip);
  const file = await foldLines(path, 0, (line) => lines.add(line, path));
  if (file.partial !== null) lines.add(file.partial, path);
  return { doc: lines.finish().doc, size: file.size, mtimeMs: file.mtimeMs, fingerprint: file.fingerprint };
}

const USER_ROLE = Buffer.from('"role":"user"', 'latin1');

/** A user message (claw's tool results are `tool` messages): it may hold a prompt, which a display read keeps whole (clip.ts). */
function mayHoldPrompt(bytes: Buffer): boolean {
  return bytes.includes(USER_ROLE);
}

/** The whole live file: its transcript (rotated files hold older history the live snapshot already summarises). */
export async function readClawSession(group: SessionFileGroup, _context?: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
  const live = livePath(group);
  const { doc } = await readLiveFile(live, false, withPromptLines(options.clip, mayHoldPrompt));
  const { size, mtimeMs } = await stat(live);
  const sizes = groupSizes(group, size, mtimeMs);
  const messages = options.clip === undefined ? doc.messages : unmarkMessages(doc.messages);
  return { ...summarize(group, doc, true, sizes), messages, malformedLines: doc.malformed };
}

/** A full read of the live file, plus what a fork needs to copy it: its legacy object and its JSONL records. */
interface LiveFile {
  readonly doc: ClawDoc;
  /** A legacy object at the start of the file: the bytes it was scanned from and its layout. */
  readonly legacy: { readonly buf: Buffer; readonly layout: LegacyLayout } | null;
  /** JSONL records (after the legacy object, if any), with their raw bytes. */
  readonly records: readonly JsonLine[];
}

/** With `clip` (display only, never with `keepRecords`) long strings are cut before parsing. */
export async function readLiveFile(path: string, keepRecords: boolean, clip?: ClipLimits): Promise<LiveFile> {
  if (path.endsWith('.json')) {
    const handle = await openRegular(path);
    let buf: Buffer;
    try {
      buf = await readAt(handle, 0, (await handle.stat()).size);
    } finally {
      await handle.close();
    }
    return jsonFileDoc(new ClawDoc(), buf, path, clip);
  }
  const lines = new LiveLines(keepRecords, clip);
  // Clipped lines are copies: the chunk buffer can be reused.
  for await (const line of readLines(path, { reuseChunk: clip !== undefined })) lines.add(line, path);
  return lines.finish();
}

/** A `.json` live file's document from its bytes: a legacy object (and the lines appended after it), else JSONL. */
function jsonFileDoc(doc: ClawDoc, bytes: Buffer, path: string, clip: ClipLimits | undefined): LiveFile {
  const buf = clip !== undefined ? clipJsonStrings(bytes, clip) : bytes;
  const legacy = readLegacyBuffer(doc, buf, path);
  if (legacy) return { doc, legacy: { buf, layout: legacy.layout }, records: legacy.records };
  // Not a legacy object: claw then reads the file as JSONL, whatever its name.
  const stats = newLineStats();
  const records = [...jsonObjects(splitLines(buf), stats)];
  addJsonlRecords(doc, records, path);
  doc.malformed += stats.malformed + stats.partial;
  return { doc, legacy: null, records };
}

/** A JSONL live file's lines in order (the unterminated last one last) into its document. */
class LiveLines {
  private readonly doc = new ClawDoc();
  private readonly stats = newLineStats();
  private readonly records: JsonLine[] = [];
  private legacy: LiveFile['legacy'] = null;
  private first = true;

  constructor(
    private readonly keepRecords: boolean,
    private readonly clip: ClipLimits | undefined,
  ) {}

  add(line: RawLine, path: string): void {
    for (const record of jsonObjects([this.clip === undefined ? line : clipRawLine(line, this.clip)], this.stats)) {
      if (this.first) {
        this.first = false;
        const layout = recordKind(record.value) === 'legacy' ? scanLegacyHead(record.bytes, true) : null;
        if (layout?.messagesArray) {
          addLegacyLayout(this.doc, record.bytes, layout);
          this.legacy = { buf: record.bytes, layout };
          continue;
        }
      }
      addJsonlRecords(this.doc, [record], path);
      // A replay of a 200 MB file must not hold every line's bytes: only a fork needs them.
      if (this.keepRecords) this.records.push(record);
    }
  }

  finish(): LiveFile {
    this.doc.malformed += this.stats.malformed + this.stats.partial;
    return { doc: this.doc, legacy: this.legacy, records: this.records };
  }
}

/**
 * A legacy object read whole, plus the JSONL lines claw appends after it when it resumes a legacy file
 * (claw itself cannot read such a file back; we can). Null when `buf` does not start with a legacy object.
 */
function readLegacyBuffer(doc: ClawDoc, buf: Buffer, path: string): { layout: LegacyLayout; records: JsonLine[] } | null {
  const layout = scanLegacyHead(buf, true);
  if (!layout?.messagesArray) return null;
  addLegacyLayout(doc, buf, layout);
  if (!layout.complete) {
    doc.malformed++;
    return { layout, records: [] };
  }
  const stats = newLineStats();
  const records = [...jsonObjects(splitLines(buf.subarray(layout.end), layout.end), stats)];
  addJsonlRecords(doc, records, path);
  doc.malformed += stats.malformed + stats.partial;
  return { layout, records };
}

function groupSizes(group: SessionFileGroup, liveSize: number, liveMtime: number): FileSizes {
  let size = liveSize;
  let mtimeMs = liveMtime;
  let rotatedMs: number | null = null;
  for (const path of group.paths.slice(0, -1)) {
    const info = statSync(path);
    size += info.size;
    mtimeMs = Math.max(mtimeMs, info.mtimeMs);
    const rot = ROTATED_NAME.exec(basename(path));
    if (rot) rotatedMs = Math.max(rotatedMs ?? 0, Number(rot[2]));
  }
  return { size, mtimeMs, rotatedMs };
}

function summarize(group: SessionFileGroup, doc: ClawDoc, exact: boolean, sizes: FileSizes): SessionSummary {
  const path = livePath(group);
  const stem = fileStem(path);
  const id = doc.sessionId ?? stem;
  const prompts = doc.messages.filter((message) => message.userTurn).map((message) => promptOpening(messageText(message)));
  const firstPrompt = prompts[0] ?? null;
  const name = doc.fork?.branchName ?? null;
  const fromName = msFromSessionName(id) ?? msFromSessionName(stem);
  const createdMs = doc.createdAtMs ?? fromName ?? sizes.mtimeMs;
  // Appends do not rewrite session_meta, so newer prompt_history entries and rotations also say when it was used.
  const stamps = [doc.updatedAtMs, doc.latestPromptMs, sizes.rotatedMs].filter((ms): ms is number => ms !== null);
  const updatedMs = stamps.length > 0 ? Math.max(...stamps) : (fromName ?? sizes.mtimeMs);
  const fork: ForkOrigin | null = doc.fork ? { id: doc.fork.parentId, ...(doc.fork.branchName ? { branchName: doc.fork.branchName } : {}) } : null;
  return {
    id,
    agent: 'claw',
    path,
    paths: group.paths,
    cwd: doc.workspaceRoot ?? workspaceOf(path),
    title: name ?? (firstPrompt || '(no prompt)'),
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name,
    userTurns: prompts.length,
    userTurnsExact: exact,
    prompts,
    createdAt: isoOf(createdMs),
    updatedAt: isoOf(Math.max(updatedMs, createdMs)),
    forkedFrom: doc.fork?.parentId ?? null,
    fork,
    gitBranch: null,
    model: doc.model,
    archived: false,
    usage: doc.usage(),
    size: sizes.size,
    mtimeMs: sizes.mtimeMs,
  };
}
