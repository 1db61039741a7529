// `sessions grep`'s text lines kept beside its walk memo (PrintedRows): a later grep prints the lines of unchanged files
// from them, and they are always the lines a grep without them prints: for another home, a changed file, a renamed
// session, a fork's family, --cwd and --agent, and when the kept file is cut. The built bin/sessions.js on copies of the
// fixture home.
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grepEngineEnv } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
/** In most of the fixture's sessions. */
const WORD = 'the';
const CODEX_FILE = join('.codex', 'sessions', '2026', '11', '22', 'rollout-2026-11-22T01-58-52-01a200fa-4b34-7413-b956-253dda01fe5a.jsonl');
/** Another Codex session, whose file is left as it is. */
const RENAMED_ID = '01a200fa-3a58-7971-88f2-72d291066439';

let sandbox: string;
let home: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-grep-printed-'));
  home = join(sandbox, 'home');
  await cp(FIXTURE_HOME, home, { recursive: true });
});
afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

/** `sessions ARGS` on the copied home, with its cache in `cache` (under the sandbox) and HOME `userHome`. */
function run(args: readonly string[], cache: string, userHome = sandbox): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args, '--home', home, '--claw-dir', join(home, 'src')],
      { cwd: sandbox, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: userHome, XDG_CACHE_HOME: join(sandbox, cache), XDG_CONFIG_HOME: join(sandbox, 'config'), ...grepEngineEnv() } },
      (error, stdout) => (error && (error as { code?: number }).code !== 1 ? reject(error) : resolve(stdout)),
    );
  });
}

const sorted = (text: string): string[] => text.split('\n').filter(Boolean).sort();

/** What a grep with no kept lines prints: in a cache of its own, after `list`, the first grep there. */
async function fresh(args: readonly string[], userHome = sandbox): Promise<string[]> {
  const cache = `fresh-${Math.random().toString(36).slice(2)}`;
  await run(['list', '--json', '--all'], cache, userHome);
  return sorted(await run(['grep', ...args], cache, userHome));
}

async function keptFiles(cache: string): Promise<string[]> {
  const dir = join(sandbox, cache, 'sessions');
  return (await readdir(dir)).filter((name) => name.endsWith('.printed.json')).map((name) => join(dir, name));
}

describe('grep keeps the lines it printed beside its walk memo', () => {
  it('prints the same lines from them, and for another home those of that home', async () => {
    await run(['list', '--json', '--all'], 'cache');
    const first = await run(['grep', WORD], 'cache');
    const kept = await keptFiles('cache');
    expect(kept).toHaveLength(1);
    // A header line, then a line a row.
    const [header, ...rows] = (await readFile(kept[0]!, 'utf8')).trimEnd().split('\n');
    expect((JSON.parse(header!) as { home: string }).home).toBe(sandbox);
    expect(rows.length).toBeGreaterThan(5);
    const later = await run(['grep', WORD], 'cache');
    expect(sorted(later)).toEqual(sorted(first));
    expect(sorted(later)).toEqual(await fresh([WORD]));
    // The fixture's cwds are under /home/dev: with that HOME they are printed with ~, never with the other home's lines.
    const devHome = sorted(await run(['grep', WORD], 'cache', '/home/dev'));
    expect(devHome.some((line) => line.endsWith('  ~/src/a-api-server'))).toBe(true);
    expect(devHome).toEqual(await fresh([WORD], '/home/dev'));
    expect(sorted(await run(['grep', WORD], 'cache'))).toEqual(sorted(first));
  });

  it('gives a changed file and a renamed session their new lines, and keeps a fork linked', async () => {
    await run(['list', '--json', '--all'], 'cache');
    const first = sorted(await run(['grep', WORD], 'cache'));
    expect(first.filter((line) => line.includes('[fork]')).length).toBeGreaterThan(0);
    const path = join(home, CODEX_FILE);
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    // Another turn (its first prompt again, a day later) in one session, a new name for another (its file unchanged).
    const prompt = lines.find((line) => line.includes('"type":"user_message"'));
    expect(prompt).toBeDefined();
    await appendFile(path, `${JSON.stringify({ ...(JSON.parse(prompt!) as object), timestamp: '2026-11-23T00:00:00.000Z' })}\n`);
    await appendFile(join(home, '.codex', 'session_index.jsonl'), `${JSON.stringify({ id: RENAMED_ID, thread_name: 'renamed by the test', updated_at: '2026-11-23T00:00:00Z' })}\n`);
    const changed = sorted(await run(['grep', WORD], 'cache'));
    const grown = (rows: readonly string[]): string | undefined => rows.find((line) => line.includes('01a200fa-4b34-7413-b956-253dda01fe5a'));
    expect(grown(changed)).not.toEqual(grown(first));
    expect(changed.find((line) => line.includes(RENAMED_ID))).toContain('renamed by the test');
    expect(changed).toEqual(await fresh([WORD]));
    expect(changed.filter((line) => line.includes('[fork]'))).toEqual(first.filter((line) => line.includes('[fork]')));
  });

  it('keeps a file that holds no conversation as none, and prints its row once it holds one', async () => {
    // A Claude file of file-history snapshots alone (no conversation), holding the word.
    const id = '5e1f0c2a-7d4b-4c3e-9a8f-0b1c2d3e4f50';
    const path = join(home, '.claude', 'projects', '-home-dev-src-a-api-server', `${id}.jsonl`);
    await writeFile(path, `${JSON.stringify({ type: 'file-history-snapshot', messageId: 'm1', snapshot: { messageId: 'm1', trackedFileBackups: { 'the-notes.md': {} }, timestamp: '2026-11-20T10:00:00.000Z' }, isSnapshotUpdate: false })}\n`);
    await run(['list', '--json', '--all'], 'cache');
    const first = sorted(await run(['grep', WORD], 'cache'));
    expect(first.some((line) => line.includes(id))).toBe(false);
    const [kept] = await keptFiles('cache');
    const none = (await readFile(kept!, 'utf8')).split('\n').find((line) => line.startsWith(`[${JSON.stringify(path)},`));
    expect(none).toMatch(/,null\]$/);
    expect(sorted(await run(['grep', WORD], 'cache'))).toEqual(first);
    // A prompt appended: its stamps change, its row is printed.
    const prompt = { parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: 'explain the notes' }, uuid: '7f3e2d1c-0b9a-4876-9543-210fedcba987', timestamp: '2026-11-20T10:01:00.000Z', cwd: '/home/dev/src/a-api-server', sessionId: id, version: '2.1.197', gitBranch: 'main' };
    await appendFile(path, `${JSON.stringify(prompt)}\n`);
    const later = sorted(await run(['grep', WORD], 'cache'));
    expect(later.filter((line) => line.includes(id))).toHaveLength(1);
    expect(later).toEqual(await fresh([WORD]));
  });

  it('filters by --cwd and --agent as without them, and ignores a cut file', async () => {
    await run(['list', '--json', '--all'], 'cache');
    await run(['grep', WORD], 'cache');
    for (const filter of [['--cwd', '/home/dev/src/a-api-server'], ['--agent', 'claude']]) {
      await run(['grep', WORD, ...filter], 'cache');
      const later = sorted(await run(['grep', WORD, ...filter], 'cache'));
      expect(later.length).toBeGreaterThan(0);
      expect(later).toEqual(await fresh([WORD, ...filter]));
    }
    for (const kept of await keptFiles('cache')) await truncate(kept, 100);
    expect(sorted(await run(['grep', WORD], 'cache'))).toEqual(await fresh([WORD]));
  });
});
