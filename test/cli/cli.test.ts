// The scriptable CLI, run as a user would: the built bin/sessions.js on copies of the fixture home.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/core/model.js';
import { sha256File } from '../helpers/files.js';
import { copyBuiltCli } from '../helpers/built-cli.js';
import { moveRecordedCwd } from '../helpers/gone-cwd.js';
import { grepEngineEnv } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURES = join(ROOT, 'test', 'fixtures');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let home: string;
let sandbox: string;

function run(args: readonly string[], options: { cwd?: string; uid?: number; gid?: number; bin?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [options.bin ?? BIN, ...args],
      {
        cwd: options.cwd ?? sandbox,
        uid: options.uid,
        gid: options.gid,
        maxBuffer: 64 * 1024 * 1024,
        // Never the machine's own ~/.codex, ~/.claude, config or cache.
        env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config'), ...grepEngineEnv() },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const at = (...args: string[]): string[] => [...args, '--home', home, '--claw-dir', join(home, 'src')];

interface ListRow {
  id: string;
  agent: string;
  path: string;
  cwd: string | null;
  title: string;
  firstPrompt: string | null;
  userTurns: number;
  forkedFrom: string | null;
  name: string | null;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

async function list(...extra: string[]): Promise<ListRow[]> {
  const result = await run(at('list', '--all', '--json', ...(extra.length > 0 ? extra : ['--exact-turns'])));
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ListRow[];
}


async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)));
  }
  return out.filter((p) => !p.startsWith('cache/')).sort();
}

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-cli-'));
  home = join(sandbox, 'home');
  await cp(join(FIXTURES, 'home'), home, { recursive: true });
  await cp(join(FIXTURES, 'claw-synthetic', 'demo'), join(home, 'src', 'demo'), { recursive: true });
});

afterEach(async () => {
  await chmod(sandbox, 0o700).catch(() => undefined);
  await rm(sandbox, { recursive: true, force: true });
});

// Written by hand from the files (see test/fixtures/home and examples/README.md).
const SAMPLE_TABLE: readonly (readonly [string, string, string | null, number, string, string | null, string])[] = [
  ['codex', '01a200ed-500e-74e1-88bc-7c2f05604fd8', '/home/dev/src/a-api-server', 5, '[a] Add a health check endpoint to the API server (a-variant)', null, 'api-health'],
  ['codex', '01a200ed-5c85-77b2-b5d4-279df852ebe4', '/home/dev/src/a-api-server', 5, '[a] Add a health check endpoint to the API server (a-variant)', '01a200ed-500e-74e1-88bc-7c2f05604fd8', '[a] Add a health check endpoint to the API server (a-variant)'],
  ['codex', '01a200ed-5ea9-7d10-900c-84b2858d6d09', '/home/dev/src/a-web-ui', 1, '[a] The scroll position jumps when new messages arrive — 为什么? 🙂', null, '[a] The scroll position jumps when new messages arrive — 为什么? 🙂'],
  ['codex', '01a200ed-60a4-7f10-a53c-15a9ecf122f3', '/home/dev/src/a-data pipeline', 7, '[a] run ls and explain the layout of this repo', null, '[a] run ls and explain the layout of this repo'],
  ['codex', '01a200ed-8253-74d3-b561-f652765d4d59', '/home/dev/src/a-ünïcødé-项目', 4, '[a] Write a long design note about caching', null, '[a] Write a long design note about caching'],
  ['codex', '584c1c48-5ca1-4160-ac98-ec5c303552b5', null, 1, '[a] codex 0.20.0: please run ls and summarise the project', null, '[a] codex 0.20.0: please run ls and summarise the project'],
  ['codex', '01a200fa-2988-76f2-b999-ff0e8384db1e', '/home/dev/src/a-codex-0.39.0', 2, '[a] codex 0.39.0: please run ls and summarise the project', null, '[a] codex 0.39.0: please run ls and summarise the project'],
  ['codex', '01a200fa-3a58-7971-88f2-72d291066439', '/home/dev/src/a-codex-0.89.0', 2, '[a] codex 0.89.0: please run ls and summarise the project', null, '[a] codex 0.89.0: please run ls and summarise the project'],
  ['codex', '01a200fa-4b34-7413-b956-253dda01fe5a', '/home/dev/src/a-codex-0.100.0', 2, '[a] codex 0.100.0: please run ls and summarise the project', null, '[a] codex 0.100.0: please run ls and summarise the project'],
  ['claude', 'b0304532-bd3a-4d34-9619-62f2487fd2d5', '/home/dev/src/a-api-server', 3, '[a] Explain the request lifecycle in this server', null, '[a] Explain the request lifecycle in this server'],
  ['claude', '5a1999c3-3fef-4a8c-8969-b584a1892bda', '/home/dev/src/a-api-server', 4, '[a] Explain the request lifecycle in this server', 'b0304532-bd3a-4d34-9619-62f2487fd2d5', '[a] Explain the request lifecycle in this server'],
  ['claude', '637c5025-a11d-4fce-bb60-2cbeb9eb07a4', '/home/dev/src/a-web-ui', 1, '[a] Make the sidebar collapsible — keep it accessible ♿', null, '[a] Make the sidebar collapsible — keep it accessible ♿'],
  ['claude', '328cfc0d-0846-4702-9243-c6354d61457d', '/home/dev/src/a-ünïcødé-项目', 6, '[a] 请解释这个项目的结构', null, '[a] 请解释这个项目的结构'],
  // Claude Code 2.1.330 (test/fixtures/claude-2.1.330, from test/interop/record-claude.ts): renamed with /rename under -p (the sidecar and the line agree), compacted,
  // its --fork-session copy (requestSessionId names the parent), and /init (a slash command the model answered: a turn).
  ['claude', '4908739e-7140-40f4-bd05-9ab21cdf9519', '/home/dev/src/b-api-server', 4, '[b] What does the api server do?', null, 'api health (2.1.330)'],
  ['claude', 'a4e44f24-dde6-4336-806d-347ffd63474a', '/home/dev/src/b-api-server', 4, '[b] What does the api server do?', '4908739e-7140-40f4-bd05-9ab21cdf9519', '[b] What does the api server do?'],
  ['claude', '1a74bce2-a7b1-4e09-9581-2619a464dcab', '/home/dev/src/b-tools', 2, '/init', null, '/init'],
  ['claw', 'session-1775010002596', '<home>/src/claw-code', 1, 'Read the file Cargo.toml and tell me the package name', null, 'Read the file Cargo.toml and tell me the package name'],
  ['claw', 'session-1775010047738', '<home>/src/claw-code/rust', 2, 'do youy have issues with bash tool calling?', null, 'do youy have issues with bash tool calling?'],
  ['claw', 'session-1775010333630', '<home>/src/claw-code/rust', 1, 'hello use bash tool for testing', null, 'hello use bash tool for testing'],
  ['claw', 'session-1775011562247', '<home>/src/claw-code/rust', 3, 'analyze this repo and make a plan for enhancing tui', null, 'analyze this repo and make a plan for enhancing tui'],
  ['claw', 'session-1775386842352-0', '<home>/src/claw-code/rust', 1, 'doctor --help', null, 'doctor --help'],
  ['claw', 'b035f648d5b549aa836ea01f6727ec62', '<home>/src/claw-code', 1, 'review MCP tool', null, 'review MCP tool'],
];

