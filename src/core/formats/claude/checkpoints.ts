/**
 * Claude Code's file checkpoints (`fork --with-code`, `show --files`): before a prompt's tool edits a file, Claude Code
 * copies it to `<config dir>/file-history/<session id>/<hash>@v<version>` and records, per prompt (the user message's
 * uuid), each tracked file's backup: `file-history-snapshot` lines (the whole set) and, since 2.1.3xx,
 * `file-history-delta` lines (one file added to a prompt's set). A null backup name: the file did not exist. Its
 * `/rewind` to a prompt sets every file the session tracked to that prompt's backup, or, for a file first tracked later,
 * to its first backup (version 1: as it was before the session touched it), and removes those recorded as absent
 * (read from Claude Code 2.1.330's own code). Interactive sessions record them; `-p` only with
 * CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1.
 */
import { isAbsolute, join, relative, sep } from 'node:path';
import { checkCodeTurn, errorCode, NoCodeError } from '../../errors.js';
import { newLineStats, readLines, jsonObjects } from '../../io/lines.js';
import { readRegularFile } from '../../io/regular.js';
import { isRecord, type JsonObject } from '../../json.js';
import type { CodeAtTurn, RecordedTurns, SessionFileGroup } from '../types.js';
import { fileStem, livePath } from '../group-files.js';
import { scanFile } from './scan.js';

/** One file's backup as a prompt's snapshot records it: the backup's name (null: the file did not exist) and version. */
export interface FileBackup {
  readonly backupFileName: string | null;
  readonly version: number;
}

/** The snapshots of a session: per prompt uuid, each tracked path's backup, in the order they were recorded. */
export type FileSnapshots = Map<string, Map<string, FileBackup>>;

/** Backup names Claude Code writes (a 16-hex hash of the path, @v, the version): nothing else is read from its folder. */
const BACKUP_NAME = /^[0-9a-f]{16}@v\d+$/;

function backupOf(value: unknown): FileBackup | null {
  if (!isRecord(value) || typeof value.version !== 'number' || !Number.isSafeInteger(value.version)) return null;
  const name = value.backupFileName;
  if (name === null) return { backupFileName: null, version: value.version };
  return typeof name === 'string' && BACKUP_NAME.test(name) ? { backupFileName: name, version: value.version } : null;
}

/** Fold one line into the snapshots (a snapshot line sets a prompt's set, a delta adds one file to it). */
export function addSnapshotLine(snapshots: FileSnapshots, value: Record<string, unknown>): void {
  if (value.type === 'file-history-snapshot' && isRecord(value.snapshot) && typeof value.messageId === 'string') {
    const files = new Map<string, FileBackup>();
    const tracked = value.snapshot.trackedFileBackups;
    if (isRecord(tracked)) {
      for (const [path, backup] of Object.entries(tracked)) {
        const read = backupOf(backup);
        if (read !== null) files.set(path, read);
      }
    }
    snapshots.set(value.messageId, files);
  } else if (value.type === 'file-history-delta' && typeof value.snapshotMessageId === 'string' && typeof value.trackingPath === 'string') {
    const read = backupOf(value.backup);
    if (read === null) return;
    const files = snapshots.get(value.snapshotMessageId) ?? new Map<string, FileBackup>();
    files.set(value.trackingPath, read);
    snapshots.set(value.snapshotMessageId, files);
  }
}

/** Every file-history line of a session file (only lines that open with one are parsed). */
export async function readSnapshots(path: string): Promise<FileSnapshots> {
  const snapshots: FileSnapshots = new Map();
  const stats = newLineStats();
  for await (const line of readLines(path)) {
    if (!line.bytes.subarray(0, 64).includes('"file-history-')) continue;
    for (const object of jsonObjects([line], stats)) addSnapshotLine(snapshots, object.value);
  }
  return snapshots;
}

/**
 * The backup each tracked file is rewound to for the prompt `messageId` (Claude Code's rewind): the prompt's own, else
 * the file's first backup (version 1) in any snapshot; a file with neither is left out.
 */
export function rewindBackups(snapshots: FileSnapshots, messageId: string): Map<string, FileBackup> {
  const own = snapshots.get(messageId) ?? new Map<string, FileBackup>();
  const out = new Map<string, FileBackup>();
  const tracked = new Set<string>();
  for (const files of snapshots.values()) for (const path of files.keys()) tracked.add(path);
  for (const path of tracked) {
    let backup = own.get(path);
    if (backup === undefined) {
      for (const files of snapshots.values()) {
        const first = files.get(path);
        if (first?.version === 1) {
          backup = first;
          break;
        }
      }
    }
    if (backup !== undefined) out.set(path, backup);
  }
  return out;
}

