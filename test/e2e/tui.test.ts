// The built `sessions` browser in a real terminal (tmux) on a copy of the fixture home, driven as a user would.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { access, chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writtenAnHourAgo } from '../helpers/files.js';
import { moveRecordedCwd } from '../helpers/gone-cwd.js';
import { FIXTURE_HOME, ROOT } from '../ui/helpers.js';
import { Terminal } from './tmux.js';

const exec = promisify(execFile);
const BIN = join(ROOT, 'bin', 'sessions.js');
/** The sample home (`npm run sample`): every agent's sessions. */
const SAMPLE_HOME = join(ROOT, 'examples', 'home');
const AGENT_NAMES = ['codex', 'claude', 'claw', 'copilot', 'gemini', 'qwen', 'opencode', 'kilo'];

let sandbox: string;
let home: string;
let agents: string;
/** Where `sessions` runs: a directory no session ran in, so the browser starts with all of them. */
let work: string;
let terminal: Terminal | null = null;

interface ShownMessage {
  readonly role: string;
  readonly userTurn: boolean;
  readonly blocks: readonly { readonly type: string; readonly text?: string }[];
}

function environment(): Record<string, string> {
  return {
    // The stand-in agents first; never the machine's own ~/.codex, ~/.claude, config or cache.
    PATH: `${agents}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: sandbox,
    XDG_CACHE_HOME: join(sandbox, 'cache'),
    XDG_CONFIG_HOME: join(sandbox, 'config'),
  };
}

async function open(columns = 100, rows = 30, at = home): Promise<Terminal> {
  terminal = await Terminal.start({
    dir: sandbox,
    cwd: work,
    env: environment(),
    argv: [process.execPath, BIN, '--home', at, '--claw-dir', join(at, 'src')],
    columns,
    rows,
  });
  return terminal;
}

async function show(id: string): Promise<ShownMessage[]> {
  const { stdout } = await exec(process.execPath, [BIN, 'show', id, '--format', 'json', '--home', home, '--claw-dir', join(home, 'src')], {
    cwd: work,
    env: environment(),
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(stdout) as { messages: ShownMessage[] }).messages;
}

/** The user prompts and the assistant's words, turn by turn (what "the first two turns and their answers" means). */
function conversation(messages: readonly ShownMessage[]): string[] {
  return messages
    .filter((message) => message.userTurn || message.role === 'assistant')
    .map((message) => `${message.userTurn ? 'user' : 'assistant'}: ${message.blocks.map((block) => block.text ?? `[${block.type}]`).join(' ')}`);
}

/** Every file under `dir` dated an hour back: a session written in the last minute is taken to be open in an agent. */
/** Every file under `dir` and a hash of its bytes. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path, createHash('sha256').update(await readFile(path)).digest('hex'));
  }
  return files;
}

/** A stand-in for every agent, first on PATH: run, it records its name and argv in `ran` (so a test can see it never ran). */
async function standInAgents(ran: string): Promise<void> {
  for (const name of AGENT_NAMES) {
    await writeFile(join(agents, name), `#!/bin/sh\nprintf '%s\\n' ${name} "$@" >> ${JSON.stringify(ran)}\necho "stand-in ${name} ran"\n`);
    await chmod(join(agents, name), 0o755);
  }
}

async function exitCode(t: Terminal): Promise<number> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 25))) {
    try {
      return Number((await readFile(t.exitFile, 'utf8')).trim());
    } catch {
      // not exited yet
    }
  }
  throw new Error(`sessions did not exit; the screen shows:\n${await t.screen()}`);
}

beforeAll(async () => {
  await access(join(ROOT, 'dist', 'cli.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  });
});

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-e2e-'));
  home = join(sandbox, 'home');
  agents = join(sandbox, 'agents');
  work = join(sandbox, 'work');
  await cp(FIXTURE_HOME, home, { recursive: true });
  await mkdir(agents);
  await mkdir(work);
});

afterEach(async () => {
  await terminal?.stop();
  terminal = null;
  await rm(sandbox, { recursive: true, force: true });
});

describe('sessions list in a terminal', () => {
  it('starts with a header line naming the columns (a pipe gets rows only)', async () => {
    terminal = await Terminal.start({ dir: sandbox, cwd: work, env: environment(), argv: [process.execPath, BIN, 'list', '--all', '--home', home], columns: 220, rows: 40 });
    // Wait for the header and the row after it (the capture may land between the two writes).
    const screen = await terminal.see(/^agent +updated +turns +id +title +cwd\n\S/m);
    const lines = screen.split('\n');
    const header = lines.findIndex((line) => line.startsWith('agent '));
    expect(lines[header + 1]).toMatch(/^(codex|claude|claw) +\d{4}-\d\d-\d\d \d\d:\d\d +\d+\+? +\S+ {2}/);
  });
});