describe('command words', () => {
  it.each([[['lst']], [['--all', 'lst']], [['lst', '--home', '/nowhere']]])('%j: an unknown command, with the one meant', async (args) => {
    const result = await run(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown command 'lst'");
    expect(result.stderr).toContain('Did you mean list?');
    expect(result.stdout).toBe('');
  });

  it('a command given a word too many still says so', async () => {
    const result = await run(at('list', 'extra'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("too many arguments for 'list'");
  });
});

describe('sessions list', () => {
  it('lists every conversation of the sample home, one row each, as written by hand from the files', async () => {
    await rm(join(home, 'src', 'demo'), { recursive: true });
    // The sample home's Claude Code 2.1.330 sessions (examples/home has the first two) live beside the fixture home.
    await cp(join(FIXTURES, 'claude-2.1.330', '.claude', 'projects'), join(home, '.claude', 'projects'), { recursive: true });
    const rows = await list();
    const actual = rows
      .map((r) => [r.agent, r.id, r.cwd === null ? null : r.cwd.replace(home, '<home>'), r.userTurns, r.firstPrompt, r.forkedFrom, r.title] as const)
      .sort((a, b) => (a[1] < b[1] ? -1 : 1));
    expect(actual).toEqual([...SAMPLE_TABLE].sort((a, b) => (a[1] < b[1] ? -1 : 1)));
    // Newest first.
    const updated = rows.map((r) => r.updatedAt);
    expect([...updated].sort().reverse()).toEqual(updated);
    expect(rows.find((r) => r.id.startsWith('01a200ed-5ea9'))!.archived).toBe(true);
    expect(rows.find((r) => r.id.startsWith('01a200ed-500e'))!.name).toBe('api-health');
  });

  it('is the same with a warm cache, and a changed file is read again', async () => {
    const cold = await list();
    const warm = await list();
    expect(warm).toEqual(cold);
    const claude = cold.find((r) => r.id === '637c5025-a11d-4fce-bb60-2cbeb9eb07a4')!;
    const original = await readFile(claude.path, 'utf8');
    const lines = original.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const leaf = lines.filter((l) => typeof l.uuid === 'string').at(-1)!;
    const prompt = {
      ...lines.find((l) => l.type === 'user')!,
      uuid: 'aaaaaaaa-0000-4000-8000-000000000001',
      parentUuid: leaf.uuid,
      // Newer than every row listed (a claw port session is dated by its mtime: the copy's time), whatever this
      // test's clock says.
      timestamp: new Date(Math.max(...cold.map((r) => Date.parse(r.updatedAt))) + 60_000).toISOString(),
      message: { role: 'user', content: 'a second question, added later' },
    };
    await writeFile(claude.path, `${original}${JSON.stringify(prompt)}\n`);
    const after = await list();
    const row = after.find((r) => r.id === claude.id)!;
    expect(row.userTurns).toBe(2);
    expect(after[0]!.id).toBe(claude.id);
  });

  it('scopes to the current directory by default and falls back to all, saying so', async () => {
    const inside = await run(at('list', '--json'), { cwd: join(home, 'src', 'claw-code', 'rust') });
    expect(inside.code).toBe(0);
    const ids = (JSON.parse(inside.stdout) as ListRow[]).map((r) => r.id).sort();
    expect(ids).toEqual(['session-1775010047738', 'session-1775010333630', 'session-1775011562247', 'session-1775386842352-0']);
    const outside = await mkdtemp(join(tmpdir(), 'sessions-elsewhere-'));
    try {
      const elsewhere = await run(at('list', '--json'), { cwd: outside });
      expect(elsewhere.stderr).toContain(`no sessions ran in ${outside}; listing all`);
      expect((JSON.parse(elsewhere.stdout) as ListRow[]).length).toBeGreaterThan(19);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('lists every row exactly without being asked: a big file is counted in full, --exact-turns changes nothing', async () => {
    const pipeline = '01a200ed-60a4-7f10-a53c-15a9ecf122f3'; // 97 KB: more than the 80 KiB of head + tail rows were once read from
    const plain = await list('--no-cache');
    expect(plain.find((r) => r.id === pipeline)).toMatchObject({ userTurns: 7, userTurnsExact: true });
    expect(plain.filter((r) => (r as ListRow & { userTurnsExact: boolean }).userTurnsExact !== true)).toEqual([]);
    expect(await list('--exact-turns', '--no-cache')).toEqual(plain);
    const text = await run(at('list', '--all', '--no-cache'));
    expect(text.stdout).toMatch(new RegExp(`\\s7\\s+${pipeline}`));
    expect(text.stdout).not.toMatch(/\d\+\s/);
    // Through the cache (written, then read back) the rows are the same.
    await list('--all');
    expect(await list('--all')).toEqual(plain);
  });

  it('prints grep rows that are the list rows of the same sessions', async () => {
    const rows = new Map((await list('--no-cache')).map((row) => [row.id, row]));
    const result = await run(at('grep', 'ls', '--json', '--no-cache'));
    expect(result.code, result.stderr).toBe(0);
    const found = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as ListRow & { matches: number; inherited: boolean });
    expect(found.length).toBeGreaterThan(3);
    // A grep row is the list row plus how often the text occurs in the session's files (or the turns it inherits).
    for (const { matches, inherited, ...row } of found) {
      expect(row).toEqual(rows.get(row.id));
      expect(matches).toBeGreaterThan(0);
      expect(typeof inherited).toBe('boolean');
    }
  });

  it('keeps one cache per set of locations: listing another home neither shows these rows nor loses their exact counts', async () => {
    const pipeline = '01a200ed-60a4-7f10-a53c-15a9ecf122f3'; // 97 KB: more than head + tail
    expect((await list('--exact-turns')).find((r) => r.id === pipeline)).toMatchObject({ userTurns: 7, userTurnsExact: true });
    const other = join(sandbox, 'other-home');
    await cp(join(home, '.claude'), join(other, '.claude'), { recursive: true });
    // Run outside the sandbox: claw workspaces below the working directory are found too.
    const elsewhere = await run(['list', '--all', '--json', '--home', other], { cwd: other });
    expect((JSON.parse(elsewhere.stdout) as ListRow[]).map((r) => r.agent)).toEqual(['claude', 'claude', 'claude', 'claude']);
    const remembered = (await list('--all')).find((r) => r.id === pipeline)! as ListRow & { userTurnsExact: boolean };
    expect(remembered).toMatchObject({ userTurns: 7, userTurnsExact: true });
    expect((await readdir(join(sandbox, 'cache', 'sessions'))).filter((name) => name.endsWith('.jsonl'))).toHaveLength(2);
  });

  it('prints rows only to a pipe (no header), and marks a cut title with …', async () => {
    const result = await run(at('list', '--all'));
    const lines = result.stdout.trimEnd().split('\n');
    // The agent column is as wide as the longest agent name (copilot), then two spaces.
    expect(lines[0]).toMatch(/^(codex {3}|claude {2}|claw {4}|copilot |gemini {2}|qwen {4}|opencode|kilo {4}) {2}\d{4}-\d\d-\d\d /);
    const scroll = lines.find((line) => line.includes('01a200ed-5ea9-7d10-900c-84b2858d6d09'))!;
    // The title column is 60 wide, its marks included: the title is cut to leave them room.
    expect(scroll).toContain('  [a] The scroll position jumps when new messages … [archived]  ');
  });

  it('says that a home which is not there does not exist (not that it is empty)', async () => {
    const nowhere = join(sandbox, 'nowhere');
    await mkdir(nowhere, { recursive: true });
    const result = await run(['list', '--all', '--home', join(sandbox, 'no-such-home')], { cwd: nowhere });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`warning: --home ${join(sandbox, 'no-such-home')} does not exist`);
    expect(result.stderr).toContain(`${join(sandbox, 'no-such-home', '.codex')} (does not exist)`);
    const empty = join(sandbox, 'empty-home');
    await mkdir(join(empty, '.codex'), { recursive: true });
    const quiet = await run(['list', '--all', '--home', empty], { cwd: nowhere });
    expect(quiet.stderr).not.toContain('warning');
    expect(quiet.stderr).toContain(`looked in ${join(empty, '.codex')}, ${join(empty, '.claude')} (does not exist)`);
  });

  it('filters by agent', async () => {
    const result = await run(at('list', '--all', '--json', '--agent', 'claude'));
    expect((JSON.parse(result.stdout) as ListRow[]).map((r) => r.agent)).toEqual(['claude', 'claude', 'claude', 'claude']);
  });
});

describe('sessions show', () => {
  it('prints the transcript as Markdown and JSON with the user turns in order', async () => {
    const md = await run(at('show', '328cfc0d', '--format', 'md'));
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('## Turn 6');
    expect(md.stdout).not.toContain('## Turn 7');
    expect(md.stdout).toContain('_Conversation compacted._');
    const json = await run(at('show', '01a200ed-500e', '--format', 'json'));
    const session = JSON.parse(json.stdout) as { messages: { userTurn: boolean; blocks: { type: string; text?: string }[] }[] };
    const prompts = session.messages.filter((m) => m.userTurn).map((m) => m.blocks.find((b) => b.type === 'text')!.text);
    expect(prompts).toEqual([
      '[a] Add a health check endpoint to the API server (a-variant)',
      '[a] now run the tests and list the failures',
      '[a] why did the auth test fail? think it through',
      '[a] ok, fix it and summarise the change',
      'which name is this session under?',
    ]);
  });

  it('resolves a thread name and a path', async () => {
    const byName = await run(at('show', 'api-health', '--format', 'json'));
    expect((JSON.parse(byName.stdout) as { id: string }).id).toBe('01a200ed-500e-74e1-88bc-7c2f05604fd8');
    const rows = await list();
    const claw = rows.find((r) => r.id === 'session-1775010047738')!;
    const byPath = await run(at('show', relative(sandbox, claw.path), '--format', 'json'));
    expect((JSON.parse(byPath.stdout) as { id: string }).id).toBe('session-1775010047738');
  });

  it('warns about the lines its own file skipped, once, and not about other files, with or without a scan first', async () => {
    const day = join(home, '.codex', 'sessions', '2026', '11', '22');
    const source = await readFile(join(day, 'rollout-2026-11-22T01-58-44-01a200fa-2988-76f2-b999-ff0e8384db1e.jsonl'), 'utf8');
    const broken = (id: string, garbage: string): string => {
      const lines = source.replaceAll('01a200fa-2988-76f2-b999-ff0e8384db1e', id).split('\n');
      return [lines[0], garbage, ...lines.slice(1)].join('\n');
    };
    await writeFile(join(day, 'rollout-2026-11-23T01-00-05-55555555-5555-4555-8555-555555555555.jsonl'), broken('55555555-5555-4555-8555-555555555555', '{"not json'));
    await writeFile(join(day, 'rollout-2026-11-23T01-00-06-66666666-6666-4666-8666-666666666666.jsonl'), broken('66666666-6666-4666-8666-666666666666', 'garbage\n[1,'));
    const warnings = (stderr: string): string[] => stderr.split('\n').filter((line) => line.includes('malformed'));
    // Other files of the home skip lines too (the claw demo's): only the shown file's are told. --no-cache and a cold
    // cache scan the catalog to find the id; a warm cache finds it without a scan: the same warnings.
    for (const extra of [['--no-cache'], [], []]) {
      const shown = await run(at('show', '55555555', ...extra));
      expect(shown.code, shown.stderr).toBe(0);
      expect([extra, warnings(shown.stderr)]).toEqual([extra, [`sessions: warning: ${join(day, 'rollout-2026-11-23T01-00-05-55555555-5555-4555-8555-555555555555.jsonl')}: skipped 1 malformed line`]]);
    }
    const other = await run(at('show', '66666666', '--format', 'md', '--no-cache'));
    expect(warnings(other.stderr)).toEqual([`sessions: warning: ${join(day, 'rollout-2026-11-23T01-00-06-66666666-6666-4666-8666-666666666666.jsonl')}: skipped 2 malformed lines`]);
    // `list` tells both, in the same words, and the others.
    const listed = warnings((await run(at('list', '--all', '--no-cache'))).stderr);
    expect(listed).toEqual(expect.arrayContaining([...warnings(other.stderr), ...warnings((await run(at('show', '55555555'))).stderr)]));
    expect(listed.length).toBeGreaterThan(2);
  });
});

describe('sessions fork', () => {
  const cases = [
    ['codex', '01a200ed-60a4-7f10-a53c-15a9ecf122f3'],
    ['claude', '328cfc0d-0846-4702-9243-c6354d61457d'],
    ['claw', null],
  ] as const;

  it.each(cases)('%s: fork at turn 3 keeps exactly turns 1-2, never touches the original, lists the fork', async (agent, fixedId) => {
    const before = await list();
    const source = fixedId ? before.find((r) => r.id === fixedId)! : before.find((r) => r.agent === agent && r.userTurns >= 4)!;
    expect(source.userTurns).toBeGreaterThanOrEqual(4);
    const originalHash = await sha256File(source.path);
    const full = JSON.parse((await run(at('show', source.id, '--format', 'json'))).stdout) as { messages: { userTurn: boolean; role: string; blocks: unknown[] }[] };
    const turnIndexes = full.messages.flatMap((m, i) => (m.userTurn ? [i] : []));

    const result = await run(at('fork', source.id, '--at', '3', '--json'));
    expect(result.code, result.stderr).toBe(0);
    const fork = JSON.parse(result.stdout) as { id: string; path: string; parentId: string; keptUserTurns: number; resume: { argv: string[]; cwd: string | null } };
    expect(fork.parentId).toBe(source.id);
    expect(fork.keptUserTurns).toBe(2);
    expect(fork.resume.argv).toContain(agent === 'claw' ? fork.path : fork.id);
    expect((await stat(fork.path)).mode & 0o777).toBe(0o600);
    expect(await sha256File(source.path)).toBe(originalHash);

    const forked = JSON.parse((await run(at('show', fork.id, '--format', 'json'))).stdout) as { messages: { userTurn: boolean; role: string; blocks: unknown[] }[] };
    expect(forked.messages.filter((m) => m.userTurn)).toHaveLength(2);
    // Exactly the original's messages before turn 3: the first two turns and every answer to them.
    const strip = (m: { role: string; blocks: unknown[]; userTurn: boolean }) => ({ role: m.role, blocks: m.blocks, userTurn: m.userTurn });
    expect(forked.messages.map(strip)).toEqual(full.messages.slice(0, turnIndexes[2]).map(strip));

    // Kept lines are the original's bytes (apart from ids).
    const originalLines = new Set((await readFile(source.path, 'utf8')).split('\n').map((l) => l.replaceAll(source.id, '<id>')));
    const newLines = (await readFile(fork.path, 'utf8')).trimEnd().split('\n');
    const copied = newLines.filter((l) => originalLines.has(l.replaceAll(fork.id, '<id>').replaceAll(source.id, '<id>')));
    expect(copied.length).toBeGreaterThanOrEqual(newLines.length - 1);

    const after = await list();
    expect(after).toHaveLength(before.length + 1);
    const row = after.find((r) => r.id === fork.id)!;
    expect(row).toMatchObject({ forkedFrom: source.id, userTurns: 2 });
    // Dated when it was made, for every agent: newer than anything in the fixture home, so listed first.
    expect(after[0]!.id).toBe(fork.id);
    expect(row.createdAt > source.updatedAt).toBe(true);
    expect(row.updatedAt >= row.createdAt).toBe(true);
  });

  it('says what it kept in words, one turn or more', async () => {
    const one = await run(at('fork', '01a200ed-60a4', '--at', '2'));
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain('(kept 1 user turn)');
    const two = await run(at('fork', '01a200ed-60a4', '--at', '3'));
    expect(two.stderr).toContain('(kept 2 user turns)');
  });

  it('--help says where each agent\'s fork is written', async () => {
    const help = await run(['fork', '--help']);
    expect(help.stdout).toContain("Codex CLI: under today's date");
    expect(help.stdout).toContain('Claude Code: in the same project folder');
    expect(help.stdout).toContain('claw: in the same sessions folder');
    expect(help.stdout).not.toContain('next to the original,');
  });

  it('--to codex hands a Claude Code session off: a named Codex session in the Codex home, listed as its fork, its first turns read back', async () => {
    const source = '5a1999c3-3fef-4a8c-8969-b584a1892bda';
    const originalHash = await sha256File(join(home, '.claude', 'projects', '-home-dev-src-a-api-server', `${source}.jsonl`));
    const result = await run(at('fork', source, '--at', '3', '--to', 'codex', '--name', 'handed over', '--json'));
    expect(result.code, result.stderr).toBe(0);
    const fork = JSON.parse(result.stdout) as { agent: string; id: string; path: string; parentId: string; parentAgent: string; keptUserTurns: number; resume: { argv: string[]; cwd: string; env: Record<string, string> } };
    expect(fork).toMatchObject({ agent: 'codex', parentId: source, parentAgent: 'claude', keptUserTurns: 2 });
    expect(relative(join(home, '.codex', 'sessions'), fork.path)).toMatch(new RegExp(`^\\d{4}/\\d{2}/\\d{2}/rollout-[0-9T-]+-${fork.id}\\.jsonl$`));
    expect(fork.resume).toEqual({ argv: ['codex', 'resume', fork.id], cwd: '/home/dev/src/a-api-server', env: { CODEX_HOME: join(home, '.codex') } });
    expect((await stat(fork.path)).mode & 0o777).toBe(0o600);
    expect(await sha256File(join(home, '.claude', 'projects', '-home-dev-src-a-api-server', `${source}.jsonl`))).toBe(originalHash);
    const row = (await list()).find((r) => r.id === fork.id);
    expect(row).toMatchObject({ agent: 'codex', forkedFrom: source, userTurns: 2, name: 'handed over', cwd: '/home/dev/src/a-api-server' });
    type Shown = { messages: { userTurn: boolean; blocks: { type: string; text?: string }[] }[] };
    const prompts = (shown: Shown) => shown.messages.filter((m) => m.userTurn).map((m) => m.blocks.map((b) => b.text).join(''));
    const original = JSON.parse((await run(at('show', source, '--format', 'json'))).stdout) as Shown;
    const handed = JSON.parse((await run(at('show', fork.id, '--format', 'json'))).stdout) as Shown;
    expect(prompts(handed)).toEqual(prompts(original).slice(0, 2));
    const text = await run(at('show', fork.id, '--system'));
    expect(text.stdout).toContain(`[sessions] This conversation was handed off to Codex CLI from Claude Code session ${source}`);
  });

  it('--to the session\'s own agent is a plain fork; a session without a cwd cannot be handed off; --to takes only known agents', async () => {
    const same = await run(at('fork', '01a200ed-60a4', '--at', '2', '--to', 'codex', '--json'));
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ agent: 'codex', parentAgent: 'codex', keptUserTurns: 1 });
    expect(same.stderr).toBe('');
    const before = await snapshot(sandbox);
    // Codex 0.20's rollout records no cwd: Claude Code keeps and resumes sessions by it.
    const noCwd = await run(at('fork', '584c1c48', '--at', '2', '--to', 'claude'));
    expect(noCwd.code).toBe(1);
    expect(noCwd.stderr).toContain('the session records no working directory, and claude keeps and resumes sessions by it');
    const unknown = await run(at('fork', '01a200ed-60a4', '--at', '2', '--to', 'gemini-or-so'));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`Allowed choices are ${AGENTS.join(', ')}.`);
    expect(await snapshot(sandbox)).toEqual(before);
    const help = await run(['fork', '--help']);
    expect(help.stdout).toContain('--to <agent>');
    expect(help.stdout).toContain('the conversation is handed off');
    // Every hand-off target is listed with where it writes.
    expect(help.stdout).toMatch(/^ {2}gemini: +<gemini dir>\/tmp\/<project>\/chats\/session-<minute>-<id8>\.jsonl/m);
    expect(help.stdout).toMatch(/^ {2}qwen: +<qwen dir>\/projects\/<cwd with non-alphanumerics as ->\/chats\/<new id>\.jsonl/m);
  });

  it('without --at (or with --at end, --at turns+1, --drop-last 0) a fork copies the whole session as a new native one', async () => {
    const source = (await list()).find((r) => r.id === '01a200ed-60a4-7f10-a53c-15a9ecf122f3')!;
    const shown = async (id: string) => (JSON.parse((await run(at('show', id, '--format', 'json'))).stdout) as { messages: { userTurn: boolean; blocks: unknown[] }[] }).messages;
    const prompts = (messages: { userTurn: boolean; blocks: unknown[] }[]) => messages.filter((m) => m.userTurn).map((m) => m.blocks);
    const original = prompts(await shown(source.id));
    expect(original).toHaveLength(7);
    for (const args of [[], ['--at', 'end'], ['--at', '8'], ['--drop-last', '0']]) {
      const result = await run(at('fork', source.id, ...args, '--json'));
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      const fork = JSON.parse(result.stdout) as { id: string; agent: string; keptUserTurns: number };
      expect(fork).toMatchObject({ agent: 'codex', keptUserTurns: 7 });
      expect(prompts(await shown(fork.id))).toEqual(original);
      expect((await list()).find((r) => r.id === fork.id)?.userTurns).toBe(7);
    }
    const text = await run(at('fork', source.id));
    expect(text.stderr).toContain(`forked codex session ${source.id} every turn (kept 7 user turns)`);
  });

  it('--to AGENT without --at hands off the whole conversation: every turn, in order', async () => {
    const source = '5a1999c3-3fef-4a8c-8969-b584a1892bda';
    const prompts = async (id: string) =>
      (JSON.parse((await run(at('show', id, '--format', 'json'))).stdout) as { messages: { userTurn: boolean; blocks: { type: string; text?: string }[] }[] }).messages
        .filter((m) => m.userTurn)
        .map((m) => m.blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''));
    const original = await prompts(source);
    expect(original).toHaveLength(4);
    const result = await run(at('fork', source, '--to', 'codex', '--json'));
    expect(result.code, result.stderr).toBe(0);
    const handed = JSON.parse(result.stdout) as { id: string; agent: string; keptUserTurns: number };
    expect(handed).toMatchObject({ agent: 'codex', keptUserTurns: 4 });
    // The hand-off starts with a note naming its source; then every prompt of the source, in order.
    const carried = await prompts(handed.id);
    expect(carried.slice(-4).map((text) => text.trim())).toEqual(original.map((text) => text.trim()));
  });

  it('drops the last turn with --drop-last', async () => {
    const result = await run(at('fork', '01a200ed-60a4', '--drop-last', '1', '--json'));
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { keptUserTurns: number }).keptUserTurns).toBe(6);
  });

  it.each([
    [['fork', 'ffffffff', '--at', '2'], 'no session matches "ffffffff"'],
    [['fork', '01a200', '--at', '2'], 'matches 8 sessions'],
    [['fork', '01a200ed-60a4', '--at', '9'], 'valid turns are 2..8'],
    [['fork', '01a200ed-60a4', '--at', '1'], 'valid turns are 2..8'],
    [['fork', '01a200ed-60a4', '--at', 'start'], 'expected a whole number'],
    // only a number as written canonically: a script that passes " 2" or "02" has a bug worth hearing about
    [['fork', '01a200ed-60a4', '--at', ' 2'], 'expected a whole number'],
    [['fork', '01a200ed-60a4', '--at', '2 '], 'expected a whole number'],
    [['fork', '01a200ed-60a4', '--at', '02'], 'expected a whole number'],
    [['fork', '01a200ed-60a4', '--at', '+2'], 'expected a whole number'],
    [['fork', '01a200ed-60a4', '--at', ' end'], 'expected a whole number'],
    [['fork', '01a200ed-60a4', '--drop-last', ' 1'], 'expected a whole number'],
    [['grep', 'x', '--context', '1e1'], 'expected a whole number'],
    [['fork', '01a200ed-60a4', '--drop-last', '7'], 'valid values are 0..6'],
    [['fork', '01a200ed-60a4', '--at', '2', '--drop-last', '1'], 'only one of --at'],
    [['show', 'nothing-like-this'], 'no session matches'],
    [['resume', '5a1999c', '--dry-run'], ''],
  ])('%j exits 1 and writes nothing', async (args, message) => {
    const before = await snapshot(sandbox);
    const result = await run(at(...args));
    if (message === '') {
      // A unique prefix is not an error: the control case.
      expect(result.code).toBe(0);
      return;
    }
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(await snapshot(sandbox)).toEqual(before);
  });

  it('lists the candidates of an ambiguous prefix', async () => {
    const result = await run(at('show', '01a200fa'));
    expect(result.code).toBe(1);
    for (const id of ['01a200fa-2988-76f2-b999-ff0e8384db1e', '01a200fa-3a58-7971-88f2-72d291066439', '01a200fa-4b34-7413-b956-253dda01fe5a']) {
      expect(result.stderr).toContain(id);
    }
  });
});

