#!/usr/bin/env node
// A benchmark home made of real shapes: every session is a clone of a real session file (the agents' own
// files in shared/corpus and test/fixtures: Codex 0.20 to 0.169, Claude Code, claw), with new ids (every uuid in
// the file is mapped to a new one, consistently within the file), new cwds and shifted dates. Big sessions
// (--big) repeat a real session's turns until 50, 100 and 200 MB; with --turn-shapes two more 200 MB Claude sessions
// of 20,000 and 50,000 turns (issue 15): real Claude lines re-chained, each turn a real prompt line and the real lines
// that answered it, cut short or repeated to the size a turn of that shape has.
//
//   node bench/clone-real.mjs --sessions N --out DIR [--big [--turn-shapes]] [--seed S]
//
// Writes DIR/.codex, DIR/.claude/projects, claw workspaces DIR/src/pK/.claw/sessions, and DIR/manifest.json
// (the mix: templates per agent and release, counts, bytes, the big files). Deterministic for (N, seed, DIR).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { CLONE_VERSION, REPO_ROOT as root, hasFlag, option as opt } from './lib.mjs';

const MiB = 1024 * 1024;

const N = Number(opt('--sessions', 10000));
const OUT = resolve(opt('--out', join(root, 'bench', 'data', `real-${N}`)));
const SEED = Number(opt('--seed', 1));
const BIG = hasFlag('--big');
const SHAPES = BIG && hasFlag('--turn-shapes');
const BIG_SIZES_MB = [50, 100, 200];
/** Claude sessions of 200 MB with these many user turns (the 200 MB clone of the longest session has ≈29k). */
const TURN_SHAPES = [20000, 50000];
/** Dates are spread over the year before this (never Date.now(): the output must be reproducible). */
const END_MS = Date.UTC(2026, 10, 22);
const YEAR_MS = 365 * 24 * 3600 * 1000;

// ---------------------------------------------------------------- templates: the real files
function walk(dir, accept, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, accept, out);
    else if (accept(path)) out.push(path);
  }
  return out;
}
const CORPUS = '/work/shared/corpus';
const CORPUS_CLAW = '/work/shared/corpus-claw';
const FIXTURES = join(root, 'test', 'fixtures');
const isRollout = (p) => /\/rollout-[^/]*\.jsonl$/.test(p) && !/_[^/]*\.jsonl$/.test(basename(p).replace(/^rollout-[^_]*-[0-9a-f-]{36}/, ''));
const isClaudeSession = (p) => /\/projects\/[^/]+\/[0-9a-f-]{36}\.jsonl$/.test(p);
const isClawSession = (p) => /\/(\.claw|\.claude)\/sessions\/(?:[0-9a-f]{16}\/)?[^/]+\.jsonl?$/.test(p) && !/\.rot-\d+\./.test(p) && !/empty\.jsonl$/.test(p);

const templates = { codex: [], claude: [], claw: [] };
const seen = new Set();
const addTemplate = (agent, path) => {
  const text = readFileSync(path, 'utf8');
  // The same session copied into several places (fixtures are copies of the corpus): once.
  if (seen.has(text)) return;
  seen.add(text);
  // A paginated fork's history is in its parent's file, which a clone would not find.
  if (agent === 'codex' && text.includes('"history_base"')) return;
  const version = agent === 'codex' ? (/"cli_version":"([^"]+)"/.exec(text)?.[1] ?? (text.startsWith('{"id"') ? 'legacy' : '?')) : agent === 'claude' ? (/"version":"([^"]+)"/.exec(text)?.[1] ?? '?') : path.endsWith('.json') ? 'legacy json' : 'jsonl';
  templates[agent].push({ agent, path, text, version });
};
for (const base of [CORPUS, join(FIXTURES, 'home'), join(FIXTURES, 'codex-synthetic')]) for (const p of walk(join(base, '.codex'), isRollout)) addTemplate('codex', p);
for (const base of [CORPUS, join(FIXTURES, 'home'), join(FIXTURES, 'claude-synthetic')]) for (const p of walk(join(base, '.claude'), isClaudeSession)) addTemplate('claude', p);
for (const base of [CORPUS_CLAW, join(FIXTURES, 'claw-synthetic')]) for (const p of walk(base, isClawSession)) addTemplate('claw', p);

