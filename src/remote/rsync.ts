// What a mirror's rsync said, in the user's words: a transfer that was partial (exit 23 or 24: a folder the host's
// user cannot read, a file deleted while it was copied) keeps what arrived and names what did not; a disk that filled
// up here says so and where (rsync's last words are then about the broken pipe that follows). And whether the rsync
// here can keep the host's paths away from the host's shell at all.
import { safeLine } from '../core/text.js';
import { hostPath } from './mirror-layout.js';
import { failureReason, runCommand, type RunResult } from './ssh.js';

/** rsync's exit codes for a transfer that went through in part: some files not transferred (23), some vanished (24). */
const PARTIAL = new Set([23, 24]);

/** A file or folder a partial sync did not copy, as a path on the host, with rsync's reason. */
export interface NotCopied {
  readonly path: string;
  readonly why: string;
}

export type RsyncOutcome =
  | { readonly kind: 'done'; readonly notCopied: readonly NotCopied[] }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * How a mirror's rsync into `mirrorDir` ended: done (whole, or partial with what was not copied named), or failed with
 * one line that says why. A full disk here (ENOSPC, a quota) fails whatever the exit code, naming the file.
 */
export function rsyncOutcome(result: RunResult, mirrorDir: string): RsyncOutcome {
  const lines = result.stderr.split(/\r?\n/);
  const full = lines.find((line) => /No space left on device|Disk quota exceeded/.test(line));
  if (full !== undefined && !result.stopped) {
    const where = quotedPath(full);
    const what = /quota/i.test(full) ? 'the disk quota here is used up' : "this machine's disk is full";
    return { kind: 'failed', reason: safeLine(`${what}: no space left writing ${where ?? `the mirror in ${mirrorDir}`}`) };
  }
  if (result.code === 0) return { kind: 'done', notCopied: [] };
  if (result.code === null || !PARTIAL.has(result.code)) return { kind: 'failed', reason: failureReason(result, 'rsync failed') };
  const notCopied: NotCopied[] = [];
  for (const line of lines) {
    const path = /^(?:rsync: |file has vanished: )/.test(line) ? quotedPath(line) : null;
    if (path === null) continue;
    const why = /^file has vanished/.test(line) ? 'deleted on the host while it was copied' : (/: ([^:]+?)(?: \(\d+\))?$/.exec(line)?.[1] ?? 'not copied');
    notCopied.push({ path: hostPath(mirrorDir, path), why: safeLine(why) });
  }
  return { kind: 'done', notCopied };
}

/** The first double-quoted path in one of rsync's messages (`opendir "/x" failed: …`). */
function quotedPath(line: string): string | null {
  const match = /"([^"]+)"/.exec(line);
  return match ? safeLine(match[1]!) : null;
}

let checked: Promise<string | null> | null = null;

/**
 * Null when the `rsync` on PATH can send the host's paths over its protocol (`-s`, `--protect-args`, rsync 3.0 and
 * later), or why it cannot: openrsync (macOS 15's rsync) and rsync 2.6.9 (older macOS) have no `-s`, so a path from
 * a session file would reach the host's shell. Asked once per process.
 */
export function rsyncCannotProtectArgs(): Promise<string | null> {
  checked ??= runCommand(['rsync', '--version']).then((result) => {
    if (result.code !== 0 && result.stdout === '') return `rsync cannot be run here: ${failureReason(result, 'rsync --version failed')}`;
    const first = safeLine(result.stdout.split('\n').find((line) => line.trim() !== '') ?? '');
    const version = /version (\d+)\.(\d+)/.exec(result.stdout);
    if (/openrsync/i.test(result.stdout) || (version !== null && Number(version[1]) < 3)) {
      return `the rsync here (${first}) cannot keep the host's paths from its shell (no --protect-args): install rsync 3 or later first on PATH (macOS: brew install rsync)`;
    }
    return null;
  });
  return checked;
}