describe('sessions resume', () => {
  it('prints argv and cwd with --dry-run --json', async () => {
    const result = await run(['resume', 'b0304532', '--dry-run', '--json', '--home', home, '--', '--model', 'opus']);
    expect(JSON.parse(result.stdout)).toEqual({
      argv: ['claude', '--model', 'opus', '--resume', 'b0304532-bd3a-4d34-9619-62f2487fd2d5'],
      cwd: '/home/dev/src/a-api-server',
      // --home is not where claude looks by itself: the agent is pointed at it
      env: { CLAUDE_CONFIG_DIR: join(home, '.claude') },
    });
  });

  it('prints the home variable in the command, only when the home is not the default', async () => {
    const codex = await run(['resume', 'api-health', '--dry-run', '--home', home]);
    expect(codex.stdout).toBe(`cd /home/dev/src/a-api-server && CODEX_HOME=${join(home, '.codex')} codex resume 01a200ed-500e-74e1-88bc-7c2f05604fd8\n`);
    // The same home as the agent's own (CODEX_HOME given to both): nothing to add.
    const same = await new Promise<string>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'resume', 'api-health', '--dry-run'],
        { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, CODEX_HOME: join(home, '.codex'), XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config') } },
        (_error, stdout) => resolve(stdout),
      ),
    );
    expect(same).toBe('cd /home/dev/src/a-api-server && codex resume 01a200ed-500e-74e1-88bc-7c2f05604fd8\n');
  });

  it('--dry-run warns when the recorded directory is gone, as the real run refuses, and suggests --here', async () => {
    const gone = join(sandbox, 'gone', 'a-api-server');
    await moveRecordedCwd(home, '/home/dev/src/a-api-server', gone);
    const result = await run(at('resume', 'b0304532', '--dry-run'));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`${gone} no longer exists; use --here`);
    const here = await run(at('resume', 'b0304532', '--dry-run', '--here'));
    expect(here.stderr).toBe('');
    expect(here.stdout).toContain(`cd ${sandbox} && `);
  });

  it('runs the agent in the recorded cwd with the terminal inherited and exits with its code', async () => {
    const bin = join(sandbox, 'bin');
    const project = join(sandbox, 'project');
    await mkdir(bin);
    await mkdir(project);
    await writeFile(join(bin, 'agent'), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > "${join(sandbox, 'argv.txt')}"\nexit 7\n`);
    await chmod(join(bin, 'agent'), 0o755);
    await mkdir(join(sandbox, 'config', 'sessions'), { recursive: true });
    await writeFile(join(sandbox, 'config', 'sessions', 'config.json'), JSON.stringify({ exec: { claw: [join(bin, 'agent'), 'resume', '{path}', '{prompt}'] } }));
    const rows = await list();
    const claw = rows.find((r) => r.id === 'session-1775010047738')!;
    const result = await run(at('resume', claw.id, '--prompt', 'hello there'), { cwd: project });
    expect(result.code).toBe(7);
    expect((await readFile(join(sandbox, 'argv.txt'), 'utf8')).split('\n')).toEqual([claw.cwd, 'resume', claw.path, 'hello there', '']);
  });

  it('says which command was expected when the agent is not on PATH', async () => {
    const rows = await list();
    const claw = rows.find((r) => r.id === 'session-1775010047738')!;
    const result = await run(at('resume', claw.id));
    expect(result.code).toBe(127);
    expect(result.stderr).toContain('`claw` is not on PATH');
    expect(result.stderr).toContain(`claw --resume ${claw.path}`);
  });

  it('refuses to run in a recorded cwd that no longer exists, unless --here', async () => {
    const gone = join(sandbox, 'gone', 'a-api-server');
    await moveRecordedCwd(home, '/home/dev/src/a-api-server', gone);
    const result = await run(at('resume', 'b0304532'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${gone} no longer exists`);
  });
});

