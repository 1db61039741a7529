import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { openNewFile } from '../core/io/atomic.js';
import { INDEX_FILE_MAX_BYTES, readRegularFile, SMALL_FILE_MAX_BYTES } from '../core/io/regular.js';
import { AGENTS, type Agent } from '../core/model.js';

/**
 * What the last sync of a mirror left, beside the mirror (`<mirror>.state.json`): written only once its rows were
 * indexed and the catalog cache saved, removed before the next rsync starts. While it is there, the mirror holds
 * exactly what that cache says (only a sync writes a mirror, under `withMirrorLock`): the next sync reads only the
 * files its rsync says it copied.
 */
export interface MirrorState {
  /** Who wrote it: a process that still holds the rows it indexed then goes on from them when this is unchanged. */
  readonly token: string;
  /** The catalog cache saved with it (null: none, `--no-cache`; then only the process that wrote it can go on). */
  readonly cache: string | null;
  /** The host folders, per agent, whose sessions are mirrored besides the agents' roots (claw workspaces other sessions ran in). */
  readonly workspaces: Readonly<Partial<Record<Agent, readonly string[]>>>;
}

const STATE_VERSION = 1;

export function statePath(mirrorDir: string): string {
  return `${mirrorDir}.state.json`;
}

export function lockPath(mirrorDir: string): string {
  return `${mirrorDir}.lock`;
}

export function newToken(): string {
  return randomBytes(8).toString('hex');
}

export async function readMirrorState(mirrorDir: string): Promise<MirrorState | null> {
  try {
    const value = JSON.parse((await readRegularFile(statePath(mirrorDir), INDEX_FILE_MAX_BYTES)).toString('utf8')) as Record<string, unknown>;
    if (value.version !== STATE_VERSION || typeof value.token !== 'string') return null;
    if (value.cache !== null && typeof value.cache !== 'string') return null;
    const workspaces = value.workspaces;
    if (typeof workspaces !== 'object' || workspaces === null) return null;
    for (const [agent, dirs] of Object.entries(workspaces)) {
      if (!(AGENTS as readonly string[]).includes(agent) || !Array.isArray(dirs) || !dirs.every((dir) => typeof dir === 'string' && dir.startsWith('/'))) return null;
    }
    return { token: value.token, cache: value.cache, workspaces: workspaces as MirrorState['workspaces'] };
  } catch {
    return null;
  }
}

/** Written whole (temp + rename): a reader sees the old state, the new one, or none. */
export async function writeMirrorState(mirrorDir: string, state: MirrorState): Promise<void> {
  const path = statePath(mirrorDir);
  const temp = `${path}.tmp-${process.pid}`;
  await writeFile(temp, JSON.stringify({ version: STATE_VERSION, ...state }), { mode: 0o600 });
  await rename(temp, path);
}

export async function clearMirrorState(mirrorDir: string): Promise<void> {
  await unlink(statePath(mirrorDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** How often a sync waiting for another process's sync of the same mirror looks again. */
const LOCK_POLL_MS = 200;

/**
 * Run `fn` while no other `sessions` process syncs the same mirror (the browser's timer and a `list` in another
 * terminal): a lock file holding the holder's pid and machine, made with O_EXCL. A lock whose process is gone
 * (killed mid-sync) is taken over; one held by a live process is waited for.
 */
export async function withMirrorLock<T>(mirrorDir: string, fn: () => Promise<T>): Promise<T> {
  const path = lockPath(mirrorDir);
  const me = `${process.pid} ${hostname()}`;
  for (;;) {
    try {
      const handle = await openNewFile(path);
      try {
        await handle.writeFile(me);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await holderGone(path)) {
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
  try {
    return await fn();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}

/** True when the lock's holder is a process of this machine that no longer runs (or the file is not a lock). */
async function holderGone(path: string): Promise<boolean> {
  let text: string;
  try {
    text = (await readRegularFile(path, SMALL_FILE_MAX_BYTES)).toString('utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'; // gone already: the next try takes it
  }
  const match = /^(\d+) (.*)$/s.exec(text);
  // Written by `open` then `writeFile`: an empty file is a lock being taken right now.
  if (match === null) return text.length > 0;
  if (match[2] !== hostname()) return false;
  const pid = Number(match[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The files an rsync run with `--out-format=%i %n` says it copied (lines `>f… name`: a file received), as paths in
 * `dest`. rsync writes a name's unprintable bytes, and a backslash before `#`, as `\#ooo` (octal). Null when a line
 * cannot be read back into a name (the caller then looks at every file).
 */
export function copiedFiles(stdout: string, dest: string): string[] | null {
  const out: string[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^>f\S{9} (.+)$/.exec(line);
    if (match === null) continue;
    const name = unescapeRsyncName(match[1]!);
    if (name === null) return null;
    out.push(join(dest, name));
  }
  return out;
}

function unescapeRsyncName(text: string): string | null {
  if (!text.includes('\\#')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; ) {
    if (text.startsWith('\\#', i)) {
      const octal = /^[0-7]{3}/.exec(text.slice(i + 2, i + 5));
      if (octal === null) return null;
      bytes.push(parseInt(octal[0], 8));
      i += 5;
      continue;
    }
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    bytes.push(...Buffer.from(char, 'utf8'));
    i += char.length;
  }
  const buffer = Buffer.from(bytes);
  const name = buffer.toString('utf8');
  // A name that is not UTF-8 cannot be named back in a string.
  return Buffer.from(name, 'utf8').equals(buffer) ? name : null;
}