describe('sessions (the browser) in a terminal', () => {
  it('search, open, fork before turn 3, quit: the fork holds exactly the first two turns and their answers', async () => {
    const t = await open();
    await t.see('19 in all directories');
    await t.type('api-health');
    const listed = await t.see(/\d+ matching "api-health" in all directories/);
    expect(listed.split('\n')[1]).toMatch(/^› codex .*api-health/);

    await t.key('Right');
    await t.see('turn 1/5');
    await t.key(']');
    await t.see('turn 2/5');
    await t.key(']');
    await t.see('turn 3/5');
    await t.key('f');
    await t.see('Fork before turn 3: [a] why did the auth test fail?');
    await t.key('Enter');
    // The command to copy, whole (wrapped, not cut), with the home the fork was written to.
    const done = await t.see(/resume it: cd \/home\/dev\/src\/a-api-server && CODEX_HOME=(\S+)\s+codex\s+resume\s+[0-9a-f-]{36}/);
    expect(done).toContain('forked before turn 3 (kept 2 turns)');
    expect(/CODEX_HOME=(\S+)/.exec(done)![1]).toBe(join(home, '.codex'));
    const id = /codex\s+resume\s+([0-9a-f-]{36})/.exec(done)![1]!;
    await t.see(`id     ${id}`); // the fork is the selected row

    await t.key('Escape'); // nothing typed: quit
    expect(await exitCode(t)).toBe(0);

    const parent = conversation(await show('api-health'));
    const fork = conversation(await show(id));
    const thirdTurn = parent.findIndex((line, i) => line.startsWith('user:') && parent.slice(0, i).filter((l) => l.startsWith('user:')).length === 2);
    expect(thirdTurn).toBeGreaterThan(0);
    expect(fork).toEqual(parent.slice(0, thirdTurn));
    expect(fork.filter((line) => line.startsWith('user:'))).toHaveLength(2);
  });

  it('words match on their own: `request server` lists the request-lifecycle sessions first, and → at once opens the top row', async () => {
    const t = await open(140, 30);
    await t.see('19 in all directories');
    await t.type('request server');
    const listed = await t.see(/\d+ matching "request server"/);
    const rows = listed.split('\n');
    expect(rows[1]).toMatch(/^› claude .*Explain the request lifecycle/);
    expect(rows[2]).toMatch(/^ {2}claude .*Explain the request lifecycle/);
    await t.see('· live');

    // A better match arrives while the query is on screen (an agent writes a new session): it goes to the
    // top, and so does the selection, since the user did not move it. Enter opens it.
    const id = '7e57e57e-2222-4222-8333-944455556666';
    const dir = join(home, '.claude', 'projects', '-tmp-live');
    await mkdir(dir, { recursive: true });
    const now = new Date().toISOString();
    const line = (value: object): string => `${JSON.stringify(value)}\n`;
    await writeFile(
      join(dir, `${id}.jsonl`),
      line({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: 'request server' }, uuid: 'u-1', timestamp: now, cwd: '/tmp/live', sessionId: id, version: '2.1.197' }) +
        line({ parentUuid: 'u-1', isSidechain: false, type: 'assistant', message: { id: 'm-1', role: 'assistant', model: 'stand-in', content: [{ type: 'text', text: 'the freshest answer' }] }, uuid: 'a-1', timestamp: now, cwd: '/tmp/live', sessionId: id }),
    );
    const moved = await t.see(/^› claude .*request server/m);
    expect(moved.split('\n')[2]).toMatch(/^ {2}claude .*Explain the request lifecycle/);
    await t.key('Right');
    await t.see('the freshest answer');
  });

  it('fzf syntax in the browser: an excluded word and an OR', async () => {
    const t = await open();
    await t.see('19 in all directories');
    await t.type("'lifecycle !fork");
    const one = await t.see(/1 matching "'lifecycle !fork"/);
    // the fork's title says [fork]: only its parent is left
    expect(one.split('\n')[1]).toMatch(/^› claude .*Explain the request lifecycle.* 3$/);
    await t.key('C-u');
    await t.type('sidebar | caching');
    const two = await t.see(/2 matching "sidebar \| caching"/);
    expect(two).toContain('Make the sidebar collapsible');
    expect(two).toContain('Write a long design note about caching');
  });

  it('find in a transcript: each / starts empty, Ctrl-U clears, a 2/5 counter, the current match marked apart', async () => {
    const t = await open(100, 40);
    await t.see('19 in all directories');
    await t.type('api-health');
    await t.see(/\d+ matching "api-health"/);
    await t.key('Right');
    await t.see('turn 1/5');
    await t.key('/');
    await t.see('find: ');
    await t.type('test');
    await t.key('Enter');
    const first = await t.see(/"test" 1\/\d+/);
    const total = Number(/"test" 1\/(\d+)/.exec(first)![1]);
    expect(total).toBeGreaterThan(2);
    await t.key('n');
    await t.see(`"test" 2/${total}`);
    // the current match has a background of its own (cyan), the others the match color (yellow)
    const styled = await t.styledScreen();
    const marked = (background: number): number => (styled.match(new RegExp(`\u001b\\[[0-9;]*${background}[0-9;]*m[^\u001b]*test`, 'gi')) ?? []).length;
    expect(marked(46)).toBe(1);
    expect(marked(43)).toBeGreaterThan(0);
    // a new / starts empty: "auth" is found, not "testauth"
    await t.key('/');
    await t.type('xyz');
    await t.see('find: xyz');
    await t.key('C-u');
    await t.waitFor((screen) => !screen.includes('find: xyz'));
    await t.type('auth');
    await t.key('Enter');
    const auth = await t.see(/"auth" 1\/\d+/);
    expect(auth).not.toContain('not found');
  });

  it('content search: Ctrl-G searches inside every transcript, rows show the match, → opens the transcript at it', async () => {
    const t = await open(140, 30);
    await t.see('19 in all directories');
    await t.key('C-g');
    // One frame can reach tmux in more than one write: wait for the whole of it, not just its header.
    const empty = await t.waitFor((screen) => screen.includes('type 2+ characters after >') && screen.includes('Ctrl-G titles'));
    expect(empty).toContain('search: >');
    await t.type('Wall time: 0.27');
    // The session that ran the command, and its Codex fork, which holds that turn in the part of its parent's file it inherits.
    await t.see(/2 sessions with "Wall time: 0.27" in transcripts(?! \(searching)/);
    // The rows on screen get their snippets once read (the search itself reads no snippet).
    const found = await t.waitFor((screen) => (screen.match(/Chunk ID: 718123 Wall time: 0\.27/g) ?? []).length === 2);
    const row = found.split('\n')[1]!;
    expect(row).toMatch(/^› codex .*Chunk ID: 718123 Wall time: 0\.27\d* seconds/);
    // No count of matches (each file is read to its first lines with one): the turns column shows turns.
    expect(row).not.toMatch(/\d+×/);
    expect(found.split('\n')[2]).toMatch(/^ {2}codex .*Chunk ID: 718123 Wall time: 0\.27\d* seconds.* \d+ ⋔/);
    // the matched text is highlighted in the row
    const styled = (await t.styledScreen()).split('\n')[1]!;
    expect(styled).toMatch(new RegExp(`\u001b\\[[0-9;]*33[0-9;]*m[^\u001b]*Wall time: 0\\.27`));
    await t.key('Right');
    const opened = await t.see(/"Wall time: 0\.27" 1\/\d+/);
    expect(opened).toContain('turn 2/5');
    expect(opened).toContain('Wall time: 0.2771 seconds');
    // Esc back: the content search is still there; Ctrl-G goes back to searching titles with the same text
    await t.key('Escape');
    await t.see(/2 sessions with "Wall time/);
  });

  it('Enter hands the terminal to the agent: its argv and cwd are the session\'s, and its exit code is ours', async () => {
    // A Claude Code session recorded in a directory that exists, and a stand-in `claude` on PATH.
    const project = join(sandbox, 'project');
    await mkdir(project);
    const id = '7e57e57e-1111-4222-8333-944455556666';
    const dir = join(home, '.claude', 'projects', '-tmp-project');
    await mkdir(dir, { recursive: true });
    const now = new Date().toISOString();
    const line = (value: object): string => `${JSON.stringify(value)}\n`;
    await writeFile(
      join(dir, `${id}.jsonl`),
      line({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: 'resume me please' }, uuid: 'u-1', timestamp: now, cwd: project, sessionId: id, version: '2.1.197' }) +
        line({ parentUuid: 'u-1', isSidechain: false, type: 'assistant', message: { id: 'm-1', role: 'assistant', model: 'stand-in', content: [{ type: 'text', text: 'sure' }] }, uuid: 'a-1', timestamp: now, cwd: project, sessionId: id }),
    );
    const record = join(sandbox, 'agent-run.json');
    await writeFile(
      join(agents, 'claude'),
      `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), home: process.env.CLAUDE_CONFIG_DIR ?? null }));\nconsole.log('stand-in agent ran');\nprocess.exit(7);\n`,
    );
    await chmod(join(agents, 'claude'), 0o755);
    await writtenAnHourAgo(home); // not open in an agent: resumed without asking

    const t = await open();
    await t.see('20 in all directories');
    await t.type('resume me');
    const listed = await t.see(/1 matching/);
    expect(listed.split('\n')[1]).toMatch(/^› claude .*resume me please/);
    // → opens it; Esc comes back to the list, still filtered, where Enter resumes it
    await t.key('Right');
    await t.see('turn 1/1');
    await t.key('Escape');
    await t.see('1 matching "resume me"');
    await t.key('Enter');
    await t.see('stand-in agent ran');
    expect(await exitCode(t)).toBe(7);
    const ran = JSON.parse(await readFile(record, 'utf8')) as { argv: string[]; cwd: string; home: string | null };
    // --home is not where claude looks by itself: it is told, or it would not find the session
    expect(ran).toEqual({ argv: ['--resume', id], cwd: project, home: join(home, '.claude') });
  });

  it('a session whose directory is gone: the browser asks, and y resumes it in the current directory', async () => {
    await moveRecordedCwd(home, '/home/dev/src/a-api-server', join(sandbox, 'gone', 'a-api-server'));
    const record = join(sandbox, 'agent-run.json');
    await writeFile(
      join(agents, 'codex'),
      `#!/bin/sh\nprintf '%s\\n' "$PWD" "$CODEX_HOME" "$@" > ${JSON.stringify(record)}\nexit 0\n`,
    );
    await chmod(join(agents, 'codex'), 0o755);
    await writtenAnHourAgo(home); // not open in an agent: resumed without asking
    // wide enough for the question to hold the temp dir's path whole
    const t = await open(200, 24);
    await t.see('19 in all directories');
    await t.type('api-health');
    await t.see(/\d+ matching/);
    await t.key('Enter');
    await t.see('no longer exists');
    await t.key('y');
    expect(await exitCode(t)).toBe(0);
    const [cwd, codexHome, ...argv] = (await readFile(record, 'utf8')).trim().split('\n');
    expect(cwd).toBe(work);
    expect(codexHome).toBe(join(home, '.codex'));
    expect(argv).toEqual(['resume', '01a200ed-500e-74e1-88bc-7c2f05604fd8']);
  });
});

