/**
 * A pi session file (`@earendil-works/pi-coding-agent`, verified against 0.74.2's session-manager.js): a `session`
 * header (`version` 3, `id`, `timestamp`, `cwd`, `parentSession` = the source file's path for a fork), then entries
 * `{type, id, parentId, timestamp, …}` forming a tree. pi resumes at the last entry of the file: the conversation is
 * the path from it back to the root (`/tree` leaves other branches in the same file). Version 1 files have no ids:
 * pi chains their entries in file order, and so does this reader.
 */
import { basename } from 'node:path';
import { foldLines, newLineStats, parseJsonLine, type LineStats } from '../../io/lines.js';
import { isRecord, type JsonObject } from '../../json.js';
import type { SessionFileGroup } from '../types.js';
import { livePath } from '../group-files.js';
export { livePath };

/** `<ISO time with : and . as ->_<uuid v7>.jsonl`, the name pi gives a session file. */
const FILE_NAME = /_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** The session id a pi file name carries, or null (a file given to `pi --session PATH` may have any name). */
export function idFromFileName(path: string): string | null {
  return FILE_NAME.exec(basename(path))?.[1] ?? null;
}

export interface PiHeader {
  readonly id: string;
  readonly cwd: string | null;
  readonly timestamp: string | null;
  readonly parentSession: string | null;
}

export function headerOf(value: unknown): PiHeader | null {
  if (!isRecord(value) || value.type !== 'session' || typeof value.id !== 'string' || value.id.length === 0) return null;
  const text = (field: unknown): string | null => (typeof field === 'string' && field.length > 0 ? field : null);
  return { id: value.id, cwd: text(value.cwd), timestamp: text(value.timestamp), parentSession: text(value.parentSession) };
}

/** One entry of the tree: its line's parsed value and where the line is. */
export interface PiEntry {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  readonly value: JsonObject;
  readonly offset: number;
  /** The line's bytes, newline included (a fork copies them as they are). */
  readonly line: Buffer;
}

/**
 * Ids for entries as pi reads them: an entry's own `id`, or (version 1, no ids) one made from its place, its parent
 * being the entry before it, as pi's migration chains them.
 */
export class EntryIds {
  count = 0;
  previous: string | null = null;

  take(value: JsonObject): { id: string; parentId: string | null } | null {
    if (value.type === 'session') return null;
    this.count++;
    const own = typeof value.id === 'string' && value.id.length > 0 ? value.id : null;
    const id = own ?? `#${this.count}`;
    const parentId = own === null ? this.previous : typeof value.parentId === 'string' && value.parentId.length > 0 ? value.parentId : null;
    this.previous = id;
    return { id, parentId };
  }
}

export interface PiFile {
  readonly header: PiHeader | null;
  /** The header line as parsed (its keys in the file's order), when it is one. */
  readonly headerValue: JsonObject | null;
  /** Every entry, in file order. */
  readonly entries: readonly PiEntry[];
  readonly stats: LineStats;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Every line of a session file: the header and the entries (a last line without its newline yet is left out). */
export async function readPiFile(path: string): Promise<PiFile> {
  const entries: PiEntry[] = [];
  const stats = newLineStats();
  const ids = new EntryIds();
  let header: PiHeader | null = null;
  let headerValue: JsonObject | null = null;
  let first = true;
  const file = await foldLines(path, 0, (raw) => {
    if (raw.bytes.length === 0 || raw.bytes.every((byte) => byte === 0x20 || byte === 0x09)) return;
    const value = parseJsonLine(raw.bytes);
    if (!isRecord(value) || typeof value.type !== 'string') {
      stats.malformed++;
      return;
    }
    if (first) {
      header = headerOf(value);
      if (header !== null) headerValue = value;
    }
    first = false;
    const taken = ids.take(value);
    if (taken === null) return;
    entries.push({ ...taken, type: value.type, value, offset: raw.offset, line: Buffer.concat([raw.bytes, Buffer.from('\n')]) });
  });
  if (file.partial !== null) stats.partial++;
  return { header, headerValue, entries, stats, size: file.size, mtimeMs: file.mtimeMs };
}

/** The active branch, root first: the path from the last entry back through `parentId` (what pi resumes). */
export function activePath<T extends { readonly id: string; readonly parentId: string | null }>(entries: readonly T[]): T[] {
  return pathTo(entries, entries.at(-1));
}

/** The branch that ends at `leaf`, root first: the path from it back through `parentId`. */
export function pathTo<T extends { readonly id: string; readonly parentId: string | null }>(entries: readonly T[], leaf: T | undefined): T[] {
  const byId = new Map<string, T>();
  for (const entry of entries) byId.set(entry.id, entry);
  const path: T[] = [];
  const seen = new Set<string>();
  for (let current = leaf; current !== undefined && !seen.has(current.id); current = current.parentId === null ? undefined : byId.get(current.parentId)) {
    seen.add(current.id);
    path.push(current);
  }
  return path.reverse();
}

/** A message entry's message, or null. */
export function messageOf(value: JsonObject): JsonObject | null {
  return value.type === 'message' && isRecord(value.message) ? value.message : null;
}

/** The parts of a message's `content` (a string is one text part). */
export function contentParts(content: unknown): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The typed text of a user message's content (its text parts, joined by newlines). */
export function userText(message: JsonObject): string {
  return contentParts(message.content)
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

export function hasImage(message: JsonObject): boolean {
  return contentParts(message.content).some((part) => part.type === 'image');
}

/** A prompt the user typed: a `user` message with text or an image (tool results, bash runs and extension messages have other roles). */
export function isPiUserTurn(value: JsonObject): boolean {
  const message = messageOf(value);
  if (message === null || message.role !== 'user') return false;
  return userText(message).trim().length > 0 || hasImage(message);
}

/** The group of a session file found under a pi agent dir. */
export function piGroup(root: string, path: string): SessionFileGroup {
  return { agent: 'pi', paths: [path], idHint: idFromFileName(path), root, archived: false };
}

/** The custom type of the note a hand-off into pi starts with (a `custom_message`: pi sends it to the model). */
export const HANDOFF_CUSTOM_TYPE = 'sessions-handoff';

/** The source a hand-off note names (`details.source.id`), or null. */
export function handoffSourceOf(value: JsonObject): string | null {
  if (value.type !== 'custom_message' || value.customType !== HANDOFF_CUSTOM_TYPE || !isRecord(value.details)) return null;
  const source = value.details.source;
  return isRecord(source) && typeof source.id === 'string' && source.id.length > 0 ? source.id : null;
}