// ---------------------------------------------------------------- cloning
function fnv(text, seed) {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
/** A uuid derived from a string: the same input, the same uuid. */
function derivedUuid(text) {
  const hex = [1, 2, 3, 4].map((k) => fnv(text, k * 7919 + SEED).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO = /"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"/g;

function shiftDates(text, deltaMs) {
  return text.replace(ISO, (_, iso) => {
    const time = Date.parse(iso);
    if (Number.isNaN(time)) return `"${iso}"`;
    const shifted = new Date(time + deltaMs).toISOString();
    return `"${iso.includes('.') ? shifted : shifted.replace(/\.\d{3}Z$/, 'Z')}"`;
  });
}
function firstTime(text) {
  ISO.lastIndex = 0;
  const match = ISO.exec(text);
  ISO.lastIndex = 0;
  return match ? Date.parse(match[1]) : END_MS - YEAR_MS;
}
const pad = (n, w = 2) => String(n).padStart(w, '0');

// claw's ids are not uuids but `session-<ms>-<counter>` (its generate_session_id), in the file (session_id) and
// mostly in its name: a clone gets its own, `<ms>` moved to its start (the template's first id to `startMs`, the
// next to `startMs + 1`, ...). Without it every clone of one template shared its ids: 714 conversations of one id
// each at 100k, which no real home has (and which `sessions` rightly treats as one conversation in many files). Each
// clone was in a workspace of its own too (10k workspaces of one session at 100k: 17.7k folders for the browser to
// watch); a project's claw sessions now share its workspace.
const CLAW_ID = /session-(\d{13})(?=\D|$)/g;
function clawIds(template, startMs) {
  const mapped = new Map();
  for (const match of `${basename(template.path)}\n${template.text}`.matchAll(CLAW_ID)) {
    if (!mapped.has(match[1])) mapped.set(match[1], String(startMs + mapped.size));
  }
  return (text) => text.replace(CLAW_ID, (token, ms) => `session-${mapped.get(ms) ?? ms}`);
}

/** One clone: every uuid mapped for clone `i`, cwds moved under DIR/src/pK, dates moved to `startMs`. */
function cloneText(template, i, startMs, cwd) {
  let text = template.text.replace(UUID, (uuid) => derivedUuid(`${uuid}:${i}`));
  if (template.agent === 'claw') text = clawIds(template, startMs)(text);
  text = text.replaceAll('/home/dev/src/', `${cwd}/`);
  return shiftDates(text, startMs - firstTime(template.text));
}

function writeFile(path, text, mtimeMs) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
}

// ---------------------------------------------------------------- the home
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const manifest = { version: CLONE_VERSION, sessions: N, seed: SEED, templates: {}, counts: { codex: 0, claude: 0, claw: 0 }, bytes: 0, big: [] };
for (const agent of Object.keys(templates)) {
  manifest.templates[agent] = templates[agent].map((t) => ({ file: relative(root, t.path).startsWith('..') ? t.path : relative(root, t.path), version: t.version, bytes: Buffer.byteLength(t.text) }));
}
// The mix: Codex 45 %, Claude 45 %, claw 10 % (in the projects' workspaces: ~50 claw sessions each at 100k).
const agentOf = (i) => (i % 20 < 9 ? 'codex' : i % 20 < 18 ? 'claude' : 'claw');
const uuidOfFile = (path) => /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(path)?.[1];

function place(agent, template, i, startMs) {
  const project = `p${i % 200}`;
  const cwd = join(OUT, 'src', project);
  const date = new Date(startMs);
  if (agent === 'codex') {
    const id = derivedUuid(`${uuidOfFile(template.path)}:${i}`);
    const stamp = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}-${pad(date.getUTCMinutes())}-${pad(date.getUTCSeconds())}`;
    return join(OUT, '.codex', 'sessions', String(date.getUTCFullYear()), pad(date.getUTCMonth() + 1), pad(date.getUTCDate()), `rollout-${stamp}-${id}.jsonl`);
  }
  if (agent === 'claude') {
    const id = derivedUuid(`${uuidOfFile(template.path)}:${i}`);
    return join(OUT, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`);
  }
  // claw: in its project's workspace (pK/.claw/sessions, as claw keeps a project's sessions), under its own ids; a name
  // that holds no id (session-newer.jsonl) gets the clone's number, as two such files cannot share a folder.
  mkdirSync(cwd, { recursive: true });
  const at = template.path.search(/\/(?:\.claw|\.claude|\.port_sessions)\//);
  const relative = clawIds(template, startMs)(template.path.slice(at + 1));
  CLAW_ID.lastIndex = 0;
  const named = CLAW_ID.test(basename(relative)) ? relative : relative.replace(/(\.jsonl?)$/, `-c${i}$1`);
  CLAW_ID.lastIndex = 0;
  return join(cwd, named);
}

for (let i = 0; i < N; i++) {
  const agent = agentOf(i);
  const list = templates[agent];
  const template = list[Math.floor(i / 20) % list.length];
  const startMs = END_MS - Math.floor(((i * 7919 + SEED * 104729) % 1_000_003) / 1_000_003 * YEAR_MS);
  const cwd = join(OUT, 'src', `p${i % 200}`);
  const text = cloneText(template, i, startMs, cwd);
  const path = place(agent, template, i, startMs);
  writeFile(path, text, startMs + 60_000);
  manifest.counts[agent]++;
  manifest.bytes += Buffer.byteLength(text);
}

// ---------------------------------------------------------------- big sessions: real turns repeated
function bigSession(agent, template, sizeMB, i) {
  const startMs = END_MS - 3600_000 * (i + 1);
  const cwd = join(OUT, 'src', 'big');
  const lines = template.text.split('\n').filter(Boolean);
  const [head, ...body] = agent === 'codex' ? lines : [null, ...lines];
  const path = place(agent, template, 1_000_000 + i, startMs);
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  let size = 0;
  if (head !== null) {
    const first = `${cloneText({ text: head }, 1_000_000 + i, startMs, cwd)}\n`;
    writeSync(fd, first);
    size += Buffer.byteLength(first);
  }
  let previousLast = null;
  for (let copy = 0; size < sizeMB * MiB; copy++) {
    let text = cloneText({ text: body.join('\n') }, `${1_000_000 + i}:${copy}`, startMs + copy * 60_000, cwd);
    if (agent === 'claude') {
      // Keep the conversation one chain: each copy's root continues from the previous copy's last line; the
      // session id (the file's stem) stays the same in every copy.
      const id = basename(path, '.jsonl');
      text = text.replace(/"sessionId":"[^"]*"/g, `"sessionId":"${id}"`);
      if (previousLast !== null) text = text.replace('"parentUuid":null', `"parentUuid":"${previousLast}"`);
      const uuids = [...text.matchAll(/"uuid":"([^"]+)"/g)];
      previousLast = uuids.at(-1)?.[1] ?? previousLast;
    }
    text += '\n';
    writeSync(fd, text);
    size += Buffer.byteLength(text);
  }
  closeSync(fd);
  utimesSync(path, (startMs + 60_000) / 1000, (startMs + 60_000) / 1000);
  manifest.big.push({ agent, path: relative(OUT, path), bytes: statSync(path).size, template: relative(root, template.path).startsWith('..') ? template.path : relative(root, template.path) });
  manifest.bytes += statSync(path).size;
}
if (BIG) {
  const longest = (agent) => templates[agent].filter((t) => t.version !== 'legacy').reduce((a, b) => (Buffer.byteLength(b.text) > Buffer.byteLength(a.text) ? b : a));
  BIG_SIZES_MB.forEach((sizeMB, k) => bigSession(k % 2 === 0 ? 'claude' : 'codex', longest(k % 2 === 0 ? 'claude' : 'codex'), sizeMB, k));
}
// ---------------------------------------------------------------- big Claude sessions of a given number of turns
/** A user line the way a person typed it: not meta, not a tool result, not a sidechain, not a command. */
function isPromptLine(value) {
  if (value.type !== 'user' || value.isMeta || value.isSidechain || value.isCompactSummary) return false;
  const content = value.message?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) && !content.some((b) => b.type === 'tool_result') ? content.filter((b) => b.type === 'text').map((b) => b.text).join('') : '';
  return text.trim().length > 0 && !/^\s*<(command-|local-command|bash-)/.test(text) && !text.startsWith('[Request interrupted');
}

