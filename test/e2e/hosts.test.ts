// The browser over this machine and two "other machines" (a real sshd on 127.0.0.1, test/remote/sshd.ts): one
// with `sessions` on its PATH, one read through an rsync mirror, and one that refuses the key. Driven in tmux.
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sha256File, writtenAnHourAgo } from '../helpers/files.js';
import { LOGIN_AS, quote, sshAvailable, TestSshd } from '../remote/sshd.js';
import { FIXTURE_HOME, ROOT } from '../ui/helpers.js';
import { Terminal } from './tmux.js';

const BIN = join(ROOT, 'bin', 'sessions.js');
const API_HEALTH = '.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-42-01a200ed-500e-74e1-88bc-7c2f05604fd8.jsonl';
const AWKWARD_DIR = `work it's "$HOME" $(x)`;

// Missing OpenSSH or rsync fails these tests (TestSshd.start says what to install) unless SESSIONS_ALLOW_NO_SSH=1.
const describeSsh = sshAvailable() || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeSsh(`the browser with hosts over ssh, ${LOGIN_AS}`, () => {
  let dir: string;
  let sandbox: string;
  let sshd: TestSshd;
  let terminal: Terminal | null = null;

  async function open(): Promise<Terminal> {
    // A tmux server of its own in a folder of its own each time (a killed server may still hold the last socket).
    terminal = await Terminal.start({
      dir: await mkdtemp(join(sandbox, 'terminal-')),
      cwd: sandbox,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), SESSIONS_CONFIG: join(sandbox, 'config.json') },
      argv: [process.execPath, BIN, '--all', '--home', join(sandbox, 'local'), '--host', 'with-sessions', '--host', 'mirror-only', '--host', 'refused'],
      columns: 220,
      rows: 40,
    });
    return terminal;
  }

  async function exitCode(t: Terminal): Promise<number> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 25))) {
      try {
        return Number((await readFile(t.exitFile, 'utf8')).trim());
      } catch {
        // not exited yet
      }
    }
    throw new Error(`sessions did not exit; the screen shows:\n${await t.screen()}`);
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-e2e-hosts-'));
    sandbox = join(dir, 'sandbox');
    // This machine: one Claude session of its own.
    const project = join(sandbox, 'local', '.claude', 'projects', '-home-dev-src-a-web-ui');
    await mkdir(project, { recursive: true });
    await cp(join(FIXTURE_HOME, '.claude/projects/-home-dev-src-a-web-ui/637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl'), join(project, '637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl'));
    sshd = await TestSshd.start(join(dir, 'sshd'), [
      { name: 'with-sessions', withSessions: true },
      { name: 'mirror-only', withSessions: false },
    ], BIN);
    for (const host of sshd.hosts) {
      await cp(join(FIXTURE_HOME, '.codex'), join(host.home, '.codex'), { recursive: true });
      await mkdir(join(host.home, AWKWARD_DIR));
      // The Codex 0.89 session, recorded in a directory whose name needs quoting, with an id of its own.
      const source = join(FIXTURE_HOME, '.codex/sessions/2026/11/22/rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl');
      const lines = (await readFile(source, 'utf8')).split('\n');
      const meta = JSON.parse(lines[0]!) as { payload: { id: string; cwd: string } };
      meta.payload.id = '01a200fa-3a58-7971-88f2-72d29106bbbb';
      meta.payload.cwd = join(host.home, AWKWARD_DIR);
      lines[0] = JSON.stringify(meta);
      await writeFile(join(host.home, '.codex/sessions/2026/11/22/rollout-2026-11-22T01-58-49-01a200fa-3a58-7971-88f2-72d29106bbbb.jsonl'), lines.join('\n'));
      // A stand-in Codex on the host's PATH: records its argv and where it ran.
      await writeFile(
        join(host.bin, 'codex'),
        `#!/bin/sh\n${quote(process.execPath)} -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd(), tty: process.stdout.isTTY === true}))' ${quote(join(host.home, 'codex-called.json'))} "$@"\n`,
      );
      await chmod(join(host.bin, 'codex'), 0o755);
    }
    await writeFile(join(sandbox, 'config.json'), JSON.stringify({ ssh: sshd.ssh, connectTimeout: 5 }));
    await sshd.handOver();
  }, 60_000);

  afterEach(async () => {
    await terminal?.stop();
    terminal = null;
  });

  afterAll(async () => {
    await sshd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows this machine at once, adds each host as it answers with its status, and finds rows by host name', async () => {
    const t = await open();
    // The local row is there whatever the hosts do.
    await t.see('Make the sidebar collapsible');
    // Every host has answered (one refused), and this machine's row is still listed beside theirs.
    const statuses = /with-sessions: 10 sessions.*mirror-only: 10 sessions.*refused: unreachable: .*Permission denied \(publickey\)/;
    const screen = await t.waitFor((shown) => statuses.test(shown) && shown.includes('Make the sidebar collapsible'), 30_000);
    // host:path, a long path cut at its start, the host always shown.
    expect(screen).toContain(`with-sessions:…`);
    expect(screen).toContain(`${AWKWARD_DIR}  `);
    expect(screen).toMatch(/mirror-only:\S*a-api-server/);
    await t.type('mirror-only 0.89');
    const found = await t.see(/2 matching "mirror-only 0.89"/);
    const rows = found.split('\n').filter((line) => / codex .*codex 0\.89\.0/.test(line));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toContain('mirror-only:');
    await t.key('Escape');
    // The query cleared; a second Escape (quit) sent with the first would be read as one Alt-Escape.
    await t.see(/sessions · \d+ in all directories/);
    await t.key('Escape');
    expect(await exitCode(t)).toBe(0);
  }, 60_000);

  it('content search (Ctrl-G) finds text inside the hosts\' transcripts: the host\'s own grep, and the mirror', async () => {
    const t = await open();
    await t.waitFor((shown) => /with-sessions: \d+ sessions.*mirror-only: \d+ sessions/.test(shown), 30_000);
    await t.key('C-g');
    await t.type('Wall time: 0.27');
    // One Codex session of each host holds it, and its fork the turn it inherits; this machine's only session does not.
    await t.see(/4 sessions with "Wall time: 0.27" in transcripts(?! \(searching)/, 30_000);
    // The rows on screen get their snippets once read (a mirror's too: it is searched here).
    const found = await t.waitFor((screen) => (screen.match(/Wall time: 0\.27/g) ?? []).length >= 5, 30_000);
    const rows = found.split('\n').filter((line) => / codex /.test(line) && /Wall time: 0\.27/.test(line));
    expect(rows).toHaveLength(4);
    expect(rows.filter((row) => row.includes('with-sessions:'))).toHaveLength(2);
    expect(rows.filter((row) => row.includes('mirror-only:'))).toHaveLength(2);
    expect(rows.filter((row) => row.includes('⋔'))).toHaveLength(2);
    await t.key('Right');
    await t.see(/"Wall time: 0\.27" 1\/\d+/, 30_000);
  }, 60_000);

  for (const name of ['with-sessions', 'mirror-only']) {
    it(`forks a session of ${name} before turn 3: the fork is written on that host, the original untouched`, async () => {
      const home = sshd.host(name).home;
      const original = join(home, API_HEALTH);
      const before = await sha256File(original);
      const forksOf = async (): Promise<string[]> => {
        const files = (await readdir(join(home, '.codex', 'sessions'), { recursive: true })).filter((f) => f.endsWith('.jsonl'));
        const found: string[] = [];
        for (const file of files) {
          if ((await readFile(join(home, '.codex', 'sessions', file), 'utf8')).includes('"forked_from_id":"01a200ed-500e-74e1-88bc-7c2f05604fd8"')) found.push(file);
        }
        return found.sort();
      };
      const forksBefore = await forksOf();
      const t = await open();
      await t.see(new RegExp(`${name}: 10 sessions`), 30_000);
        await t.type(`${name} api-health`);
      await t.see(new RegExp(`1 matching "${name} api-health"`));
      await t.key('Right');
      await t.see('turn 1/5', 20_000);
      await t.key(']');
      await t.see('turn 2/5');
      await t.key(']');
      await t.see('turn 3/5');
      await t.key('f');
      await t.see('Fork before turn 3');
      await t.key('Enter');
      const done = await t.see(/resume it: ssh .* -t .*-- \S+ ('?)cd \/home\/dev\/src\/a-api-server && exec/, 20_000);
      expect(done).toContain('forked before turn 3 (kept 2 turns)');
      await t.key('Escape'); // nothing typed: quit
      expect(await exitCode(t)).toBe(0);
      // One new file on the host, forked from api-health (the fixture holds an older fork of it).
      const forks = await forksOf();
      expect(forks).toHaveLength(forksBefore.length + 1);
      expect(forks.filter((file) => !forksBefore.includes(file))).toHaveLength(1);
      expect(await sha256File(original)).toBe(before);
    }, 60_000);

    it(`hands a session of ${name} off to Claude Code (Tab in the fork prompt): the new session is written on that host`, async () => {
      const home = sshd.host(name).home;
      const original = join(home, API_HEALTH);
      const before = await sha256File(original);
      const claudeFiles = async (): Promise<string[]> => (await readdir(join(home, '.claude'), { recursive: true }).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort();
      const filesBefore = await claudeFiles();
      const t = await open();
      await t.see(new RegExp(`${name}: 1\\d sessions`), 30_000);
        await t.type(`${name} api-health`);
      await t.see(new RegExp(`1 matching "${name} api-health"`));
      await t.key('Right');
      await t.see('turn 1/5', 20_000);
      await t.key(']');
      await t.key(']');
      await t.see('turn 3/5');
      await t.key('f');
      await t.see('Fork before turn 3');
      await t.key('Tab');
      await t.see('Hand off to claude before turn 3');
      await t.key('Enter');
      const done = await t.see(/resume it: ssh .* -t .*-- \S+ .*claude .*--resume/, 20_000);
      expect(done).toContain('handed off to claude before turn 3 (kept 2 turns)');
      await t.key('Escape'); // nothing typed: quit
      expect(await exitCode(t)).toBe(0);
      const added = (await claudeFiles()).filter((file) => !filesBefore.includes(file));
      expect(added).toHaveLength(1);
      const written = await readFile(join(home, '.claude', added[0]!), 'utf8');
      expect(written).toContain('01a200ed-500e-74e1-88bc-7c2f05604fd8'); // the note names the source session
      expect(await sha256File(original)).toBe(before);
    }, 60_000);

    it(`resumes a session of ${name} there, in its recorded directory, with a terminal`, async () => {
      const home = sshd.host(name).home;
      await rm(join(home, 'codex-called.json'), { force: true });
      // Written an hour ago, as a session no agent has open is: one written in the last minute is asked about first.
      await writtenAnHourAgo(join(home, '.codex'));
      const t = await open();
      await t.see(new RegExp(`${name}: 1\\d sessions`), 30_000);
        // The id's whole last group: a short one ('bbbb') is found in other rows too with one letter missing (a fork's
      // random id can hold 'bbb').
      await t.type(`${name} 72d29106bbbb`);
      await t.see(new RegExp(`1 matching "${name} 72d29106bbbb"`));
      await t.key('Enter');
      expect(await exitCode(t)).toBe(0);
      const called = JSON.parse(await readFile(join(home, 'codex-called.json'), 'utf8')) as { argv: string[]; cwd: string; tty: boolean };
      expect(called).toEqual({ argv: ['resume', '01a200fa-3a58-7971-88f2-72d29106bbbb'], cwd: join(home, AWKWARD_DIR), tty: true });
    }, 60_000);
  }

  it('live: a host with sessions streams a new session in; a mirrored host shows one after the menu\'s h re-syncs it', async () => {
    const t = await open();
    const first = await t.see(/with-sessions: (\d+) sessions.*mirror-only: (\d+) sessions/, 30_000);
    const [, streamed, mirrored] = /with-sessions: (\d+) sessions.*mirror-only: (\d+) sessions/.exec(first)!;
    const source = join(FIXTURE_HOME, '.codex/sessions/2026/11/22/rollout-2026-11-22T01-58-48-01a200fa-3a58-7971-88f2-72d291066439.jsonl');
    const copy = (id: string): Promise<string> => readFile(source, 'utf8').then((text) => text.replaceAll('01a200fa-3a58-7971-88f2-72d291066439', id));
    await writeFile(join(sshd.host('with-sessions').home, '.codex/sessions/2026/11/22/rollout-2026-11-22T02-00-00-01a200fa-3a58-7971-88f2-72d29106dddd.jsonl'), await copy('01a200fa-3a58-7971-88f2-72d29106dddd'));
    await t.see(`with-sessions: ${Number(streamed) + 1} sessions`, 20_000);
    await writeFile(join(sshd.host('mirror-only').home, '.codex/sessions/2026/11/22/rollout-2026-11-22T02-00-00-01a200fa-3a58-7971-88f2-72d29106eeee.jsonl'), await copy('01a200fa-3a58-7971-88f2-72d29106eeee'));
    await t.key('Tab');
    await t.see('read the hosts again');
    await t.key('h');
    await t.see(`mirror-only: ${Number(mirrored) + 1} sessions`, 20_000);
    await t.key('Escape');
    expect(await exitCode(t)).toBe(0);
  }, 60_000);
});