describe('bad input never crashes list or show', () => {
  it('lists the rest and reports each problem once', async (context) => {
    const day = join(home, '.codex', 'sessions', '2026', '11', '23');
    await mkdir(day, { recursive: true });
    await writeFile(join(day, 'rollout-2026-11-23T01-00-00-11111111-1111-4111-8111-111111111111.jsonl'), Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a, 0x80]));
    await writeFile(join(day, 'rollout-2026-11-23T01-00-01-22222222-2222-4222-8222-222222222222.jsonl'), '');
    const source = join(home, '.codex', 'sessions', '2026', '11', '22', 'rollout-2026-11-22T01-58-44-01a200fa-2988-76f2-b999-ff0e8384db1e.jsonl');
    const text = await readFile(source, 'utf8');
    await writeFile(join(day, 'rollout-2026-11-23T01-00-02-33333333-3333-4333-8333-333333333333.jsonl'), `${text.replaceAll('01a200fa-2988-76f2-b999-ff0e8384db1e', '33333333-3333-4333-8333-333333333333')}{"timestamp":"2026-11-23T01:00:09Z","type":"respo`);
    const big = JSON.stringify({ timestamp: '2026-11-23T01:00:03Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'x', output: 'y'.repeat(20 * 1024 * 1024) } });
    await writeFile(join(day, 'rollout-2026-11-23T01-00-03-44444444-4444-4444-8444-444444444444.jsonl'), `${text.replaceAll('01a200fa-2988-76f2-b999-ff0e8384db1e', '44444444-4444-4444-8444-444444444444')}${big}\n`);
    const locked = join(home, '.claude', 'projects', '-locked');
    await mkdir(locked);
    await writeFile(join(locked, 'x.jsonl'), '{}\n');
    await chmod(locked, 0o000);
    // Root reads anything: run the CLI as nobody so the locked folder really is unreadable. The checkout may be
    // one nobody cannot read (a clone in a `mktemp -d` folder): nobody runs a copy of the built CLI in the sandbox.
    const asRoot = process.getuid?.() === 0;
    const as = asRoot ? { uid: 65534, gid: 65534, bin: await copyBuiltCli(join(sandbox, 'app')) } : {};
    if (asRoot) await openUp(sandbox);
    if (asRoot) {
      const unable = await cannotRunAsNobody(as.bin!);
      if (unable !== null) {
        console.warn(`skipped: as root, this test runs the CLI as nobody, who cannot run it here (${unable})`);
        context.skip();
      }
    }
    const result = await run(at('list', '--all', '--json'), as);
    expect(result.code, result.stderr).toBe(0);
    const ids = (JSON.parse(result.stdout) as ListRow[]).map((r) => r.id);
    expect(ids).toContain('33333333-3333-4333-8333-333333333333');
    expect(ids).toContain('44444444-4444-4444-8444-444444444444');
    expect(ids).toContain('01a200fa-2988-76f2-b999-ff0e8384db1e');
    expect(ids).not.toContain('11111111-1111-4111-8111-111111111111');
    expect(result.stderr).toMatch(/-locked: .*permission denied/);
    expect(result.stderr).toMatch(/11111111-1111-4111-8111-111111111111.jsonl: not a session file \(1 malformed line/);
    expect(result.stderr.split('\n').filter((line) => line.includes('-locked'))).toHaveLength(1);

    const show = await run(at('show', '44444444', '--format', 'md'), as);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('## Turn 2');
    const partial = await run(at('show', '33333333', '--format', 'text'), as);
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stdout).toContain('user · turn 2');
  });
});

