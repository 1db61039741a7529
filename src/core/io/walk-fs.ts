import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';

/**
 * The file system calls of discovery's folder walks (the adapters' `discover`, claw's workspace search, the root
 * checks). By default each is node:fs/promises' (run on libuv's threads: the event loop stays free while thousands
 * of folders are listed, as the browser needs). A command that only waits for the walk (`grep`) runs them
 * synchronously instead (`whileWalkingSynchronously`): the same calls and answers, at a fraction of the main
 * thread's time — a promise-based call costs it ~30 µs in callbacks, promises and garbage, the call itself a few.
 *
 * Discovery uses only what these answers say of a path's kind (file, directory, other, missing), a folder's entries
 * and a real path: a walk can record them (`recordWalkAnswers`), so that a later run knows whether the same walk
 * would find the same (see `walkAnswerHolds`).
 */
let synchronous = 0;

/** Run `work` with the walks' calls synchronous (every walk that runs meanwhile: the answers are the same). */
export async function whileWalkingSynchronously<T>(work: () => Promise<T>): Promise<T> {
  synchronous++;
  try {
    return await work();
  } finally {
    synchronous--;
  }
}

/**
 * One answer a walk rested on, checkable later with one system call:
 * - `['d', dir, mtimeMs, ino]`: the folder was listed; its entries are the same while its mtime and inode are
 *   (an entry added, removed or renamed changes its folder's mtime). mtimeMs is null when the folder changed in the
 *   last seconds: a change within the same clock tick would keep the mtime, so such an answer never holds.
 * - `['k', path, kind]`: what stat said of the path: `f` file, `d` directory, `o` other, `-` missing.
 * - `['r', path, real]`: its real path (null: it had none).
 */
export type WalkAnswer = readonly ['d', string, number | null, number] | readonly ['k', string, WalkKind] | readonly ['r', string, string | null];
export type WalkKind = 'f' | 'd' | 'o' | '-';

/** A folder modified this recently (ms) is not trusted to show a later change by its mtime. */
const SETTLED_MS = 2000;

let recorder: ((answer: WalkAnswer) => void) | null = null;

/** Record the answers of the walks from now on (null: stop). */
export function recordWalkAnswers(record: ((answer: WalkAnswer) => void) | null): void {
  recorder = record;
}

function kindOf(stats: Stats | undefined): WalkKind {
  return stats === undefined ? '-' : stats.isFile() ? 'f' : stats.isDirectory() ? 'd' : 'o';
}

/** Whether `answer` is still what the file system says (one stat or realpath call); false on any failure. */
export function walkAnswerHolds(answer: WalkAnswer): boolean {
  try {
    if (answer[0] === 'r') {
      let real: string | null = null;
      try {
        real = realpathSync.native(answer[1]);
      } catch {
        real = null;
      }
      return real === answer[2];
    }
    const stats = statSync(answer[1], { throwIfNoEntry: false });
    if (answer[0] === 'k') return kindOf(stats) === answer[2];
    return stats !== undefined && stats.isDirectory() && answer[2] !== null && stats.mtimeMs === answer[2] && stats.ino === answer[3];
  } catch {
    return false;
  }
}

export const walkFs = {
  /** A folder's entries with their types (readdir withFileTypes). */
  readdir(dir: string): Promise<Dirent[]> {
    if (synchronous === 0) return recorder === null ? readdir(dir, { withFileTypes: true }) : recordedReaddir(dir, recorder);
    try {
      // Stat before listing: a change after the stat moves the mtime past the one recorded.
      const stats = recorder === null ? undefined : statSync(dir, { throwIfNoEntry: false });
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        // A listing that failed fails again while the path is what it was (missing, a file); anything else is not recorded as holding.
        recorder?.(stats === undefined || !stats.isDirectory() ? ['k', dir, kindOf(stats)] : ['d', dir, null, 0]);
        throw error;
      }
      recorder?.(['d', dir, settledMtime(stats), stats?.ino ?? 0]);
      return Promise.resolve(entries);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  /** stat (symlinks followed). */
  stat(path: string): Promise<Stats> {
    if (synchronous === 0) {
      const record = recorder;
      if (record === null) return stat(path);
      return stat(path).then(
        (stats) => {
          record(['k', path, kindOf(stats)]);
          return stats;
        },
        (error: unknown) => {
          record((error as NodeJS.ErrnoException).code === 'ENOENT' ? ['k', path, '-'] : ['d', path, null, 0]);
          throw error;
        },
      );
    }
    try {
      // A missing path is most of what the root checks meet: no exception thrown for it inside Node.
      const stats = statSync(path, { throwIfNoEntry: false });
      recorder?.(['k', path, kindOf(stats)]);
      return stats === undefined ? Promise.reject(missing('stat', path)) : Promise.resolve(stats);
    } catch (error) {
      // Not recorded: an answer that cannot be checked the same way (permissions) makes the walk one to redo.
      recorder?.(['d', path, null, 0]);
      return Promise.reject(error);
    }
  },
  /** The real path (the native call, as fs/promises' realpath). */
  realpath(path: string): Promise<string> {
    if (synchronous === 0) {
      const record = recorder;
      if (record === null) return realpath(path);
      return realpath(path).then(
        (real) => {
          record(['r', path, real]);
          return real;
        },
        (error: unknown) => {
          record(['r', path, null]);
          throw error;
        },
      );
    }
    try {
      const real = realpathSync.native(path);
      recorder?.(['r', path, real]);
      return Promise.resolve(real);
    } catch (error) {
      recorder?.(['r', path, null]);
      return Promise.reject(error);
    }
  },
};

/** readdir, recording its answer: stat first (a change after it moves the mtime past the one recorded), then list. */
async function recordedReaddir(dir: string, record: (answer: WalkAnswer) => void): Promise<Dirent[]> {
  const stats = await stat(dir).catch(() => undefined);
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    record(stats === undefined || !stats.isDirectory() ? ['k', dir, kindOf(stats)] : ['d', dir, null, 0]);
    throw error;
  }
  record(['d', dir, settledMtime(stats), stats?.ino ?? 0]);
  return entries;
}

/** A listed folder's mtime as an answer: null when it changed too recently to be trusted (see WalkAnswer). */
function settledMtime(stats: Stats | undefined): number | null {
  return stats !== undefined && stats.isDirectory() && Date.now() - stats.mtimeMs >= SETTLED_MS ? stats.mtimeMs : null;
}

/** The error fs/promises rejects with for a missing path. */
function missing(syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), { errno: -2, code: 'ENOENT', syscall, path });
}
