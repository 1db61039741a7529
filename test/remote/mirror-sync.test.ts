// A mirrored host (no `sessions` there) synced again over a real OpenSSH server (test/remote/sshd.ts): rsync says
// which files it copied, and only those are read. Files read are counted (the adapters' index calls and the bytes
// the index reads), never timed. Also: claw workspaces that only another session's cwd names are mirrored too.
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultCachePath } from '../../src/catalog/cache.js';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';
import { indexReads } from '../../src/core/io/lines.js';
import { HostSource, type HostContext } from '../../src/remote/host-source.js';
import { statePath } from '../../src/remote/mirror-state.js';
import { LOGIN_AS, sshAvailable, TestSshd } from './sshd.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURES = join(ROOT, 'test', 'fixtures');
const CODEX_DAY = '.codex/sessions/2026/11/22';
/** A Codex session with seven user turns. */
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
const CODEX_FILE = `${CODEX_DAY}/rollout-2026-11-22T01-44-46-01a200ed-60a4-7f10-a53c-15a9ecf122f3.jsonl`;
const OTHER_FILE = `${CODEX_DAY}/rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl`;
/** A Codex session that ran in a claw workspace the search of the home does not reach (5 levels down). */
const DEEP_ID = '01a200ed-60a4-7f10-a53c-15a9ecf1dee9';
const DEEP_DIR = 'deep/a/b/c/d/proj';
/** A claw workspace as deep, that no session ran in: `sessions` on the host does not find it either. */
const UNNAMED_DIR = 'other/a/b/c/d/proj';
const CLAW_FILE = join(FIXTURES, 'claw-synthetic/demo/.claw/sessions/session-1776300000000-0.jsonl');