/** Every real Claude turn: a prompt line and the conversation lines after it (sidechain and uuid-less lines left out). */
function realTurns() {
  const turns = [];
  for (const template of templates.claude) {
    let turn = null;
    for (const line of template.text.split('\n')) {
      let value;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof value.uuid !== 'string' || value.isSidechain || !['user', 'assistant', 'attachment', 'system'].includes(value.type)) continue;
      if (isPromptLine(value)) turns.push((turn = { prompt: value, body: [] }));
      else if (turn !== null) turn.body.push(value);
    }
  }
  return turns.filter((t) => t.body.length > 0);
}

/**
 * One chain of `turns` turns in about `sizeMB`: turn k is real turn k mod n, its answer lines cut to fit or repeated
 * (new uuids and tool ids each time) to the bytes a turn of this shape has. Linear, as a session never rewound is.
 */
function turnShapedSession(turns, sizeMB, i) {
  const pool = realTurns();
  const id = derivedUuid(`turn-shape:${turns}:${SEED}`);
  const cwd = join(OUT, 'src', 'big');
  const path = join(OUT, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`);
  mkdirSync(dirname(path), { recursive: true });
  const startMs = END_MS - 3600_000 * (i + 10);
  const perTurn = (sizeMB * MiB) / turns;
  const fd = openSync(path, 'w');
  let size = 0;
  let parent = null;
  let serial = 0;
  let out = '';
  const emit = (value, k) => {
    const uuid = derivedUuid(`turn-shape:${turns}:${serial++}`);
    let text = JSON.stringify({ ...value, uuid, parentUuid: parent, sessionId: id, cwd, timestamp: new Date(startMs + k * 1000).toISOString() });
    // Tool call ids stay pairs (call and result) within one copy of a line group.
    text = text.replace(/"(toolu_[A-Za-z0-9]+)"/g, (_, tool) => `"${tool}_${k}_${serial >> 4}"`);
    parent = uuid;
    out += `${text}\n`;
    return Buffer.byteLength(text) + 1;
  };
  let written = 0;
  for (let k = 0; k < turns; k++) {
    const turn = pool[k % pool.length];
    written += emit(turn.prompt, k);
    // At least one answer line (the smallest when the turns so far are over their size); then the answer's lines
    // in order, again from its start, until the turns so far have their size.
    const smallest = turn.body.reduce((a, b) => (JSON.stringify(b).length < JSON.stringify(a).length ? b : a));
    if (written >= (k + 1) * perTurn) written += emit(smallest, k);
    else for (let j = 0; written < (k + 1) * perTurn; j++) written += emit(turn.body[j % turn.body.length], k);
    if (out.length > 1 << 20) {
      writeSync(fd, out);
      size += Buffer.byteLength(out);
      out = '';
    }
  }
  writeSync(fd, out);
  size += Buffer.byteLength(out);
  closeSync(fd);
  utimesSync(path, (startMs + turns * 1000) / 1000, (startMs + turns * 1000) / 1000);
  manifest.big.push({ agent: 'claude', path: relative(OUT, path), bytes: statSync(path).size, turnsShape: turns, template: 'real Claude turns of every Claude template, re-chained' });
  manifest.bytes += size;
}
if (SHAPES) TURN_SHAPES.forEach((turns, k) => turnShapedSession(turns, 200, k));

writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
process.stderr.write(`clone-real: ${N} sessions (${manifest.counts.codex} Codex, ${manifest.counts.claude} Claude, ${manifest.counts.claw} claw) from ${templates.codex.length}+${templates.claude.length}+${templates.claw.length} real files, ${(manifest.bytes / MiB).toFixed(0)} MiB, in ${OUT}\n`);
