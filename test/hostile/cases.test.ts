// One test per hostile case of issue 10, each at the narrowest level that shows it: the sanitiser, id shapes,
// template substitution, the first-screen file, a failed named fork, concurrent names, a FIFO config.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { loadCacheHead } from '../../src/catalog/cache-head.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { DEFAULT_RESUME_TEMPLATES, resumeCommand } from '../../src/core/resume.js';
import { sessionIdProblem, UnsafeSessionIdError } from '../../src/core/session-id.js';
import { oneLine, safeLine, stripControl } from '../../src/core/text.js';
import { shellQuote } from '../../src/launch.js';
import { firstScreen } from '../../src/ui/prepaint.js';
import { browserReducer, firstState } from '../../src/ui/reducer.js';
import { sha256File } from '../helpers/files.js';
import { catalogSession, fixtureHome, fixtureServices } from '../ui/helpers.js';
import { EVIL_BRANCH, EVIL_CWD, EVIL_PROMPT, startCodexLikeAppender } from './home.js';
import { noRoots } from '../../src/catalog/locations.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
const CODEX_ID = '01a200ed-500e-74e1-88bc-7c2f05604fd8';

let sandbox: string;
beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-cases-'));
});
afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: sandbox, timeout: 20_000, killSignal: 'SIGKILL', env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config'), ...env } },
      (error, stdout, stderr) => {
        if (error && (error as { killed?: boolean }).killed) reject(new Error(`sessions ${args.join(' ')} hung`));
        else resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function copyHome(): Promise<string> {
  const home = join(sandbox, 'home');
  await cp(FIXTURE_HOME, home, { recursive: true });
  return home;
}

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();
}

describe('the sanitiser', () => {
  it.each([
    ['OSC title and clipboard', '/tmp/x\u001b]0;TITLE\u0007\u001b]52;c;SGVsbG8=\u0007y', '/tmp/xy'],
    ['OSC with ST, unterminated OSC', 'a\u001b]8;;http://x\u001b\\b\u001b]0;rest', 'ab'],
    ['clear screen and cursor moves', 'main\u001b[2J\u001b[H\u001b[5;5H\u001b[?25l', 'main'],
    ['charset and keypad escapes', 'a\u001b(Bb\u001b=c\u001b#8d', 'abcd'],
    ['C1 CSI (its parameters too) and other C1', 'a\u009b2Jb\u0085c', 'abc'],
    ['C1 OSC with its payload, C1 ST', 'a\u009b31m\u009d0;C1TITLE\u009cb', 'ab'],
    ['bidi override made visible', 'fix \u202egnp.exe', 'fix \ufffdgnp.exe'],
    ['bidi isolates and marks', '\u2066a\u2069\u200fb\u061c', '\ufffda\ufffd\ufffdb\ufffd'],
    ['zero-width runs dropped', 'a\u200b\u200b\u200c\u200d\u2060\ufeffb\u00adc', 'abc'],
    ['a joiner inside one emoji kept, a joiner next to letters dropped', '\u{1f469}\u200d\u{1f4bb} \u2764\ufe0f\u200d\u{1f525} a\u200d\u{1f4bb}', '\u{1f469}\u200d\u{1f4bb} \u2764\ufe0f\u200d\u{1f525} a\u{1f4bb}'],
  ])('%s', (_label, input, expected) => {
    expect(safeLine(input)).toBe(expected);
    expect(oneLine(input)).toBe(expected.trim());
  });

  it('keeps lines in bodies but never in a field', () => {
    expect(stripControl('a\r\nb\u2028c')).toBe('a\nb\nc');
    expect(safeLine('a\nb\tc\u2029d')).toBe('a b c d');
  });

  it('quotes a printed command exactly, with escapes instead of controls', () => {
    expect(shellQuote('/tmp/x\u001b]0;T\u0007 it\'s')).toBe("$'/tmp/x\\x1b]0;T\\x07 it\\'s'");
    expect(shellQuote('a\u202eb\\c')).toBe("$'a\\u202eb\\\\c'");
    expect(shellQuote('plain path')).toBe("'plain path'");
  });
});