const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`a mirror synced again: only what rsync copied is read, ${LOGIN_AS}`, () => {
  let dir: string;
  let sshd: TestSshd;
  let home: string;
  let context: HostContext;
  const sources: HostSource[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-mirror-sync-'));
    sshd = await TestSshd.start(join(dir, 'sshd'), [{ name: 'mirror-only', withSessions: false }], BIN);
    home = sshd.host('mirror-only').home;
    await mkdir(join(home, CODEX_DAY), { recursive: true });
    for (const file of [CODEX_FILE, OTHER_FILE]) await cp(join(FIXTURES, 'home', file), join(home, file), { preserveTimestamps: true });
    // A session that ran in a deep workspace holding claw sessions.
    const lines = (await readFile(join(home, CODEX_FILE), 'utf8')).split('\n');
    const meta = JSON.parse(lines[0]!) as { payload: { id: string; cwd: string } };
    meta.payload.id = DEEP_ID;
    meta.payload.cwd = join(home, DEEP_DIR);
    lines[0] = JSON.stringify(meta);
    await writeFile(join(home, CODEX_DAY, `rollout-2026-11-22T01-44-47-${DEEP_ID}.jsonl`), lines.join('\n'));
    for (const workspace of [DEEP_DIR, UNNAMED_DIR]) {
      await mkdir(join(home, workspace, '.claw', 'sessions'), { recursive: true });
      await cp(CLAW_FILE, join(home, workspace, '.claw', 'sessions', 'session-1776300000000-0.jsonl'), { preserveTimestamps: true });
    }
    await sshd.handOver();
    const env = { XDG_CACHE_HOME: join(dir, 'cache') };
    context = { settings: { ssh: sshd.ssh, connectTimeout: 5 }, cacheDir: join(dir, 'cache', 'sessions'), cachePathFor: (locations) => defaultCachePath(env, dir, locations) };
  }, 60_000);

  afterEach(() => {
    vi.restoreAllMocks();
    for (const source of sources.splice(0)) source.close();
  });

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A source as a new `sessions` process has it (the mirror, its cache and state on disk; nothing in memory). */
  function newSource(): HostSource {
    const source = new HostSource('mirror-only', context);
    sources.push(source);
    return source;
  }

  /** Every session file read by the index while `fn` runs: the adapters' calls, and the bytes read (fingerprints too). */
  async function reads(fn: () => Promise<void>): Promise<{ files: string[]; bytes: number }> {
    const spies = ADAPTER_LIST.map((adapter) => vi.spyOn(adapter, 'indexSession'));
    const before = indexReads.bytes;
    await fn();
    const files = spies.flatMap((spy) => spy.mock.calls.map((call) => call[0].paths.at(-1)!));
    for (const spy of spies) spy.mockRestore();
    return { files: files.map((path) => path.slice(path.indexOf(home))).sort(), bytes: indexReads.bytes - before };
  }

  it('syncs, then with nothing changed reads no file; a file changed on the host is the only one read again', async () => {
    const source = newSource();
    const first = await reads(() => source.load(false));
    expect(source.status).toEqual({ kind: 'ready', via: 'mirror', sessions: 4 });
    expect(first.files.length).toBeGreaterThanOrEqual(4);
    expect(existsSync(statePath(source.mirror!.dir))).toBe(true);
    const rows = source.sessions();

    // Nothing changed on the host: rsync copies nothing, nothing is read, the rows are the same objects.
    const noop = await reads(() => source.refresh());
    expect(noop).toEqual({ files: [], bytes: 0 });
    expect(source.status).toEqual({ kind: 'ready', via: 'mirror', sessions: 4 });
    expect(source.sessions()).toEqual(rows);

    // A new process (the state and the cache the last sync saved): nothing read either, the same rows.
    const fresh = newSource();
    const again = await reads(() => fresh.load(false));
    expect(again).toEqual({ files: [], bytes: 0 });
    expect(fresh.sessions()).toEqual(rows);

    // A turn appended on the host: that file is read again, no other, and its row has the new turn.
    const turns = rows.find((row) => row.id === CODEX_ID)!.userTurns;
    // The lines Codex wrote for its sixth prompt, written again for a new one.
    const prompt = '[a] step 6: continue with the next part of the migration plan, and list what changed';
    const sixth = (await readFile(join(home, CODEX_FILE), 'utf8')).split('\n').filter((line) => line.includes(prompt));
    expect(sixth.length).toBeGreaterThan(0);
    await appendFile(join(home, CODEX_FILE), sixth.map((line) => `${line.replaceAll(prompt, 'one more turn from the host')}\n`).join(''));
    const changed = await reads(() => fresh.refresh());
    expect(changed.files).toEqual([join(home, CODEX_FILE)]);
    expect(fresh.sessions().find((row) => row.id === CODEX_ID)).toMatchObject({ userTurns: turns + 1, lastPrompt: 'one more turn from the host', host: 'mirror-only' });

    // The first source (in memory: another process synced since) does not trust its own rows: it reads the mirror
    // again from the cache the other one saved, and has the new turn too, reading nothing.
    const behind = await reads(() => source.refresh());
    expect(behind).toEqual({ files: [], bytes: 0 });
    expect(source.sessions().find((row) => row.id === CODEX_ID)?.userTurns).toBe(turns + 1);
  });

  it('mirrors a claw workspace the search of the home does not reach when another session ran there, as sessions on the host finds it', async () => {
    const source = newSource();
    await source.load(false);
    const claw = source.sessions().filter((row) => row.agent === 'claw');
    expect(claw.map((row) => ({ id: row.id, cwd: row.cwd, path: row.path.slice(row.path.indexOf(home)) }))).toEqual([
      { id: 'session-1776300000000-0', cwd: join(home, DEEP_DIR), path: join(home, DEEP_DIR, '.claw/sessions/session-1776300000000-0.jsonl') },
    ]);
    const mirror = source.mirror!.dir;
    expect(existsSync(join(mirror, home, DEEP_DIR, '.claw/sessions/session-1776300000000-0.jsonl'))).toBe(true);
    // A workspace no session names is not copied (nor found by sessions on the host).
    expect(existsSync(join(mirror, home, UNNAMED_DIR))).toBe(false);
    // The workspace is part of every later sync: a new claw session there arrives with one rsync.
    const text = (await readFile(CLAW_FILE, 'utf8')).replaceAll('session-1776300000000-0', 'session-1776300000009-0');
    await writeFile(join(home, DEEP_DIR, '.claw/sessions/session-1776300000009-0.jsonl'), text);
    const changed = await reads(() => source.refresh());
    expect(changed.files).toEqual([join(home, DEEP_DIR, '.claw/sessions/session-1776300000009-0.jsonl')]);
    expect(source.sessions().filter((row) => row.agent === 'claw').map((row) => row.id).sort()).toEqual(['session-1776300000000-0', 'session-1776300000009-0']);
    // The state lost (a process killed mid-sync): a new process finds the workspace again, whose files the mirror
    // already holds (rsync copies nothing for it), and lists its sessions.
    await rm(statePath(mirror));
    const again = newSource();
    await again.load(false);
    expect(again.sessions().filter((row) => row.agent === 'claw').map((row) => row.id).sort()).toEqual(['session-1776300000000-0', 'session-1776300000009-0']);
  });
});
