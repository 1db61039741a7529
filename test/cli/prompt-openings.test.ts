// A row's prompts are openings (whitespace collapsed, cut with `…`): the cut never falls inside a character, so
// `list --json` never holds half a surrogate pair (strict JSON readers reject it) nor half an emoji; `show --format
// json` holds the whole prompt. Sessions of every agent, written by the hand-off writers (each agent's own format,
// read back by its adapter), with an emoji sequence at every place the cut can fall.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADAPTER_LIST, ADAPTERS } from '../../src/core/formats/index.js';
import type { AdapterContext } from '../../src/core/formats/types.js';
import { HANDOFF_TARGETS, handOff } from '../../src/core/handoff/index.js';
import { PROMPT_OPENING_MAX, promptOpening, type Agent, type Message, type Session } from '../../src/core/model.js';
import { loadAgentDatabase } from '../helpers/agent-databases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'fixtures');
const BIN = join(ROOT, 'bin', 'sessions.js');
const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };

/** 11 UTF-16 units, one grapheme: a cut at any of its inner places splits it. */
const FAMILY = '👩‍👩‍👧‍👦';
/** Prompts whose family sequences start at each offset 0..10, so that one of them straddles every cut place. */
const prompts = (lead: string): string[] =>
  Array.from({ length: FAMILY.length }, (_, shift) => `${lead.repeat(shift)}${FAMILY.repeat(30)} and 🎉 the end`);
const FIRST = prompts('a');
const LAST = prompts('é');

let temp: string;
let home: string;
let cwd: string;

/** A real session of `agent` with its first and last-but-one typed prompts replaced: the hand-off source (a hand-off keeps the turns before one). */
async function source(agent: Agent, path: string, root: string, first: string, last: string): Promise<Session> {
  const real = await ADAPTERS[agent].readSession({ agent, paths: [join(FIXTURES, path)], idHint: null, root: join(FIXTURES, root), archived: false }, context);
  const turns = real.messages.filter((message) => message.userTurn).length;
  let turn = 0;
  const messages = real.messages.map((message): Message => {
    if (!message.userTurn) return message;
    turn++;
    const text = turn === 1 ? first : turn === turns - 1 ? last : `turn ${turn}`;
    return { ...message, blocks: [{ type: 'text', text }] };
  });
  return { ...real, messages, cwd };
}

function run(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [BIN, ...args, '--home', home, '--claw-dir', cwd],
      { cwd: temp, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: temp, XDG_CACHE_HOME: join(temp, 'cache'), XDG_CONFIG_HOME: join(temp, 'config') } },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-openings-'));
  home = join(temp, 'home');
  cwd = join(temp, 'project');
  await mkdir(cwd, { recursive: true });
  // opencode and Kilo Code make their databases; a hand-off only adds to them (dumps of those the real CLIs wrote).
  for (const agent of ['opencode', 'kilo'] as const) await loadAgentDatabase(agent, home);
  // Each agent's home folder under the home (claw has none: it writes into the cwd); opencode's and Kilo's hold the databases above.
  const homes = Object.fromEntries(ADAPTER_LIST.flatMap((adapter) => (adapter.locations.homeFolder === null ? [] : [[adapter.agent, join(home, adapter.locations.homeFolder)]])));
  for (let i = 0; i < FIRST.length; i++) {
    const fromCodex = await source('codex', 'home/.codex/sessions/2026/11/22/rollout-2026-11-22T01-44-42-01a200ed-500e-74e1-88bc-7c2f05604fd8.jsonl', 'home/.codex', FIRST[i]!, LAST[i]!);
    const fromClaude = await source('claude', 'home/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl', 'home/.claude', FIRST[i]!, LAST[i]!);
    for (const to of HANDOFF_TARGETS) {
      const from = to === 'codex' ? fromClaude : fromCodex;
      await handOff(from, { to, atTurn: from.userTurns, now: new Date(Date.UTC(2026, 10, 24, 10, i)) }, homes);
    }
  }
}, 120_000);

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

it('list --json: no half surrogate pair, every cut prompt an opening of whole characters ending in …, for every agent', async () => {
  const stdout = await run(['list', '--all', '--json']);
  // JSON.stringify writes a surrogate as an escape only when it is half a pair.
  expect(stdout).not.toMatch(/\\u[dD][89a-fA-F][0-9a-fA-F]{2}/);
  const rows = (JSON.parse(stdout) as { agent: Agent; cwd: string; title: string; firstPrompt: string; lastPrompt: string }[]).filter((row) => row.cwd === cwd);
  for (const agent of HANDOFF_TARGETS) {
    const mine = rows.filter((row) => row.agent === agent);
    expect(mine, agent).toHaveLength(FIRST.length);
    expect(mine.map((row) => row.firstPrompt).sort(), agent).toEqual(FIRST.map(cutReference).sort());
    expect(mine.map((row) => row.lastPrompt).sort(), agent).toEqual(LAST.map(cutReference).sort());
    for (const row of mine) expect([row.firstPrompt, row.title], agent).toContain(row.title);
  }
  for (const opening of FIRST.map((text) => promptOpening(text))) {
    expect(opening.length).toBeLessThanOrEqual(PROMPT_OPENING_MAX);
    expect(opening.endsWith('…')).toBe(true);
  }
});

it('show --format json holds each prompt whole, for every agent', async () => {
  const rows = (JSON.parse(await run(['list', '--all', '--json'])) as { agent: Agent; id: string; cwd: string; lastPrompt: string }[]).filter((row) => row.cwd === cwd);
  for (const agent of HANDOFF_TARGETS) {
    const row = rows.find((one) => one.agent === agent && one.lastPrompt === cutReference(LAST[7]!))!;
    const shown = JSON.parse(await run(['show', row.id, '--format', 'json'])) as { messages: { userTurn: boolean; blocks: { text?: string }[] }[] };
    const typed = shown.messages.filter((message) => message.userTurn).map((message) => message.blocks.map((block) => block.text ?? '').join(''));
    expect(typed[0], agent).toBe(FIRST[7]);
    expect(typed.at(-1), agent).toBe(LAST[7]);
  }
});

/** What the contract says a cut prompt is, computed apart: whole graphemes while they fit in 199 units, then `…`. */
function cutReference(text: string): string {
  let out = '';
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
    if (out.length + segment.length > PROMPT_OPENING_MAX - 1) break;
    out += segment;
  }
  return `${out.trimEnd()}…`;
}