/** The files when user turn `atTurn` was typed: the branch's commit then, with the prompt's backups applied. */
export async function claudeCodeAt(group: SessionFileGroup, atTurn: number): Promise<CodeAtTurn> {
  const path = livePath(group);
  const { scan } = await scanFile(path);
  const prompts = scan.activeChain().filter((node) => node.userTurn);
  checkCodeTurn(atTurn, prompts.length);
  const prompt = prompts[atTurn - 1]!;
  const cwd = scan.cwd;
  if (cwd === null) throw new NoCodeError(`${path}: no cwd recorded, so no repository to take the files from`);
  const snapshots = await readSnapshots(path);
  if (!snapshots.has(prompt.uuid)) {
    throw new NoCodeError(
      `turn ${atTurn} has no file-history snapshot: Claude Code records them when file checkpointing is on (interactive sessions; claude -p only with CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1)`,
    );
  }
  const first = prompts[0]!.value;
  const branch = typeof first?.gitBranch === 'string' && first.gitBranch !== '' ? first.gitBranch : null;
  const started = scan.firstTimestamp === null ? null : new Date(scan.firstTimestamp);
  if (branch === null) throw new NoCodeError(`${cwd} was not a git repository when the session started (no branch recorded): there is no commit to start the worktree from`);
  if (started === null || Number.isNaN(started.getTime())) throw new NoCodeError(`${path}: no start time recorded, so the commit the session started from cannot be found`);
  const backups = join(group.root, 'file-history', fileStem(path));
  const files: { path: string; content: Buffer | null }[] = [];
  for (const [tracked, backup] of rewindBackups(snapshots, prompt.uuid)) {
    const target = isAbsolute(tracked) ? tracked : join(cwd, tracked);
    if (backup.backupFileName === null) {
      files.push({ path: target, content: null });
      continue;
    }
    try {
      files.push({ path: target, content: await readRegularFile(join(backups, backup.backupFileName)) });
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      throw new NoCodeError(`the backup of ${tracked} for turn ${atTurn} (${join(backups, backup.backupFileName)}) is gone: Claude Code removes a session's file history with its cleanup`);
    }
  }
  return {
    cwd,
    base: { kind: 'branch-at', branch, at: started },
    files,
    notes: ['files Claude Code did not edit through its own tools (a shell command\'s changes, changes made outside the session) are as they were in the commit the session started from'],
  };
}

/** Claude Code's file tools, and the input naming the file each edits. */
const FILE_TOOLS: Readonly<Record<string, string>> = { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };

/** The files an assistant line's tool calls edit. */
function editedFiles(value: JsonObject): string[] {
  const message = value.message;
  if (!isRecord(message) || !Array.isArray(message.content)) return [];
  const out: string[] = [];
  for (const block of message.content) {
    if (!isRecord(block) || block.type !== 'tool_use' || typeof block.name !== 'string' || !isRecord(block.input)) continue;
    const key = FILE_TOOLS[block.name];
    const file = key === undefined ? undefined : block.input[key];
    if (typeof file === 'string' && file !== '') out.push(file);
  }
  return out;
}

/** A path as the transcript names it: relative to the session's cwd when inside it. */
function shownPath(cwd: string | null, path: string): string {
  if (cwd === null || !isAbsolute(path)) return path;
  const inside = relative(cwd, path);
  return inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside) ? path : inside;
}

/**
 * Per prompt: a snapshot recorded, and the files it changed — those its file tools edited, and those whose backup
 * differs between its rewind and the next prompt's (what Claude Code backed up after the prompt's edits).
 */
export async function claudeTurns(group: SessionFileGroup): Promise<RecordedTurns> {
  const path = livePath(group);
  const { scan } = await scanFile(path);
  const cwd = scan.cwd;
  const snapshots = await readSnapshots(path);
  const turns: { uuid: string; changed: Set<string> }[] = [];
  for (const node of scan.activeChain()) {
    if (node.userTurn) turns.push({ uuid: node.uuid, changed: new Set() });
    else if (turns.length > 0 && node.value !== null && node.value.type === 'assistant') {
      for (const file of editedFiles(node.value)) turns.at(-1)!.changed.add(shownPath(cwd, file));
    }
  }
  for (let index = 0; index + 1 < turns.length; index++) {
    const { uuid, changed } = turns[index]!;
    const next = turns[index + 1]!.uuid;
    if (!snapshots.has(uuid) || !snapshots.has(next)) continue;
    const before = rewindBackups(snapshots, uuid);
    for (const [file, backup] of rewindBackups(snapshots, next)) {
      const was = before.get(file);
      if (was === undefined || was.version !== backup.version || was.backupFileName !== backup.backupFileName) changed.add(shownPath(cwd, isAbsolute(file) || cwd === null ? file : join(cwd, file)));
    }
  }
  return { cwd, turns: turns.map(({ uuid, changed }) => ({ recorded: snapshots.has(uuid), changed: [...changed].sort() })) };
}
