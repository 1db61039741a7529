// A generator of hostile homes: session files and names written to attack a terminal, an argv, the reader or
// the writer. Every case here is one that was tried on the built CLI and TUI (issue 10): some broke it, some
// already held. The home is written fresh per test; nothing is read from the machine's own agent folders.
import { execFileSync, spawn } from 'node:child_process';
import { access, chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const ESC = '\u001b';
const BEL = '\u0007';

/** Strings that would act on a terminal: window title, clipboard (OSC 52), clear screen and cursor moves, bidi. */
export const EVIL = {
  title: `${ESC}]0;PWNED-TITLE${BEL}`,
  clipboard: `${ESC}]52;c;UFdORUQtQ0xJUA==${BEL}`,
  clear: `${ESC}[2J${ESC}[H${ESC}[5;5H`,
  color: `${ESC}[31m`,
  bidi: '\u202e',
  zeroWidth: '\u200b\u200b\u200b\u200d',
} as const;

export const EVIL_CWD = `/tmp/x${EVIL.title}${EVIL.clipboard}y`;
export const EVIL_BRANCH = `main${EVIL.clear}`;
export const EVIL_MODEL = `gpt${EVIL.title}`;
/** A prompt that says "fix the exe.png bug" to the eye but is spoofed by a bidi override and zero-width runs. */
export const EVIL_PROMPT = `fix the ${EVIL.bidi}gnp.exe${EVIL.zeroWidth} bug ${EVIL.color}in red${ESC}[0m and ${EVIL.clear}`;

/** Ids of the sessions the test acts on. */
export const IDS = {
  /** A well-formed Codex session whose every text field is hostile. */
  evilCodex: '0aa00000-0000-7000-8000-000000000001',
  /** Two sessions sharing a prefix: resolving `ambiguous` must list both titles, sanitised. */
  ambiguousA: 'deadbeef-0000-4000-8000-00000000000a',
  ambiguousB: 'deadbeef-0000-4000-8000-00000000000b',
  /** Codex session_meta id that is an option of the agent (the file name carries a UUID). */
  codexOption: '--dangerously-bypass-approvals-and-sandbox',
  codexOptionFile: '0aa00000-0000-7000-8000-0000000000ff',
  /** A Claude file whose stem (the id) is an option. */
  claudeOption: '--dangerously-skip-permissions',
  /** A Codex id that is a template placeholder. */
  placeholder: '{path}',
  placeholderFile: '0aa00000-0000-7000-8000-0000000000fe',
  evilClaw: 'session-1776000000000-0',
} as const;

export interface HostileHome {
  /** The folder holding everything below. */
  readonly root: string;
  /** `--home` for the commands: <home>/.codex, <home>/.claude. */
  readonly home: string;
  /** `--claw-dir`. */
  readonly clawDir: string;
  /** XDG_CACHE_HOME and XDG_CONFIG_HOME. */
  readonly cacheHome: string;
  readonly configHome: string;
  /** Where `sessions` runs (no session ran there). */
  readonly work: string;
  /** Paths that are not regular files or cannot be compared (FIFOs, unreadable files). */
  readonly special: readonly string[];
}

function codexLines(id: string, options: { cwd: unknown; branch?: unknown; model?: string; prompts: readonly string[] }): string[] {
  const lines = [
    {
      timestamp: '2026-11-20T10:00:00.000Z',
      type: 'session_meta',
      payload: { id, timestamp: '2026-11-20T10:00:00.000Z', cwd: options.cwd, originator: 'codex_cli_rs', cli_version: '0.39.0', instructions: null, git: { branch: options.branch } },
    },
  ];
  options.prompts.forEach((prompt, i) => {
    const at = `2026-11-20T10:0${i + 1}:00.000Z`;
    lines.push(
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } } as never,
      { timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: prompt, kind: 'plain' } } as never,
      { timestamp: at, type: 'turn_context', payload: { cwd: options.cwd, approval_policy: 'never', model: options.model ?? 'gpt-stand-in' } } as never,
      { timestamp: at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${i + 1} ${EVIL.title}${EVIL.clear}` }] } } as never,
    );
  });
  return lines.map((line) => JSON.stringify(line));
}

function claudeLines(sessionId: string, cwd: string, branch: string, prompts: readonly string[]): string[] {
  const out: string[] = [];
  let parent: string | null = null;
  prompts.forEach((prompt, i) => {
    const user = `00000000-0000-4000-8000-${String(2 * i).padStart(12, '0')}`;
    const assistant = `00000000-0000-4000-8000-${String(2 * i + 1).padStart(12, '0')}`;
    const common = { isSidechain: false, cwd, sessionId, version: '2.1.197', gitBranch: branch, timestamp: `2026-11-20T11:0${i}:00.000Z` };
    out.push(JSON.stringify({ parentUuid: parent, type: 'user', message: { role: 'user', content: prompt }, uuid: user, ...common }));
    out.push(
      JSON.stringify({
        parentUuid: user,
        type: 'assistant',
        message: { id: `msg_${i}`, role: 'assistant', model: EVIL_MODEL, content: [{ type: 'text', text: `reply ${i} ${EVIL.title}` }], usage: { input_tokens: 1, output_tokens: 1 } },
        uuid: assistant,
        ...common,
      }),
    );
    parent = assistant;
  });
  return out;
}

/** Deterministic bytes that are not a session (no JSON, some newlines, NULs and invalid UTF-8 among them). */
function garbage(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

/**
 * Write a hostile home under `root`. With `fifos`, a FIFO stands where session_index.jsonl, a Codex rollout, a
 * Claude session, a claw session and the cache files are read.
 */
export async function buildHostileHome(root: string, options: { readonly fifos: boolean }): Promise<HostileHome> {
  const home = join(root, 'home');
  const codex = join(home, '.codex');
  const day = join(codex, 'sessions', '2026', '11', '20');
  const project = join(home, '.claude', 'projects', '-tmp-x');
  const clawDir = join(root, 'claw');
  const clawSessions = join(clawDir, 'ws', '.claw', 'sessions');
  const cacheHome = join(root, 'cache');
  const configHome = join(root, 'config');
  const work = join(root, 'work');
  for (const dir of [day, project, clawSessions, join(cacheHome, 'sessions'), join(configHome, 'sessions'), work]) await mkdir(dir, { recursive: true });
  const special: string[] = [];
  const rollout = (time: string, id: string): string => join(day, `rollout-2026-11-20T${time}-${id}.jsonl`);

  // Terminal escapes, bidi and zero-width characters in every field a row, a preview, show or an error prints.
  await writeFile(rollout('10-00-00', IDS.evilCodex), text(codexLines(IDS.evilCodex, { cwd: EVIL_CWD, branch: EVIL_BRANCH, model: EVIL_MODEL, prompts: [EVIL_PROMPT, `second ${EVIL.title}`, 'third'] })));
  await writeFile(rollout('10-00-01', IDS.ambiguousA), text(codexLines(IDS.ambiguousA, { cwd: '/tmp/a', prompts: [`ambiguous A ${EVIL.title}${EVIL.clear}`, 'two'] })));
  await writeFile(rollout('10-00-02', IDS.ambiguousB), text(codexLines(IDS.ambiguousB, { cwd: '/tmp/b', prompts: [`ambiguous B ${EVIL.clipboard}`, 'two'] })));
  // Ids that are options of the agent, or placeholders of the resume template.
  await writeFile(rollout('10-00-03', IDS.codexOptionFile), text(codexLines(IDS.codexOption, { cwd: '/tmp', prompts: ['option id one', 'option id two'] })));
  await writeFile(rollout('10-00-04', IDS.placeholderFile), text(codexLines(IDS.placeholder, { cwd: '/tmp', prompts: ['placeholder id one', 'two'] })));
  // Garbage named like a rollout, big (decided by content, not size) and small.
  await writeFile(rollout('10-00-05', '0aa00000-0000-7000-8000-000000000005'), garbage(150 * 1024, 5));
  await writeFile(rollout('10-00-06', '0aa00000-0000-7000-8000-000000000006'), garbage(2 * 1024, 6));
  // NUL bytes, invalid UTF-8, wrong types, deep nesting and a huge line among good lines.
  const mixed = codexLines('0aa00000-0000-7000-8000-000000000007', { cwd: '/tmp/mixed', prompts: ['mixed one', 'mixed two'] });
  await writeFile(
    rollout('10-00-07', '0aa00000-0000-7000-8000-000000000007'),
    Buffer.concat([
      Buffer.from(text(mixed.slice(0, 3))),
      Buffer.from('{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"nul \u0000 byte"}]}}\n'),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x0a]),
      Buffer.from('{"type":"session_meta","payload":{"id":42,"cwd":["x"]}}\n{"type":"response_item","payload":{"type":"message","role":"user","content":7}}\n'),
      Buffer.from(`${'['.repeat(200_000)}\n`),
      Buffer.from(`${JSON.stringify({ timestamp: '2026-11-20T10:01:30.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output: 'x'.repeat(3 << 20) } })}\n`),
      Buffer.from(text(mixed.slice(3))),
    ]),
  );
  // A file nobody may read (root reads it anyway), and a symlink loop among the date folders.
  const locked = rollout('10-00-08', '0aa00000-0000-7000-8000-000000000008');
  await writeFile(locked, text(codexLines('0aa00000-0000-7000-8000-000000000008', { cwd: '/tmp/locked', prompts: ['locked one'] })));
  await chmod(locked, 0o000);
  special.push(locked);
  await symlink('..', join(day, 'loop'));
  await symlink(join(codex, 'sessions'), join(codex, 'sessions', 'again'));
  await writeFile(join(codex, 'session_index.jsonl'), `${JSON.stringify({ id: IDS.evilCodex, thread_name: `named ${EVIL.title}`, updated_at: '2026-11-20T12:00:00Z' })}\n`);

  // Claude Code: the id is the file stem.
  await writeFile(join(project, `${IDS.claudeOption}.jsonl`), text(claudeLines(IDS.claudeOption, '/tmp', 'main', ['claude option one', 'claude option two'])));
  await writeFile(join(project, '0bb00000-0000-4000-8000-000000000001.jsonl'), text(claudeLines('0bb00000-0000-4000-8000-000000000001', EVIL_CWD, EVIL_BRANCH, [EVIL_PROMPT, 'claude two'])));

  // claw: hostile fields in a JSONL session.
  await writeFile(
    join(clawSessions, `${IDS.evilClaw}.jsonl`),
    text([
      JSON.stringify({ created_at_ms: 1776000000000, model: EVIL_MODEL, session_id: IDS.evilClaw, type: 'session_meta', updated_at_ms: 1776000001500, version: 1, workspace_root: EVIL_CWD }),
      JSON.stringify({ message: { blocks: [{ text: EVIL_PROMPT, type: 'text' }], role: 'user' }, type: 'message' }),
      JSON.stringify({ message: { blocks: [{ text: `claw reply ${EVIL.title}`, type: 'text' }], role: 'assistant' }, type: 'message' }),
      JSON.stringify({ message: { blocks: [{ text: 'claw two', type: 'text' }], role: 'user' }, type: 'message' }),
    ]),
  );
  await writeFile(join(clawSessions, 'session-1776000000001-0.jsonl'), text([JSON.stringify({ session_id: '-rf', type: 'session_meta', version: 1 }), JSON.stringify({ message: { blocks: [{ text: 'dash id', type: 'text' }], role: 'user' }, type: 'message' })]));

  // Devices behind session-shaped names: reading /dev/zero never ends.
  await symlink('/dev/zero', rollout('10-00-11', '0aa00000-0000-7000-8000-0000000000dd'));
  await symlink('/dev/zero', join(project, '0bb00000-0000-4000-8000-0000000000dd.jsonl'));
  await symlink('/dev/zero', join(clawSessions, 'session-1776000000002-0.jsonl'));

  if (options.fifos) {
    const fifos = [
      rollout('10-00-09', '0aa00000-0000-7000-8000-000000000009'),
      join(project, '0bb00000-0000-4000-8000-0000000000f1.jsonl'),
      join(clawSessions, 'session-1776000000009-0.jsonl'),
      join(cacheHome, 'sessions', 'catalog-v2.jsonl'),
      join(cacheHome, 'sessions', 'catalog-v2.head.json'),
    ];
    await rm(join(codex, 'session_index.jsonl'));
    fifos.push(join(codex, 'session_index.jsonl'));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    special.push(...fifos);
  }
  return { root, home, clawDir, cacheHome, configHome, work, special };
}

/**
 * A child process that appends index lines the way Codex does (O_APPEND, one write per line), one every `gap`
 * microseconds, until `<path>.stop` exists (or `max` lines); it creates `<path>.started` after its 20th line and
 * prints how many lines it wrote.
 */
export const CODEX_LIKE_APPENDER = `
const fs = require('node:fs');
const [path, gap, max] = [process.argv[1], BigInt(process.argv[2]), Number(process.argv[3] ?? 1e9)];
const fd = fs.openSync(path, 'a');
let i = 0;
for (; i < max && !(i % 100 === 0 && fs.existsSync(path + '.stop')); i++) {
  fs.writeSync(fd, JSON.stringify({ id: 'agent-' + i, thread_name: 'agent name ' + i, updated_at: '2026-11-22T01:00:00Z' }) + '\\n');
  if (i === 20) fs.writeFileSync(path + '.started', '');
  for (const spin = process.hrtime.bigint(); process.hrtime.bigint() - spin < gap * 1000n;);
}
process.stdout.write(String(i));
`;

/** Start CODEX_LIKE_APPENDER on `path`; resolves once it is appending, with a function that stops it and returns its count. */
export async function startCodexLikeAppender(path: string, gapMicros: number, max?: number): Promise<() => Promise<number>> {
  const child = spawn(process.execPath, ['-e', CODEX_LIKE_APPENDER, path, String(gapMicros), ...(max === undefined ? [] : [String(max)])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 10_000;
  while (!(await access(`${path}.started`).then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error('the appender never started');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return async () => {
    await writeFile(`${path}.stop`, '');
    const code = await exited;
    if (code !== 0) throw new Error(`the appender exited with ${String(code)}`);
    return Number(out);
  };
}

/**
 * A file that changes while it is read: a child process rewrites `path` over and over with a growing prefix of
 * `content` (truncated to nothing, then a line at a time, cut mid-line too) until stopped.
 */
export async function startChurningFile(path: string, content: string): Promise<() => Promise<void>> {
  const script = `
const fs = require('node:fs');
const [path, content] = [process.argv[1], process.argv[2]];
let n = 0;
fs.writeFileSync(path + '.churning', '');
while (!fs.existsSync(path + '.stop')) {
  fs.writeFileSync(path, content.slice(0, n));
  n = n >= content.length ? 0 : n + 97;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); // sleep 2 ms
}
`;
  const child = spawn(process.execPath, ['-e', script, path, content], { stdio: 'inherit' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 10_000;
  while (!(await access(`${path}.churning`).then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error('the churning writer never started');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return async () => {
    await writeFile(`${path}.stop`, '');
    await exited;
  };
}

/** Lines of a small valid Codex session, for a file that changes while read. */
export function churnContent(): string {
  return text(codexLines('0aa00000-0000-7000-8000-0000000000cc', { cwd: '/tmp/churn', prompts: [`churn one ${EVIL.title}`, 'churn two', 'churn three'] }));
}
