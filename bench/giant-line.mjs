#!/usr/bin/env node
// `sessions show` of a session holding one giant line (issue 28: a 300 MB tool output on one line), for each agent
// whose files are JSON lines: the session is the sample home's, with one tool output made MIB MiB of text (written
// JSON-escaped, so the line is ~1.5× that). Peak RSS (/usr/bin/time's %M) against the 250 MB bound, wall time, the
// bytes printed, every user turn printed, and the note of what was left out.
//
//   node bench/giant-line.mjs [--mib 300] [--agents claude,codex,copilot,gemini,qwen]
//
// The homes are generated once into bench/data/giant-line-<mib> (about 450 MB each). Prints one JSON line per agent.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { once } from 'node:events';
import { REPO_ROOT as root, option as opt } from './lib.mjs';

const BIN = join(root, 'bin', 'sessions.js');
const MIB = Number(opt('--mib', 300));
const AGENTS = opt('--agents', 'claude,codex,copilot,gemini,qwen').split(',');
const SAMPLE = join(root, 'examples', 'home');
const DATA = join(root, 'bench', 'data', `giant-line-${MIB}`);
const PLACEHOLDER = '@@GIANT-OUTPUT@@';

/** Per agent: the session file (a path under the sample home), the folder copied with it, and the line and key to inflate. */
const SESSIONS = {
  claude: { file: find('.claude/projects', (p) => p.endsWith('4908739e-7140-40f4-bd05-9ab21cdf9519.jsonl')), line: '"tool_result"', set: (r) => (r.message.content.find((b) => b.type === 'tool_result').content = PLACEHOLDER) },
  codex: { file: find('.codex/sessions', (p) => p.includes('01a200ed-500e')), line: '"function_call_output"', set: (r) => (r.payload.output = PLACEHOLDER) },
  copilot: { file: find('.copilot/session-state', (p) => p.includes('333c8c0f') && p.endsWith('events.jsonl')), folder: true, line: '"tool.execution_complete"', set: (r) => (r.data.result.content = PLACEHOLDER) },
  // The result kept with the call and in the user record Gemini CLI sends it back in: both made giant.
  gemini: {
    file: find('.gemini/tmp', (p) => p.includes('c736521c')),
    project: true,
    every: true,
    line: '"functionResponse"',
    set: (r) => everyOutput(r),
  },
  qwen: { file: find('.qwen/projects', (p) => p.includes('2b22c286')), line: '"functionResponse"', set: (r) => (r.message.parts.find((p) => p.functionResponse).functionResponse.response.output = PLACEHOLDER) },
};

/** Every `functionResponse.response.output` in a record set to the placeholder (wherever the record keeps them). */
function everyOutput(value) {
  if (value === null || typeof value !== 'object') return;
  if (value.functionResponse?.response && typeof value.functionResponse.response.output === 'string') value.functionResponse.response.output = PLACEHOLDER;
  for (const item of Object.values(value)) everyOutput(item);
}

function find(under, wanted) {
  const all = readdirSync(join(SAMPLE, under), { recursive: true }).map((name) => join(SAMPLE, under, String(name)));
  const hit = all.find(wanted);
  if (!hit) throw new Error(`no sample session under ${under}`);
  return hit;
}

/** The sample session with one line's output replaced by MIB MiB of `y\n`, streamed to disk (never held whole). */
async function generate(agent) {
  const spec = SESSIONS[agent];
  const home = join(DATA, agent);
  const target = join(home, relative(SAMPLE, spec.file));
  if (existsSync(join(home, 'done'))) return home;
  rmSync(home, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  if (spec.folder) cpSync(dirname(spec.file), dirname(target), { recursive: true });
  if (spec.project) cpSync(dirname(dirname(spec.file)), dirname(dirname(target)), { recursive: true });
  const lines = readFileSync(spec.file, 'utf8').split('\n');
  const out = createWriteStream(target);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const chunk = 'y\\n'.repeat(1 << 19); // 1 MiB of output text, JSON-escaped
  // Each record the spec names (Gemini CLI keeps a call's result twice: with the call and in the reply it sends back).
  const inflated = spec.every ? lines.map((line) => line.includes(spec.line)) : lines.map((line, at) => at === lines.findIndex((one) => one.includes(spec.line)));
  for (const [at, line] of lines.entries()) {
    if (at > 0) await write('\n');
    if (!inflated[at]) {
      await write(line);
      continue;
    }
    const record = JSON.parse(line);
    spec.set(record);
    const parts = JSON.stringify(record).split(PLACEHOLDER);
    for (const [k, part] of parts.entries()) {
      if (k > 0) for (let m = 0; m < MIB; m++) await write(chunk);
      await write(part);
    }
  }
  out.end();
  await once(out, 'finish');
  writeFileSync(join(home, 'done'), '');
  return home;
}

function show(home, id) {
  return new Promise((done) => {
    const timeFile = join(tmpdir(), `giant-line-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const env = { ...process.env, XDG_CACHE_HOME: join(root, 'bench', '.work', 'xdg-giant-line') };
    const t0 = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, process.execPath, BIN, 'show', id, '--home', home, '--no-cache'], { stdio: ['ignore', 'pipe', 'ignore'], env });
    let bytes = 0;
    let text = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      // Only the lines that matter are kept: turn headings and the note.
      for (const line of chunk.toString('utf8').split('\n')) if (line.startsWith('── user · turn') || line.includes('more not shown')) text += `${line}\n`;
    });
    child.on('close', (code) => {
      const maxKB = Number(readFileSync(timeFile, 'utf8').trim());
      rmSync(timeFile, { force: true });
      done({ code, ms: Math.round(Number(process.hrtime.bigint() - t0) / 1e6), hwmMB: Math.round(maxKB / 1024), bytes, turns: (text.match(/── user · turn/g) ?? []).length, note: /more not shown/.test(text) });
    });
  });
}

for (const agent of AGENTS) {
  const home = await generate(agent);
  const listed = spawnSync(process.execPath, [BIN, 'list', '--all', '--json', '--home', home, '--no-cache', '--agent', agent], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const row = JSON.parse(listed.stdout || '[]')[0];
  if (row === undefined) {
    process.stdout.write(`${JSON.stringify({ agent, error: `not listed: ${listed.stderr.trim()}` })}\n`);
    continue;
  }
  const r = await show(home, row.id);
  process.stdout.write(`${JSON.stringify({ agent, id: row.id, outputMiB: MIB, userTurns: row.userTurns, ...r, everyTurn: r.turns === row.userTurns, target: '≤ 250 MB RSS', met: r.code === 0 && r.hwmMB <= 250 && r.turns === row.userTurns })}\n`);
}
