// Issue 9's Claude reading rules end to end: the built bin/sessions.js on a copy of test/fixtures/claude-rules.
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isClaudeNonConversationLine } from '../../src/core/formats/claude/rules.js';
import { compileTextSearch, fileContainsSync } from '../../src/core/io/contains.js';
import { lineageParent } from '../../src/catalog/lineage.js';
import { grepEngineEnv } from '../helpers/grep-engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const PROJECT = '-home-dev-src-rules';
const sid = (k: number): string => `c1a0de00-0000-4000-8000-0000000000${k.toString(16).padStart(2, '0')}`;

let sandbox: string;
let home: string;

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args, '--home', home],
      { cwd: sandbox, maxBuffer: 16 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config'), ...grepEngineEnv() } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-claude-rules-cli-'));
  home = join(sandbox, 'home');
  await cp(join(ROOT, 'test', 'fixtures', 'claude-rules', '.claude'), join(home, '.claude'), { recursive: true });
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

describe('list, show, grep and fork follow the rules', () => {
  it('list: prompts, titles, turns and lineage as the user sees them', async () => {
    // The child is made the older file: only its explicit parent link keeps the parent from being its fork.
    await utimes(join(home, '.claude', 'projects', PROJECT, `${sid(7)}.jsonl`), new Date('2026-10-01T00:00:00Z'), new Date('2026-10-01T00:00:00Z'));
    const result = await run(['list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { id: string; title: string; firstPrompt: string | null; userTurns: number; forkedFrom: string | null }[];
    const row = (k: number): unknown => {
      const found = rows.find((r) => r.id === sid(k));
      return found && { title: found.title, firstPrompt: found.firstPrompt, userTurns: found.userTurns, forkedFrom: found.forkedFrom };
    };
    expect(row(1)).toEqual({ title: 'Fix the login bug', firstPrompt: 'Fix the login bug', userTurns: 3, forkedFrom: null });
    expect(row(2)).toEqual({ title: 'Run the tests in the background', firstPrompt: 'Run the tests in the background', userTurns: 2, forkedFrom: null });
    expect(row(3)).toEqual({ title: '/orchestrator create TODO app', firstPrompt: '/orchestrator create TODO app', userTurns: 3, forkedFrom: null });
    expect(row(4)).toEqual({ title: '[image]', firstPrompt: '[image]', userTurns: 2, forkedFrom: null });
    expect(row(5)).toEqual({ title: '(no prompt)', firstPrompt: null, userTurns: 0, forkedFrom: null });
    expect(row(6)).toEqual({ title: 'Plan the release', firstPrompt: 'Plan the release', userTurns: 2, forkedFrom: null });
    expect(row(7)).toEqual({ title: 'Plan the release', firstPrompt: 'Plan the release', userTurns: 3, forkedFrom: sid(6) });
    expect(rows.map((r) => r.id)).not.toContain(sid(1).replace(/01$/, '00'));
  });

  it('show prints no IDE context and the slash command as typed', async () => {
    const ide = await run(['show', sid(1)]);
    expect(ide.code, ide.stderr).toBe(0);
    expect(ide.stdout).not.toMatch(/ide_|login\.ts/);
    expect(ide.stdout).toContain('user turns: 3');
    const commands = await run(['show', sid(3), '--format', 'md']);
    expect(commands.code, commands.stderr).toBe(0);
    expect(commands.stdout).toContain('## Turn 1\n\n**User:**\n\n/orchestrator create TODO app');
    expect(commands.stdout).toContain('## Turn 3\n\n**User:**\n\n/init');
  });

  it('a fork at turn 3 of an IDE session keeps the two turns the user typed', async () => {
    const fork = await run(['fork', sid(1), '--at', '3', '--json']);
    expect(fork.code, fork.stderr).toBe(0);
    const made = JSON.parse(fork.stdout) as { id: string; keptUserTurns: number };
    expect(made.keptUserTurns).toBe(2);
    const shown = await run(['show', made.id]);
    expect(shown.stdout).toContain('user turns: 2');
    expect(shown.stdout).toContain('Explain this selection');
    expect(shown.stdout).not.toContain('Thanks, ship it');
  });

  it('grep never matches inside request shapes, system prompts or injected attachments', async () => {
    expect((await run(['grep', 'commit'])).code).toBe(1);
    const words = await run(['grep', 'open questions', '--json']);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([sid(9)]);
  });
});

describe('the searcher skips rejected lines across chunk boundaries', () => {
  it('a match deep inside a long rejected line does not count; one in a long conversation line does', async () => {
    const path = join(sandbox, 'long.jsonl');
    const search = compileTextSearch('needle');
    await writeFile(path, `${JSON.stringify({ type: 'api-request-shape', shape: `${'x'.repeat(600_000)} needle ${'y'.repeat(1000)}` })}\n{"type":"user","message":{"content":"hello"}}\n`);
    expect(fileContainsSync(path, search)).toBe(true);
    expect(fileContainsSync(path, search, undefined, undefined, isClaudeNonConversationLine)).toBe(false);
    await appendFile(path, `${JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', message: { content: `${'z'.repeat(700_000)} needle` } })}\n`);
    expect(fileContainsSync(path, search, undefined, undefined, isClaudeNonConversationLine)).toBe(true);
  });
});

describe('lineage roots', () => {
  const at = '2026-10-02T10:10:01.000Z';
  it('never makes a parent the fork of its child: a session naming its parent is not a root', () => {
    const child = { id: 'a-child', createdAt: at, mtimeMs: 1, forkedFrom: 'b-parent' };
    const parent = { id: 'b-parent', createdAt: at, mtimeMs: 2, forkedFrom: null };
    expect(lineageParent([child, parent])).toBe(parent);
    expect(lineageParent([parent, child])).toBe(parent);
  });

  it('on equal createdAt the older file is the root, whatever the order', () => {
    const older = { id: 'z', createdAt: at, mtimeMs: 1, forkedFrom: null };
    const newer = { id: 'a', createdAt: at, mtimeMs: 2, forkedFrom: null };
    expect(lineageParent([newer, older])).toBe(older);
    expect(lineageParent([older, newer])).toBe(older);
  });
});
