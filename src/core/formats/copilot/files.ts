/** A Copilot CLI session's folder: its events.jsonl and its workspace.yaml. */
import type { Dirent } from 'node:fs';
import { walkFs } from '../../io/walk-fs.js';
import { basename, dirname, join } from 'node:path';
import { errorCode } from '../../errors.js';
import { UUID_PATTERN } from '../../ids.js';
import { readRegularFile } from '../../io/regular.js';
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
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    report({ path: state, message: `cannot read: ${code ?? String(error)}` });
    return [];
  }
  const groups: SessionFileGroup[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.isDirectory() || !SESSION_FOLDER.test(entry.name)) continue;
    const folder = join(state, entry.name);
    const events = join(folder, EVENTS);
    if (!(await isFile(events))) continue;
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
// workspace.yaml (flat `key: value` lines; values plain, 'single' or "double" quoted)

export type Workspace = Readonly<Record<string, string>>;

export function parseWorkspaceYaml(text: string): Workspace {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*):(?:\s+(.*))?$/.exec(line);
    if (!match) continue;
    const raw = (match[2] ?? '').trim();
    out[match[1]!] = yamlScalar(raw);
  }
  return out;
}

function yamlScalar(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
    try {
      return String(JSON.parse(raw));
    } catch {
      return raw.slice(1, -1);
    }
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1).replace(/''/g, "'");
  // A plain scalar ends before a comment.
  return raw.replace(/\s+#.*$/, '');
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
    return parseWorkspaceYaml((await readRegularFile(path)).toString('utf8'));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}
