// Every command and the TUI over a hostile home (test/hostile/home.ts): exit codes, no hang, nothing written
// but the fork asked for, originals byte-identical, and no control sequence from the data in any output.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Terminal } from '../e2e/tmux.js';
import { buildHostileHome, churnContent, EVIL_BRANCH, EVIL_CWD, IDS, startChurningFile, type HostileHome } from './home.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
/** A command that takes longer than this is hung (a FIFO opened for reading blocks forever). */
const HANG_MS = 20_000;

interface Run {
  readonly args: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let sandbox: string;
let terminal: Terminal | null = null;
let stopChurning: (() => Promise<void>) | null = null;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-hostile-'));
});
afterEach(async () => {
  await terminal?.stop();
  terminal = null;
  await stopChurning?.();
  stopChurning = null;
  await rm(sandbox, { recursive: true, force: true });
});

function environment(h: HostileHome, configHome = h.configHome): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: h.root, XDG_CACHE_HOME: h.cacheHome, XDG_CONFIG_HOME: configHome };
}

function run(h: HostileHome, args: readonly string[], configHome?: string): Promise<Run> {
  const argv = [...args, '--home', h.home, '--claw-dir', h.clawDir];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...argv], { cwd: h.work, env: environment(h, configHome), timeout: HANG_MS, killSignal: 'SIGKILL', maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error && (error as { killed?: boolean }).killed) reject(new Error(`sessions ${args.join(' ')} hung (killed after ${HANG_MS} ms)`));
      else resolve({ args, code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/* eslint-disable no-control-regex -- control characters are what these tests look for */
/** Anything a terminal would act on, hide, or reorder: C0 (but tab and newline), DEL, C1, bidi and zero-width. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;
/* eslint-enable no-control-regex */

function expectClean(label: string, text: string): void {
  const at = text.search(CONTROL);
  expect(at, `${label}: control character U+${text.codePointAt(at)?.toString(16).padStart(4, '0')} at ${at} in ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`).toBe(-1);
}

/** Every entry under `dir` (symlinks not followed): type, and the SHA-256 of each regular file. */
async function snapshot(dir: string, skip: ReadonlySet<string>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string): Promise<void> => {
    if (skip.has(path)) return;
    const stats = await lstat(path);
    const key = relative(dir, path) || '.';
    if (stats.isSymbolicLink()) out.set(key, `link ${await readlink(path)}`);
    else if (stats.isDirectory()) {
      out.set(key, 'dir');
      for (const name of await readdir(path)) await walk(join(path, name));
    } else if (stats.isFile()) {
      const data = await readFile(path).catch(() => null);
      out.set(key, data === null ? `unreadable ${stats.size}` : createHash('sha256').update(data).digest('hex'));
    } else out.set(key, `special ${stats.mode.toString(8)}`);
  };
  await walk(dir);
  return out;
}

describe('a hostile home', () => {
  it('every command and the TUI: exit codes, no hang, only the asked-for fork written, originals intact, no control sequence from the data', async () => {
    const h = await buildHostileHome(sandbox, { fifos: true });
    const rollout = (time: string, id: string): string => join(h.home, '.codex', 'sessions', '2026', '11', '20', `rollout-2026-11-20T${time}-${id}.jsonl`);
    // The cache is ours to rewrite (the TUI saves it, replacing the FIFOs put there); everything else must stay.
    const skip = new Set([h.cacheHome, join(sandbox, 'tmux.sock'), join(sandbox, 'launch.sh'), join(sandbox, 'tmux.conf'), join(sandbox, 'exit-code')]);
    // A rollout rewritten (truncated, cut mid-line, regrown) the whole time the commands run: theirs, not ours.
    const churning = join(h.home, '.codex', 'sessions', '2026', '11', '20', 'rollout-2026-11-20T10-00-10-0aa00000-0000-7000-8000-0000000000cc.jsonl');
    for (const path of [churning, `${churning}.churning`, `${churning}.stop`]) skip.add(path);
    const before = await snapshot(sandbox, skip);
    stopChurning = await startChurningFile(churning, churnContent());

    const runs: Run[] = [];
    const expectRun = async (args: readonly string[], code: number, check?: (r: Run) => void): Promise<Run> => {
      const result = await run(h, args);
      expect(result.code, `sessions ${args.join(' ')}\n${result.stderr}`).toBe(code);
      check?.(result);
      runs.push(result);
      return result;
    };

    // Listing and searching: every hostile session is a row; garbage is not.
    await expectRun(['list', '--all'], 0, (r) => {
      expect(r.stdout).toContain(IDS.evilCodex);
      expect(r.stdout).toContain(IDS.codexOption); // listed, even though it can never be resumed
      expect(r.stdout).not.toContain('000000000005'); // 150 KB of garbage named like a rollout
      expect(r.stdout).not.toContain('(no prompt)');
    });
    const json = await expectRun(['list', '--all', '--json'], 0);
    const rows = JSON.parse(json.stdout) as { id: string; cwd: string | null; gitBranch: string | null }[];
    // JSON stays exact: the hostile cwd and branch are there byte for byte (JSON escapes them).
    expect(rows.find((row) => row.id === IDS.evilCodex)).toMatchObject({ cwd: EVIL_CWD, gitBranch: EVIL_BRANCH });
    await expectRun(['grep', 'gnp.exe'], 0, (r) => expect(r.stdout).toContain(IDS.evilCodex));
    await expectRun(['grep', '-i', 'AMBIGUOUS', '--json'], 0, (r) => expect(r.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id).sort()).toEqual([IDS.ambiguousA, IDS.ambiguousB]));

    // Transcripts in every format; the JSON one exact.
    for (const id of [IDS.evilCodex, '0bb00000-0000-4000-8000-000000000001', IDS.evilClaw, '0aa00000-0000-7000-8000-000000000007']) {
      await expectRun(['show', id], 0);
      await expectRun(['show', id, '--format', 'md'], 0);
    }
    await expectRun(['show', IDS.evilCodex, '--format', 'json'], 0, (r) => expect((JSON.parse(r.stdout) as { cwd: string }).cwd).toBe(EVIL_CWD));
    // Errors that print data: the ambiguous prefix lists both candidates' titles, a FIFO is no session.
    await expectRun(['show', 'deadbeef'], 1, (r) => expect(r.stderr).toMatch(/matches 2 sessions[\s\S]*ambiguous A[\s\S]*ambiguous B/));
    await expectRun(['show', rollout('10-00-09', '0aa00000-0000-7000-8000-000000000009')], 1);

    // Ids that are options or placeholders never reach an argv: listed, not resumable, not forkable.
    await expectRun(['resume', IDS.evilCodex, '--dry-run'], 0, (r) => expect(r.stdout).toMatch(/^cd \$'\/tmp\/x\\x1b\]0;PWNED-TITLE\\x07.*' && (?:CODEX_HOME=\S+ )?codex resume 0aa00000-0000-7000-8000-000000000001\n$/));
    for (const path of [
      rollout('10-00-03', IDS.codexOptionFile),
      rollout('10-00-04', IDS.placeholderFile),
      join(h.home, '.claude', 'projects', '-tmp-x', `${IDS.claudeOption}.jsonl`),
      join(h.clawDir, 'ws', '.claw', 'sessions', 'session-1776000000001-0.jsonl'),
    ]) {
      await expectRun(['resume', path, '--dry-run'], 1, (r) => expect(r.stderr).toMatch(/its id is not (a UUID|session-<digits>)/));
      await expectRun(['resume', path, '--dry-run', '--json'], 1);
      await expectRun(['fork', path, '--at', '2'], 1, (r) => expect(r.stderr).toMatch(/not resumed or forked/));
    }

    // A fork asked for is written; a named one fails before writing anything (the index is a FIFO) and says where.
    const forked = await expectRun(['fork', IDS.evilCodex, '--at', '2'], 0);
    const forkPath = forked.stdout.trim().split('\n')[1]!;
    await expectRun(['fork', IDS.evilCodex, '--at', '2', '--name', 'named'], 1, (r) => expect(r.stderr).toContain(`cannot write ${join(h.home, '.codex', 'session_index.jsonl')}: not a regular file`));

    for (const r of runs) {
      if (!r.args.includes('--json') && !r.args.includes('json')) expectClean(`stdout of ${r.args.join(' ')}`, r.stdout);
      expectClean(`stderr of ${r.args.join(' ')}`, r.stderr);
    }

    // The TUI: rows, preview, notice line and the `!` view paint; nothing from the data acts on the terminal.
    terminal = await Terminal.start({
      dir: sandbox,
      cwd: h.work,
      env: environment(h),
      argv: [process.execPath, BIN, '--all', '--home', h.home, '--claw-dir', h.clawDir],
      columns: 120,
      rows: 30,
      tmuxConfig: ['set -g set-clipboard on'],
    });
    // Rows stream in as they are read (claw's after the others'): the screen to check is the one with both kinds.
    const screen = await terminal.waitFor((text) => text.includes('ambiguous B') && /claw .*fix the \ufffdgnp\.exe bug/.test(text), HANG_MS);
    await terminal.see(/not a regular file \(a FIFO\)/);
    const lines = screen.split('\n');
    expect(lines[0]).toMatch(/^sessions · /); // a clear screen or a cursor move from the data would have moved it
    // Columns stay aligned: the bidi override and zero-width runs neither reorder nor narrow a title.
    const cwdColumn = (needle: RegExp): number => lines.find((line) => needle.test(line))!.search(/\/tmp\//);
    expect(cwdColumn(/codex .*fix the \ufffdgnp\.exe bug/)).toBe(cwdColumn(/ambiguous A/));
    expect(cwdColumn(/claw .*fix the \ufffdgnp\.exe bug/)).toBe(cwdColumn(/ambiguous B/));
    await terminal.key('Tab');
    await terminal.see(/scan problems \(\d+\)/);
    await terminal.key('!');
    await terminal.see(/problems? while scanning/);
    const styled = await terminal.styledScreen();
    // capture-pane -e re-renders cells with SGR only: any other sequence, or an OSC, is not from tmux.
    expect(styled.replace(/\u001b\[[0-9;:]*m/g, '')).not.toContain('\u001b'); // eslint-disable-line no-control-regex
    expect(await terminal.title()).not.toContain('PWNED');
    expect(await terminal.buffers()).toBe('');
    await terminal.key('Escape');
    // Two Escapes read together are one Meta-Escape: send the second (quit, nothing typed) once the list is back.
    await terminal.waitFor((text) => !/problems? while scanning/.test(text) && text.includes('ambiguous B'), HANG_MS);
    await terminal.key('Escape');
    expect(await waitForExit(terminal.exitFile)).toBe('0');
    await terminal.stop();

    // A warm start paints the first screen from the cache the first run saved (over its FIFOs): no escapes either.
    await rm(join(sandbox, 'exit-code'), { force: true });
    terminal = await Terminal.start({
      dir: sandbox,
      cwd: h.work,
      env: environment(h),
      argv: [process.execPath, BIN, '--all', '--home', h.home, '--claw-dir', h.clawDir],
      columns: 120,
      rows: 30,
      tmuxConfig: ['set -g set-clipboard on'],
    });
    await terminal.waitFor((screen) => /^sessions · /.test(screen) && screen.includes('ambiguous B'), HANG_MS);
    expect(await terminal.title()).not.toContain('PWNED');
    expect(await terminal.buffers()).toBe('');
    await terminal.key('Escape');
    expect(await waitForExit(terminal.exitFile)).toBe('0');
    await stopChurning();
    stopChurning = null;

    // Nothing written but the fork asked for; originals byte-identical (FIFOs and links untouched).
    const after = await snapshot(sandbox, skip);
    const added = [...after.keys()].filter((key) => !before.has(key));
    const changed = [...before.keys()].filter((key) => after.get(key) !== before.get(key));
    const forkKey = relative(sandbox, forkPath);
    expect(changed).toEqual([]);
    // the fork and the date folders created for it
    expect(added.filter((key) => !forkKey.startsWith(`${key}/`))).toEqual([forkKey]);
  }, 120_000);
});

async function waitForExit(path: string): Promise<string> {
  const deadline = Date.now() + HANG_MS;
  while (Date.now() < deadline) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim() !== '') return text.trim();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the TUI did not exit after q');
}