/** Why nobody cannot run `bin` (Node itself or the temp folder out of its reach), or null when it can. */
function cannotRunAsNobody(bin: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, '--version'], { cwd: sandbox, uid: 65534, gid: 65534, env: { PATH: process.env.PATH } }, (error, _stdout, stderr) =>
      resolve(error ? `${error.message.split('\n')[0]} ${stderr.trim().split('\n')[0] ?? ''}`.trim() : null),
    );
  });
}

/** Let the unprivileged test user read the sandbox (all but what a test locked on purpose). */
async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o777);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (((await stat(path)).mode & 0o777) === 0) continue;
      await openUp(path);
    } else {
      await chmod(path, 0o666);
    }
  }
}

describe('sessions grep', () => {
  const ids = (stdout: string): string[] => stdout.trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id: string }).id).sort();

  it('finds text inside tool outputs across lines (JSON-escaped newlines), streaming NDJSON', async () => {
    const result = await run(at('grep', 'Wall time: 0.2771 seconds\nProcess exited', '--json'));
    expect(result.code, result.stderr).toBe(0);
    // The fork 01a200ed-5c85… holds that turn in the part of its parent's file it inherits (0.16x paginated history).
    expect(ids(result.stdout)).toEqual(['01a200ed-500e-74e1-88bc-7c2f05604fd8', '01a200ed-5c85-77b2-b5d4-279df852ebe4']);
  });

  it('finds text with quotes and non-ASCII characters, ignores ASCII case with -i', async () => {
    expect(ids((await run(at('grep', 'the API server (a-variant"', '--json'))).stdout)).toContain('01a200ed-500e-74e1-88bc-7c2f05604fd8');
    expect(ids((await run(at('grep', '为什么? 🙂', '--json'))).stdout)).toEqual(['01a200ed-5ea9-7d10-900c-84b2858d6d09']);
    expect(ids((await run(at('grep', 'TRY A STRICTER LINT', '--json'))).stdout)).toEqual([]);
    expect(ids((await run(at('grep', '-i', 'TRY A STRICTER LINT', '--json'))).stdout)).toEqual(['5a1999c3-3fef-4a8c-8969-b584a1892bda']);
  });

  it('--json counts the matches; --context shows the first one in its text under the row', async () => {
    const json = await run(at('grep', '-i', 'auth test', '--json', '--agent', 'codex'));
    const byId = (stdout: string): Map<string, { id: string; matches: number; inherited: boolean; snippet?: unknown }> =>
      new Map(stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; matches: number; inherited: boolean; snippet?: unknown }).map((one) => [one.id, one]));
    const rows = byId(json.stdout);
    expect(rows.get('01a200ed-500e-74e1-88bc-7c2f05604fd8')).toMatchObject({ matches: 7, inherited: false });
    expect(rows.get('01a200ed-500e-74e1-88bc-7c2f05604fd8')!.snippet).toBeUndefined();
    // Its paginated fork inherits the turns before the fork point, where the text is as often.
    expect(rows.get('01a200ed-5c85-77b2-b5d4-279df852ebe4')).toMatchObject({ matches: 7, inherited: true });
    expect(rows.size).toBe(2);
    const text = await run(at('grep', '-i', 'auth test', '--context', '8', '--agent', 'codex'));
    const under = (id: string): string | undefined => {
      const lines = text.stdout.split('\n');
      return lines[lines.findIndex((line) => line.includes(id)) + 1];
    };
    expect(under('01a200ed-500e-74e1-88bc-7c2f05604fd8')).toBe('        …did the auth test fail? t…  (7 matches)');
    expect(under('01a200ed-5c85-77b2-b5d4-279df852ebe4')).toBe('        …did the auth test fail? t…  (7 matches, in the turns it inherits from its parent)');
    const withSnippet = byId((await run(at('grep', '-i', 'auth test', '--context', '8', '--json', '--agent', 'codex'))).stdout);
    expect(withSnippet.get('01a200ed-500e-74e1-88bc-7c2f05604fd8')).toMatchObject({ matches: 7, snippet: { before: '…did the ', match: 'auth test', after: ' fail? t…' } });
    // "test" is first in the system prompt Codex records (base_instructions): the snippet shows the prompt that has it
    const tests = (await run(at('grep', 'test', '--context', '16', '--json'))).stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; snippet: unknown });
    expect(tests.find((one) => one.id === '01a200ed-500e-74e1-88bc-7c2f05604fd8')?.snippet).toEqual({ before: '[a] now run the ', match: 'test', after: 's and list the f…' });
  });

  const CODEX_500E = '01a200ed-500e-74e1-88bc-7c2f05604fd8';
  const codexFile = (): string => join(home, '.codex', 'sessions', '2026', '11', '22', `rollout-2026-11-22T01-44-42-${CODEX_500E}.jsonl`);
  // Sorted by id: rows stream in as workers find them, so their order can vary between runs. The list fields
  // (what is compared with list's rows), once each row's match count is checked and taken out.
  const grepRows = (stdout: string): ListRow[] =>
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const { matches, inherited, ...row } = JSON.parse(line) as ListRow & { matches: number; inherited: boolean };
        expect(matches).toBeGreaterThan(0);
        expect(typeof inherited).toBe('boolean');
        return row;
      })
      .sort((a, b) => (a.id < b.id ? -1 : 1));

  /** Insert a tool output line after the file's 22nd line, with `text` starting at byte `at` of the file. */
  async function insertToolOutput(path: string, text: string, at: number, totalOutput: number): Promise<void> {
    const lines = (await readFile(path, 'utf8')).split('\n');
    const before = `${lines.slice(0, 22).join('\n')}\n`;
    const record = { timestamp: '2026-11-22T01:44:43.700Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_big', output: '@' } };
    const [head, tail] = JSON.stringify(record).split('@') as [string, string];
    const lead = at - Buffer.byteLength(before) - Buffer.byteLength(head);
    expect(lead).toBeGreaterThan(0);
    const escaped = JSON.stringify(text).slice(1, -1);
    const output = `${'.'.repeat(lead)}${escaped}${'-'.repeat(Math.max(0, totalOutput - lead - escaped.length))}`;
    await writeFile(path, `${before}${head}${output}${tail}\n${lines.slice(22).join('\n')}`);
  }

  it('finds a needle deep in a big tool output, across a 256 KiB read boundary, and prints the row list prints', async () => {
    await insertToolOutput(codexFile(), 'kumquat-zebra-7781', 256 * 1024 - 7, 3 * 1024 * 1024);
    const result = await run(at('grep', 'kumquat-zebra-7781', '--json'));
    expect(result.code, result.stderr).toBe(0);
    const rows = grepRows(result.stdout);
    expect(rows.map((r) => r.id)).toEqual([CODEX_500E]);
    expect(rows[0]).toEqual((await list('--no-cache')).find((r) => r.id === CODEX_500E));
    // Text output: one list-style line.
    const text = await run(at('grep', 'kumquat-zebra-7781'));
    expect(text.stdout.trim().split('\n')).toHaveLength(1);
    expect(text.stdout).toMatch(new RegExp(`^codex +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\d+\\+?  ${CODEX_500E}  api-health  `));
    // Deep in the file (past 2 MiB) too; a near miss is no match.
    await cp(join(FIXTURES, 'home', '.codex'), join(home, '.codex'), { recursive: true });
    await insertToolOutput(codexFile(), 'deep-needle 42', 2 * 1024 * 1024 + 11, 3 * 1024 * 1024);
    expect(ids((await run(at('grep', 'deep-needle 42', '--json'))).stdout)).toEqual([CODEX_500E]);
    expect((await run(at('grep', 'deep-needle 43', '--json'))).code).toBe(1);
  });

  it('finds text with a backslash, quotes and non-ASCII however the agent escaped it', async () => {
    const text = 'C:\\Users\\dev "ünï" 项目\ttab';
    await insertToolOutput(codexFile(), text, 300 * 1024, 400 * 1024);
    // A Claude file with the same text written with \u escapes (as Python's json.dumps does).
    const claudePath = join(home, '.claude', 'projects', '-home-dev-src-a-web-ui', '637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl');
    const lines = (await readFile(claudePath, 'utf8')).trimEnd().split('\n');
    const escaped = JSON.stringify({ type: 'progress', data: { output: `before ${text} after` } }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(escaped).toContain('\\u00fcn\\u00ef');
    await writeFile(claudePath, `${lines[0]}\n${escaped}\n${lines.slice(1).join('\n')}\n`);
    const result = await run(at('grep', text, '--json'));
    expect(result.code, result.stderr).toBe(0);
    expect(ids(result.stdout)).toEqual([CODEX_500E, '637c5025-a11d-4fce-bb60-2cbeb9eb07a4']);
    expect(ids((await run(at('grep', '-i', text.toUpperCase().replace('ÜNÏ', 'ünï'), '--json'))).stdout)).toEqual([CODEX_500E, '637c5025-a11d-4fce-bb60-2cbeb9eb07a4']);
    expect((await run(at('grep', text.replace('ï', 'i'), '--json'))).code).toBe(1);
  });

  it('reports no row for files that hold no conversation, even when they contain the text', async () => {
    const project = join(home, '.claude', 'projects', '-home-dev-src-junk');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'aaaaaaaa-0000-4000-8000-00000000000a.jsonl'), '{"type":"summary","summary":"orphan-needle-5150","leafUuid":"x"}\n');
    await writeFile(join(project, 'aaaaaaaa-0000-4000-8000-00000000000b.jsonl'), '\u0000\u0001 garbage orphan-needle-5150 {not json\n');
    const result = await run(at('grep', 'orphan-needle-5150', '--json'));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect((await list('--no-cache')).map((r) => r.id)).not.toContain('aaaaaaaa-0000-4000-8000-00000000000a');
  });

  it('links Claude --fork-session forks to their parent and filters by agent and cwd like list', async () => {
    const rows = grepRows((await run(at('grep', '-i', 'TRY A STRICTER LINT', '--json'))).stdout);
    expect(rows.map((r) => [r.id, r.forkedFrom])).toEqual([['5a1999c3-3fef-4a8c-8969-b584a1892bda', 'b0304532-bd3a-4d34-9619-62f2487fd2d5']]);
    const everywhere = grepRows((await run(at('grep', 'src/', '--json'))).stdout);
    expect(new Set(everywhere.map((r) => r.agent))).toEqual(new Set(['codex', 'claude', 'claw']));
    const claw = grepRows((await run(at('grep', 'src/', '--agent', 'claw', '--json'))).stdout);
    expect(claw.length).toBeGreaterThan(0);
    expect(claw).toEqual(everywhere.filter((r) => r.agent === 'claw'));
    const rust = join(home, 'src', 'claw-code', 'rust');
    const scoped = grepRows((await run(at('grep', 'src/', '--cwd', rust, '--json'))).stdout);
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped).toEqual(everywhere.filter((r) => r.cwd === rust || r.cwd?.startsWith(`${rust}/`)));
  });

  it('searches claw workspaces found only through the cwd another agent recorded', async () => {
    const workspace = join(sandbox, 'work', 'tool');
    await cp(join(home, 'src', 'claw-code', 'rust', '.claude', 'sessions', 'session-1775011562247.json'), join(workspace, '.claude', 'sessions', 'session-1775011562247.json'), { recursive: true });
    await rm(join(home, 'src'), { recursive: true });
    const claudePath = join(home, '.claude', 'projects', '-home-dev-src-a-web-ui', '637c5025-a11d-4fce-bb60-2cbeb9eb07a4.jsonl');
    await writeFile(claudePath, (await readFile(claudePath, 'utf8')).replaceAll('"cwd":"/home/dev/src/a-web-ui"', `"cwd":${JSON.stringify(workspace)}`));
    const result = await run(['grep', 'spawn sub-agents', '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const rows = grepRows(result.stdout);
    expect(rows.map((r) => r.id)).toEqual(['session-1775011562247']);
    const listed = await run(['list', '--all', '--json', '--no-cache', '--home', home]);
    expect(rows[0]).toEqual((JSON.parse(listed.stdout) as ListRow[]).find((r) => r.id === 'session-1775011562247'));
  });

  it('searches claw sessions and legacy JSON too, and exits 1 when nothing matches', async () => {
    expect(ids((await run(at('grep', 'spawn sub-agents', '--json'))).stdout)).toEqual(['session-1775011562247']);
    const none = await run(at('grep', 'no transcript says this 7d1c'));
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
  });
});