describe.skipIf(!existsSync('/proc/self/fd'))('a session another process holds open (issue 27)', () => {
  it('Enter asks in the browser: Esc goes back to the list with no agent run, f forks it and resumes the fork', async () => {
    const record = join(sandbox, 'agent-run.txt');
    await writeFile(join(agents, 'codex'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(record)}\nexit 0\n`);
    await chmod(join(agents, 'codex'), 0o755);
    // the recorded directory exists (made here), so the fork resumes in it without a second question
    const project = join(sandbox, 'src', 'a-api-server');
    await moveRecordedCwd(home, '/home/dev/src/a-api-server', project);
    await mkdir(project, { recursive: true });
    await writtenAnHourAgo(home); // only the open descriptor says it is in use
    const rollout = join(home, '.codex', 'sessions', '2026', '11', '22', 'rollout-2026-11-22T01-44-42-01a200ed-500e-74e1-88bc-7c2f05604fd8.jsonl');
    const before = await readFile(rollout);
    const holder = spawn(process.execPath, ['-e', `require('node:fs').openSync(${JSON.stringify(rollout)}, 'r'); process.stdout.write('open\\n'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.once('data', () => resolve());
        holder.once('exit', () => reject(new Error('the holder exited')));
      });
      const t = await open(100, 24);
      await t.see('19 in all directories');
      await t.type('api-health');
      await t.see(/\d+ matching/);
      await t.key('Enter');
      await t.see('looks open in an agent');
      await t.see(/open in node \(pid \d+/);
      // Enter again answers nothing; Esc is back in the list, the query kept, no agent run
      await t.key('Enter');
      await t.key('Escape');
      await t.see('search: api-health');
      expect(existsSync(record)).toBe(false);
      await t.key('Enter');
      await t.see('looks open in an agent');
      await t.key('f');
      const code = await exitCode(t);
      expect(code, await t.screen()).toBe(0);
      const argv = (await readFile(record, 'utf8')).trim().split('\n');
      // the fork was resumed, not the held session, which is as it was
      expect(argv[0]).toBe('resume');
      expect(argv[1]).toMatch(/^[0-9a-f-]{36}$/);
      expect(argv[1]).not.toBe('01a200ed-500e-74e1-88bc-7c2f05604fd8');
      expect(await readFile(rollout)).toEqual(before);
    } finally {
      holder.kill();
    }
  });
});