describe('session ids', () => {
  it.each([
    ['codex', '--dangerously-bypass-approvals-and-sandbox', false],
    ['codex', '{path}', false],
    ['codex', `${CODEX_ID}\n--x`, false],
    ['codex', CODEX_ID, true],
    ['claude', '--dangerously-skip-permissions', false],
    ['claude', '5A1999C3-3FEF-4A8C-8969-B584A1892BDA', true],
    ['claw', 'session-1775386842352-0', true],
    ['claw', 'session-1775010333630', true],
    ['claw', 'b035f648d5b549aa836ea01f6727ec62', true],
    ['claw', '-rf', false],
    ['claw', 'session-1-0/../../x', false],
  ] as const)('%s %j valid: %s', (agent, id, valid) => {
    expect(sessionIdProblem({ agent, id }) === null).toBe(valid);
  });

  it('an id without its shape never becomes a command', () => {
    const session = { agent: 'claude' as const, id: '--dangerously-skip-permissions', path: '/p/x.jsonl', cwd: '/p' };
    expect(() => resumeCommand(session)).toThrow(UnsafeSessionIdError);
  });

  it('substitutes placeholders in one pass: a value holding a placeholder stays as it is', () => {
    const session = { agent: 'codex' as const, id: CODEX_ID, path: '/h/{id}.jsonl', cwd: '/src/{path}' };
    const templates = { ...DEFAULT_RESUME_TEMPLATES, codex: ['codex', '--cd={cwd}', 'resume', '{id}', '--file={path}', 'say={prompt}'] };
    expect(resumeCommand(session, templates, { prompt: '{cwd}' }).argv).toEqual(['codex', '--cd=/src/{path}', 'resume', CODEX_ID, '--file=/h/{id}.jsonl', 'say={cwd}']);
  });
});