describe('the CLI as gh and npm users type it (issue 34)', () => {
  const grepRows = (stdout: string): ListRow[] =>
    stdout
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ListRow);

  it('list text rows start each column at one place, CJK and accented titles and ids of every length included', async () => {
    const { stringWidth } = await import('../../src/ui/display-width.js');
    const rows = await list();
    const lines = (await run(at('list', '--all'))).stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(rows.length);
    expect(rows.some((row) => /[\u4e00-\u9fff]/.test(row.title))).toBe(true);
    const starts = lines.map((line, i) => {
      const cwd = rows[i]!.cwd === null ? '-' : rows[i]!.cwd!.replace(home, '~/home');
      expect(line.endsWith(`  ${cwd}`), `${line} | ${cwd}`).toBe(true);
      return stringWidth(line.slice(0, line.length - cwd.length));
    });
    expect(new Set(starts).size).toBe(1);
  });

  it('show --json is --format json; with --format md it is refused', async () => {
    const json = await run(at('show', '5a1999c3', '--json'));
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe((await run(at('show', '5a1999c3', '--format', 'json'))).stdout);
    expect((JSON.parse(json.stdout) as { id: string }).id).toBe('5a1999c3-3fef-4a8c-8969-b584a1892bda');
    const both = await run(at('show', '5a1999c3', '--json', '--format', 'md'));
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--json prints JSON');
  });

  it('help COMMAND prints the command\'s help, as COMMAND --help does', async () => {
    for (const command of ['list', 'fork', 'resume']) {
      const help = await run(['help', command]);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toBe((await run([command, '--help'])).stdout);
      expect(help.stdout).toContain(`Usage: sessions ${command}`);
    }
    const root = await run(['help']);
    expect(root.code).toBe(0);
    expect(root.stdout).toMatch(/^ {2}help \[command\] +show the help of a command$/m);
  });

  it('--limit N keeps the newest N rows of list and grep', async () => {
    const all = await list();
    const two = await list('--limit', '2');
    expect(two.map((row) => row.id)).toEqual(all.slice(0, 2).map((row) => row.id));
    const text = await run(at('list', '--all', '--limit', '3'));
    expect(text.stdout.trim().split('\n')).toHaveLength(3);
    const matched = grepRows((await run(at('grep', '-i', 'project', '--json'))).stdout);
    expect(matched.length).toBeGreaterThan(3);
    const limited = grepRows((await run(at('grep', '-i', 'project', '--json', '--limit', '2'))).stdout);
    expect(limited).toHaveLength(2);
    // Newest first, and no matching session left out is newer than one printed.
    expect(limited[0]!.updatedAt >= limited[1]!.updatedAt).toBe(true);
    for (const row of matched) if (!limited.some((one) => one.id === row.id)) expect(row.updatedAt <= limited[1]!.updatedAt, row.id).toBe(true);
    expect((await run(at('list', '--limit', '0'))).stderr).toContain('expected 1 or more');
  });

  it('--agent takes several agents, repeated or as a comma list, on list and grep', async () => {
    const all = await list();
    const wanted = all.filter((row) => row.agent === 'codex' || row.agent === 'claude').map((row) => row.id);
    expect(new Set(all.map((row) => row.agent)).size).toBeGreaterThan(2);
    expect((await list('--agent', 'codex', '--agent', 'claude')).map((row) => row.id)).toEqual(wanted);
    expect((await list('--agent', 'codex,claude')).map((row) => row.id)).toEqual(wanted);
    const grepped = grepRows((await run(at('grep', '-i', 'a', '--json', '--agent', 'claude,claw'))).stdout);
    expect(new Set(grepped.map((row) => row.agent))).toEqual(new Set(['claude', 'claw']));
    const wrong = await run(at('list', '--agent', 'codex,nope'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Allowed choices are codex, claude, claw');
  });

  it('resume --last resumes the newest session of the current directory (or --cwd), of --agent when given', async () => {
    const demo = join(home, 'src', 'demo');
    const here = await run(at('resume', '--last', '--dry-run', '--json'), { cwd: demo });
    expect(here.code, here.stderr).toBe(0);
    const newestThere = (await list()).find((row) => row.cwd === demo)!;
    expect((JSON.parse(here.stdout) as { argv: string[]; cwd: string }).cwd).toBe(demo);
    expect(JSON.parse(here.stdout)).toMatchObject({ argv: expect.arrayContaining([expect.stringContaining(newestThere.id)]) as unknown });
    const api = '/home/dev/src/a-api-server';
    const rows = (await list()).filter((row) => row.cwd === api);
    for (const agent of ['codex', 'claude']) {
      const newest = rows.find((row) => row.agent === agent)!;
      const plan = await run([...at('resume', '--last', '--cwd', api, '--agent', agent, '--dry-run', '--json'), '--', '--flag']);
      expect(plan.code, plan.stderr).toBe(0);
      const argv = (JSON.parse(plan.stdout) as { argv: string[] }).argv;
      expect(argv).toContain(newest.id);
      expect(argv).toContain('--flag');
    }
    const none = await run(at('resume', '--last', '--dry-run'));
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no session ran in ${sandbox}`);
    expect((await run(at('resume', '--dry-run'))).stderr).toContain('give a session id, or --last');
  });
});