describe('type to search (the sample home, every agent)', () => {
  let sample: string;
  beforeEach(async () => {
    sample = join(sandbox, 'sample');
    await cp(SAMPLE_HOME, sample, { recursive: true });
  });

  const listJson = async (): Promise<{ agent: string; model: string | null; gitBranch: string | null; title: string }[]> => {
    const { stdout } = await exec(process.execPath, [BIN, 'list', '--json', '--all', '--home', sample, '--claw-dir', join(sample, 'src')], { cwd: work, env: environment(), maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as { agent: string; model: string | null; gitBranch: string | null; title: string }[];
  };

  it('`grep health r` typed into the list is the query: no agent ran, no file changed, the browser still open', async () => {
    const ran = join(sandbox, 'agents-ran.txt');
    await standInAgents(ran);
    const before = new Map([...(await snapshot(sample)), ...(await snapshot(work))]);
    const t = await open(100, 30, sample);
    const count = (await listJson()).length;
    await t.see(`${count} in all directories`);
    // One key at a time, as typed (g, r and G moved, jumped and resumed before), then as one burst (a paste).
    await t.type('grep health r');
    await t.see('search: grep health r');
    await t.see(/\d+ matching "grep health r"/);
    await t.key('C-u');
    await t.see(`${count} in all directories`);
    await t.key('grep health r');
    await t.see('search: grep health r');
    // Erased again: the browser still reads keys, so none of them handed the terminal to an agent.
    await t.key('C-u');
    await t.see(`${count} in all directories`);
    await expect(access(t.exitFile)).rejects.toThrow();
    await expect(access(ran)).rejects.toThrow();
    expect(new Map([...(await snapshot(sample)), ...(await snapshot(work))])).toEqual(before);
  });

  const fields = [
    ['agent', 'qwen', (row: { agent: string }) => row.agent === 'qwen'],
    ['model', 'gpt-5.4', (row: { model: string | null }) => row.model === 'gpt-5.4'],
    ['branch', 'zebra-login', (row: { gitBranch: string | null }) => row.gitBranch === 'feature/zebra-login'],
  ] as const;
  for (const [field, word, picks] of fields) {
    it(`finds \`sessions list --json\` rows by their ${field}: typing "${word}" lists exactly them`, async () => {
      // The sample has no branch but HEAD: one Claude Code session on a feature branch.
      const id = '7e57e57e-3333-4222-8333-944455556666';
      const dir = join(sample, '.claude', 'projects', '-tmp-zebra');
      await mkdir(dir, { recursive: true });
      const at = '2026-11-20T10:00:00.000Z';
      const line = (value: object): string => `${JSON.stringify(value)}\n`;
      await writeFile(
        join(dir, `${id}.jsonl`),
        line({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: 'fix the login form' }, uuid: 'u-1', timestamp: at, cwd: '/tmp/zebra', sessionId: id, version: '2.1.197', gitBranch: 'feature/zebra-login' }) +
          line({ parentUuid: 'u-1', isSidechain: false, type: 'assistant', message: { id: 'm-1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'fixed' }] }, uuid: 'a-1', timestamp: at, cwd: '/tmp/zebra', sessionId: id, gitBranch: 'feature/zebra-login' }),
      );
      const rows = await listJson();
      const expected = rows.filter((row) => picks(row as never));
      expect(expected.length).toBeGreaterThan(0);
      const t = await open(140, 40, sample);
      await t.see(`${rows.length} in all directories`);
      await t.type(word);
      const screen = await t.see(new RegExp(`\\d+ matching "${word.replaceAll('.', '\\.')}"`));
      expect(screen).toContain(`${expected.length} matching "${word}"`);
      const listed = screen.split('\n').slice(1, 1 + expected.length).map((text) => /^[› ] (\S+)/.exec(text)?.[1]);
      expect(listed.sort()).toEqual(expected.map((row) => row.agent).sort());
      for (const row of expected) expect(screen).toContain(row.title.slice(0, 24));
    });
  }
});