describe('the pre-painted first screen', () => {
  it('writes only its own cursor moves and colors, whatever the rows hold, and keeps the columns', () => {
    const sessions = [
      catalogSession({ id: '\u001b]0;ID\u0007x', title: EVIL_PROMPT, cwd: EVIL_CWD, gitBranch: EVIL_BRANCH, updatedAt: '2026-11-22T11:00:00.000Z' }),
      catalogSession({ id: 'plain', title: 'fix the exe.png bug', cwd: '/tmp/xy', gitBranch: 'main', updatedAt: '2026-11-22T10:00:00.000Z' }),
    ];
    const ansi = firstScreen({ sessions, columns: 120, rows: 30, cwd: '/elsewhere', homeDir: '/home/dev', now: Date.parse('2026-11-22T12:00:00Z'), scope: 'all', env: { NO_COLOR: '1' } })!;
    // eslint-disable-next-line no-control-regex
    const ours = /\u001b\[(?:\d+;1H|[0-9;]*m|H)/g;
    expect(ansi.replace(ours, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u200b-\u200d]/); // eslint-disable-line no-control-regex
    const rows = ansi.split(/\u001b\[\d+;1H/).slice(1).map((row) => row.replace(ours, '')); // eslint-disable-line no-control-regex
    expect(rows[0]!.indexOf('/tmp/xy')).toBe(rows[1]!.indexOf('/tmp/xy'));
    expect(rows[0]).toContain('fix the \ufffdgnp.exe bug');
  });
});

describe('the first-screen file', () => {
  it.each([
    ['a row without its title', (row: Record<string, unknown>) => delete row.title],
    ['a title of the wrong type', (row: Record<string, unknown>) => (row.title = 42)],
    ['an updatedAt that is no time', (row: Record<string, unknown>) => (row.updatedAt = 'yesterday')],
    ['paths that are not strings', (row: Record<string, unknown>) => (row.paths = [null])],
    ['a fork of the wrong shape', (row: Record<string, unknown>) => (row.fork = { id: 3 })],
    ['usage without numbers', (row: Record<string, unknown>) => (row.usage = { input: 'a' })],
  ])('with %s is discarded (and deleted), never painted, and rebuilt by the next save', async (_label, corrupt) => {
    const home = await copyHome();
    const cachePath = join(sandbox, 'cache', 'catalog-v2.jsonl');
    const cache = await CatalogCache.load(cachePath);
    const { sessions } = await scanCatalog({ roots: { ...noRoots(), codex: [join(home, '.codex')], claude: [join(home, '.claude')] }, rootsFromCwds: false, cwd: sandbox }, { cache });
    await cache.save({ sessions, scopeDir: sandbox });
    const headFile = join(sandbox, 'cache', 'catalog-v2.head.json');
    const head = JSON.parse(await readFile(headFile, 'utf8')) as { sessions: Record<string, unknown>[] };
    expect(await loadCacheHead(cachePath)).toHaveLength(head.sessions.length);
    corrupt(head.sessions[1]!);
    await writeFile(headFile, JSON.stringify(head));
    expect(await loadCacheHead(cachePath)).toBeNull();
    await expect(readFile(headFile)).rejects.toMatchObject({ code: 'ENOENT' });
    await cache.save({ sessions, scopeDir: sandbox });
    const rebuilt = await loadCacheHead(cachePath);
    expect(rebuilt).toHaveLength(head.sessions.length);
    expect(firstScreen({ sessions: rebuilt!, columns: 100, rows: 30, cwd: sandbox, homeDir: sandbox, now: Date.parse('2026-11-22T12:00:00Z'), scope: 'all', env: {} })).toContain('codex');
  });

  it('that does not parse, or is a FIFO, is not fatal to the browser\'s start', async () => {
    const cachePath = join(sandbox, 'cache', 'catalog-v2.jsonl');
    await mkdir(join(sandbox, 'cache'), { recursive: true });
    await writeFile(join(sandbox, 'cache', 'catalog-v2.head.json'), '{"version":2,"sessions":[{"id":"x","agent":"codex"');
    expect(await loadCacheHead(cachePath)).toBeNull();
    await writeFile(join(sandbox, 'cache', 'catalog-v2.head.json'), '{"version":2,"sessions":[{"id":"x","agent":"codex","paths":["/p"]}]}');
    expect(await loadCacheHead(cachePath)).toBeNull();
    await rm(join(sandbox, 'cache', 'catalog-v2.head.json'), { force: true }); // the bad one was deleted already
    await new Promise<void>((resolve, reject) => execFile('mkfifo', [join(sandbox, 'cache', 'catalog-v2.head.json')], (error) => (error ? reject(error) : resolve())));
    expect(await loadCacheHead(cachePath)).toBeNull(); // at once: a FIFO is never opened blocking
  });
});

describe('fork --name', () => {
  it('writes nothing when session_index.jsonl cannot be written, and names it', async () => {
    const home = await copyHome();
    const index = join(home, '.codex', 'session_index.jsonl');
    await rm(index, { force: true });
    await mkdir(index); // not writable as a file, even by root
    const before = await filesUnder(home);
    const hashes = await Promise.all(before.map(sha256File));
    const result = await run(['fork', CODEX_ID, '--at', '2', '--name', 'named', '--home', home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot write ${index}: is a directory`);
    expect(await filesUnder(home)).toEqual(before);
    expect(await Promise.all(before.map(sha256File))).toEqual(hashes);
  });

  it('keeps every name when forks run in parallel while Codex appends to the index', async () => {
    const home = await copyHome();
    const index = join(home, '.codex', 'session_index.jsonl');
    const original = await readFile(index, 'utf8').catch(() => '');
    await writeFile(index, original);
    // Codex appends a line every 200 µs for as long as the forks run.
    const stop = await startCodexLikeAppender(index, 200);
    const forks = await Promise.all(Array.from({ length: 8 }, (_, i) => run(['fork', CODEX_ID, '--at', '2', '--name', `parallel ${i}`, '--home', home, '--no-cache'])));
    const appended = await stop();
    for (const fork of forks) expect(fork.code, fork.stderr).toBe(0);
    const lines = (await readFile(index, 'utf8')).split('\n').filter((line) => line.trim() !== '');
    const values = lines.map((line) => JSON.parse(line) as { id: string; thread_name: string });
    expect(values).toHaveLength(original.split('\n').filter((line) => line.trim() !== '').length + appended + 8);
    const names = new Map(values.map((value) => [value.id, value.thread_name]));
    forks.forEach((fork, i) => expect(names.get(fork.stdout.split('\n')[0]!)).toBe(`parallel ${i}`));
    for (let i = 0; i < appended; i++) expect(names.get(`agent-${i}`)).toBe(`agent name ${i}`);
  }, 60_000);
});

describe('a FIFO as the config file', () => {
  it('is an error, at once, for the commands that read it and for the browser', async () => {
    const home = await copyHome();
    await mkdir(join(sandbox, 'config', 'sessions'), { recursive: true });
    const fifo = join(sandbox, 'config', 'sessions', 'config.json');
    await new Promise<void>((resolve, reject) => execFile('mkfifo', [fifo], (error) => (error ? reject(error) : resolve())));
    for (const args of [['resume', CODEX_ID, '--dry-run'], ['fork', CODEX_ID, '--at', '2'], []]) {
      const result = await run([...args, '--home', home]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cannot read config ${fifo}: not a regular file (a FIFO)`);
    }
  });
});

describe('the browser with a session whose id is an option', () => {
  it('refuses r with the reason on the notice line, and f with the reason in the fork prompt, writing nothing', async () => {
    const { home, dispose } = await fixtureHome();
    try {
      const services = fixtureServices(home);
      const bad = catalogSession({ id: '--dangerously-skip-permissions', agent: 'claude', cwd: sandbox });
      const outcome = await services.checkResume(bad);
      expect(outcome).toEqual({ kind: 'refuse', message: expect.stringContaining('its id is not a UUID') as string });
      let state = firstState({ size: { columns: 100, rows: 30 }, cwd: sandbox, homeDir: home, now: 0, scope: 'all' }, [bad]);
      state = browserReducer(state, { type: 'resume' });
      state = browserReducer(state, { type: 'resumeChecked', session: bad, outcome });
      expect(state.decision).toBeNull();
      expect(state.notice).toMatchObject({ tone: 'error', text: expect.stringContaining('cannot resume: its id is not a UUID') as string });
      await expect(services.fork(bad, 2, '')).rejects.toThrow(/not resumed or forked/);
    } finally {
      await dispose();
    }
  });
});
