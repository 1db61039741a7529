// Is a session still open in an agent? Resuming one that is gives two agents appending to one file (issue 27): before
// a resume, the CLI and the browser ask first when the session's file was written within the last minute or a
// running process holds it open.
import { existsSync } from 'node:fs';
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogSession } from '../catalog/scan.js';
import { ADAPTERS } from '../core/formats/index.js';
import { readRegularFile } from '../core/io/regular.js';
import { stripControl } from '../core/text.js';

/** Linux's process table, where open files are seen (macOS has none: only the write time is checked there). */
export const PROC_DIR = existsSync('/proc/self/fd') ? '/proc' : null;

/** Written this recently, a session is taken to be open in its agent. */
export const RECENT_WRITE_MS = 60_000;

export interface SessionInUse {
  /** A file of the session written within RECENT_WRITE_MS, and how long ago. */
  readonly recentWrite: { readonly path: string; readonly ageMs: number } | null;
  /** Running processes that hold a file of the session open (never this process). */
  readonly heldBy: readonly { readonly pid: number; readonly command: string }[];
}

export interface InUseOptions {
  readonly now?: number;
  /** The process table (`/proc` on Linux; tests give their own). Absent: nothing is held (macOS has no /proc). */
  readonly procDir?: string | null;
  /** Processes that do not count (this one). */
  readonly selfPid?: number;
}

/** What `sessionInUse` could check here, for the docs and `--help`: on Linux both, elsewhere the write time only. */
export function inUseChecks(procDir: string | null): string {
  return procDir === null ? 'when its files were last written (no /proc here: open files are not seen)' : `when its files were last written, and the open files of every process (${procDir})`;
}

/**
 * Whether `session` looks open in an agent on this machine, or null when it does not. Only a session kept in files
 * of its own is checked: a store shared by every conversation (opencode's database) is open whenever the agent runs,
 * whichever conversation it holds.
 */
export async function sessionInUse(session: Pick<CatalogSession, 'agent' | 'paths'>, options: InUseOptions = {}): Promise<SessionInUse | null> {
  if (ADAPTERS[session.agent].store !== undefined) return null;
  const now = options.now ?? Date.now();
  let recentWrite: SessionInUse['recentWrite'] = null;
  const wanted = new Set<string>();
  for (const path of session.paths) {
    const stats = await stat(path).catch(() => null);
    if (stats === null || !stats.isFile()) continue;
    wanted.add(await realpath(path).catch(() => path));
    // A time in the future is another clock's (a mount, a copy), not a writer's: no evidence either way.
    const ageMs = now - stats.mtimeMs;
    if (ageMs >= 0 && ageMs < RECENT_WRITE_MS && (recentWrite === null || ageMs < recentWrite.ageMs)) recentWrite = { path, ageMs };
  }
  const heldBy = options.procDir ? await processesHolding(wanted, options.procDir, options.selfPid ?? process.pid) : [];
  return recentWrite === null && heldBy.length === 0 ? null : { recentWrite, heldBy };
}

/** Processes whose open files (`<procDir>/<pid>/fd/*`) include one of `paths`; a process we may not look into is skipped. */
async function processesHolding(paths: ReadonlySet<string>, procDir: string, selfPid: number): Promise<{ pid: number; command: string }[]> {
  if (paths.size === 0) return [];
  const pids = (await readdir(procDir).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name) && Number(name) !== selfPid);
  const held: { pid: number; command: string }[] = [];
  for (const pid of pids) {
    const fdDir = join(procDir, pid, 'fd');
    const fds = await readdir(fdDir).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(join(fdDir, fd)).catch(() => null);
      if (target === null || !paths.has(target)) continue;
      held.push({ pid: Number(pid), command: await commandOf(procDir, pid) });
      break;
    }
  }
  return held;
}

/** The process's name (`comm`, at most 16 bytes, made by the kernel), read the one safe way. */
async function commandOf(procDir: string, pid: string): Promise<string> {
  const comm = await readRegularFile(join(procDir, pid, 'comm')).catch(() => null);
  return comm === null ? '?' : stripControl(comm.toString('utf8').trim()).slice(0, 64) || '?';
}

/** One line saying why the session looks open, for a question or a refusal. */
export function describeInUse(inUse: SessionInUse): string {
  const parts: string[] = [];
  if (inUse.heldBy.length > 0) parts.push(`open in ${inUse.heldBy.map((p) => `${p.command} (pid ${p.pid})`).join(', ')}`);
  if (inUse.recentWrite !== null) parts.push(`written ${Math.round(inUse.recentWrite.ageMs / 1000)} s ago`);
  return parts.join(', ');
}
