/** A Copilot CLI session's folder: its events.jsonl and its workspace.yaml. */
import type { Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { walkFs } from '../../io/walk-fs.js';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { errorCode } from '../../errors.js';
import { UUID_PATTERN } from '../../ids.js';
import { isRecord } from '../../json.js';
import { isKind, readRegularFile, SMALL_FILE_MAX_BYTES } from '../../io/regular.js';
import type { ReportProblem, SessionFileGroup } from '../types.js';

export const SESSION_STATE = 'session-state';
export const EVENTS = 'events.jsonl';
export const WORKSPACE = 'workspace.yaml';
export const SESSION_FOLDER = new RegExp(`^${UUID_PATTERN.source}$`, 'i');

// ---------------------------------------------------------------------------------------------------------
// Files

/** Every session folder under `<root>/session-state/` that holds an events.jsonl, one group each. */
export async function discoverCopilot(root: string, report: ReportProblem): Promise<SessionFileGroup[]> {
  const state = join(root, SESSION_STATE);
  let entries: Dirent[];
  try {
    entries = await walkFs.readdir(state);
  } catch (error) {
    const code = errorCode(error);
    // A session-state that is a symlink to nothing hides every session: said, not taken for an empty home.
    if (code === 'ENOENT' && (await danglingLink(state))) report({ path: state, message: 'not read: a symlink to a missing target' });
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    report({ path: state, message: `cannot read: ${code ?? String(error)}` });
    return [];
  }
  const groups: SessionFileGroup[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const folder = join(state, entry.name);
    if (!(await isKind(folder, entry, 'directory'))) {
      if (entry.isSymbolicLink() && SESSION_FOLDER.test(entry.name)) report({ path: folder, message: 'not listed: a symlink to a missing target' });
      continue;
    }
    const events = join(folder, EVENTS);
    if (!(await isFile(events))) {
      if (await danglingLink(events)) report({ path: events, message: 'not listed: a symlink to a missing target' });
      continue;
    }
    if (!SESSION_FOLDER.test(entry.name)) {
      // Copilot CLI names each session's folder by its UUID and resumes by it: another name is no session it can resume.
      report({ path: folder, message: 'not listed: a session folder whose name is not a UUID (Copilot CLI names and resumes each session by its UUID)' });
      continue;
    }
    groups.push(makeGroup(root, folder, (await isFile(join(folder, WORKSPACE))) ? [join(folder, WORKSPACE), events] : [events]));
  }
  return groups;
}

/** The groups these paths belong to (events.jsonl or workspace.yaml of a session folder under `root`). */
export function groupCopilotFiles(root: string, paths: readonly string[]): SessionFileGroup[] {
  const folders = new Map<string, Set<string>>();
  const state = join(root, SESSION_STATE);
  for (const path of paths) {
    const name = basename(path);
    const folder = dirname(path);
    if ((name !== EVENTS && name !== WORKSPACE) || dirname(folder) !== state || !SESSION_FOLDER.test(basename(folder))) continue;
    const names = folders.get(folder) ?? new Set<string>();
    names.add(name);
    folders.set(folder, names);
  }
  const groups: SessionFileGroup[] = [];
  for (const [folder, names] of folders) {
    // A session is its events file: a workspace.yaml alone (being written first) is not one yet.
    if (!names.has(EVENTS)) continue;
    groups.push(makeGroup(root, folder, names.has(WORKSPACE) ? [join(folder, WORKSPACE), join(folder, EVENTS)] : [join(folder, EVENTS)]));
  }
  return groups;
}

function makeGroup(root: string, folder: string, paths: readonly string[]): SessionFileGroup {
  return { agent: 'copilot', paths, idHint: basename(folder).toLowerCase(), root, archived: false };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await walkFs.stat(path)).isFile();
  } catch {
    return false;
  }
}

export function eventsPath(group: SessionFileGroup): string {
  const path = group.paths.at(-1);
  if (path === undefined || basename(path) !== EVENTS) throw new Error('a Copilot session group has no events.jsonl');
  return path;
}

export function workspacePath(group: SessionFileGroup): string | null {
  const path = group.paths.length > 1 ? group.paths[0]! : null;
  return path !== null && basename(path) === WORKSPACE ? path : null;
}

// ---------------------------------------------------------------------------------------------------------
// workspace.yaml: Copilot CLI writes flat `key: value` lines; read with a YAML parser (quotes, escapes, comments)

export type Workspace = Readonly<Record<string, string>>;

/**
 * The top-level scalars of a workspace.yaml, each as its text (YAML's failsafe schema: `false` is "false", `0` is
 * "0", as Copilot CLI's own values are compared). Nested values are left out; a file that is not YAML gives none.
 */
export function parseWorkspaceYaml(text: string): Workspace {
  const document = yamlParser().parseDocument(text, { schema: 'failsafe', uniqueKeys: false });
  if (document.errors.length > 0) return {};
  const value: unknown = document.toJS();
  if (!isRecord(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, scalar] of Object.entries(value)) if (typeof scalar === 'string') out[key] = scalar;
  return out;
}

/**
 * The YAML parser, loaded on the first workspace.yaml read: imported with the module, its evaluation was ~10 ms of
 * every command's start (`grep`, `list` from the cache), which never read one.
 */
let yaml: typeof import('yaml') | null = null;
function yamlParser(): typeof import('yaml') {
  return (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
}

/** A value as YAML: plain when that reads back the same, else double-quoted (JSON strings are valid YAML). */
export function yamlValue(value: string): string {
  const plain = /^[^\s'"{}[\],&*#?|<>=!%@`-][^#]*$/.test(value) && !/:\s|:$|\s$/.test(value) && !/^(?:true|false|null|~|yes|no|on|off|[-+.\d][\d._:eE+-]*)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

export async function readWorkspace(group: SessionFileGroup): Promise<Workspace | null> {
  const path = workspacePath(group);
  if (path === null) return null;
  try {
    return parseWorkspaceYaml((await readRegularFile(path, SMALL_FILE_MAX_BYTES)).toString('utf8'));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/** Whether `path` is a symlink whose target is not there. */
async function danglingLink(path: string): Promise<boolean> {
  try {
    if (!(await lstat(path)).isSymbolicLink()) return false;
  } catch {
    return false;
  }
  try {
    await walkFs.stat(path);
    return false;
  } catch {
    return true;
  }
}
