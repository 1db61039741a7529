#!/usr/bin/env node
// Realistic benchmark data: a home folder with N coding-agent sessions.
//
//   npm run bench:data -- --sessions N --out DIR [--seed S] [--big|--no-big] [--lite] [--workers W]
//
// Writes DIR/.codex (rollouts of Codex 0.169 and of older releases, legacy files, session_index.jsonl,
// a few archived), DIR/.claude/projects (Claude Code 2.1 sessions: uuid/parentUuid chains, attachments,
// tool_use/tool_result, thinking, last-prompt/custom-title lines) and claw workspaces under
// DIR/src/<project>/.claw/sessions. Line shapes copy the real files in shared/corpus and
// shared/corpus-claw (same keys, same key order); only ids, times, cwds and texts vary.
// Every session is a pure function of (seed, index), so the output is deterministic for a given
// seed and DIR (cwds are absolute paths under DIR/src, so claw workspaces are real folders).
// DIR/manifest.json records counts, sizes, the big and long-line sessions and the search needles.
import { closeSync, mkdirSync, openSync, rmSync, utimesSync, writeFileSync, writeSync, existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const MiB = 1024 * 1024;
/** Bump when the output for a given seed changes: bench/run.mjs regenerates data sets of another version. */
export const GENERATOR_VERSION = 2;
/** Fixed end of the year the sessions are spread over (never Date.now(): output must be reproducible). */
const END_MS = Date.UTC(2026, 10, 22, 0, 0, 0);
const YEAR_MS = 365 * 24 * 3600 * 1000;
/** Words that the full-text benchmark searches for; their document counts go into the manifest. */
export const NEEDLES = {
  rare: 'kumquat-zebra-7781', // ~0.3 % of sessions, deep inside a tool output
  common: 'ECONNRESET', // ~3 % of sessions
};

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const opts = { sessions: 10000, out: null, seed: 1, big: null, lite: false, workers: null, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--sessions' || a === '-n') opts.sessions = Number(next());
    else if (a === '--out' || a === '-o') opts.out = next();
    else if (a === '--seed') opts.seed = Number(next());
    else if (a === '--big') opts.big = true;
    else if (a === '--no-big') opts.big = false;
    else if (a === '--lite') opts.lite = true;
    else if (a === '--workers') opts.workers = Number(next());
    else if (a === '--quiet' || a === '-q') opts.quiet = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'usage: node bench/generate.mjs --sessions N --out DIR [--seed S] [--big|--no-big] [--lite] [--workers W]\n' +
          '  --big     add 50-200 MB sessions (default: on when N >= 1000)\n' +
          '  --lite    small files (turns 1..12, short tool outputs): for catalog/search-only data sets\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(opts.sessions) || opts.sessions < 1) throw new Error('--sessions must be a positive integer');
  if (!Number.isFinite(opts.seed)) throw new Error('--seed must be a number');
  opts.out = resolve(opts.out ?? `bench/data/home-${opts.sessions}`);
  if (opts.big === null) opts.big = opts.sessions >= 1000 && !opts.lite;
  opts.workers ??= Math.max(1, Math.min(availableParallelism(), 4, Math.ceil(opts.sessions / 500)));
  return opts;
}

// ---------------------------------------------------------------- PRNG (sfc32, seeded by a string hash)
function hash32(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
function makeRng(seedStr) {
  let a = hash32(`a${seedStr}`), b = hash32(`b${seedStr}`), c = hash32(`c${seedStr}`), d = hash32(`d${seedStr}`) | 1;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  const rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    hex: (n) => {
      let s = '';
      while (s.length < n) s += Math.floor(next() * 4294967296).toString(16).padStart(8, '0');
      return s.slice(0, n);
    },
  };
  return rng;
}

// ---------------------------------------------------------------- ids and times
function uuid4(rng) {
  const h = rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[rng.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
function uuid7(rng, ms) {
  const t = Math.floor(ms).toString(16).padStart(12, '0');
  const h = rng.hex(20);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${h.slice(0, 3)}-${'89ab'[rng.int(0, 3)]}${h.slice(3, 6)}-${h.slice(6, 18)}`;
}
const iso = (ms) => new Date(ms).toISOString();
const pad = (n) => String(n).padStart(2, '0');
function fileStamp(ms) {
  const d = new Date(ms); // Codex names files in local time; TZ is UTC on the benchmark machine
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}-${pad(d.getUTCMinutes())}-${pad(d.getUTCSeconds())}`;
}

// ---------------------------------------------------------------- text
const VERBS = ['fix', 'refactor', 'explain', 'add', 'remove', 'rename', 'migrate', 'test', 'document', 'speed up', 'debug', 'review', 'port', 'split', 'simplify', 'wire up', 'profile', 'bump', 'revert', 'clean up', 'implement', 'audit', 'investigate', 'rewrite'];
const NOUNS = ['login flow', 'rate limiter', 'retry logic', 'database migration', 'websocket handler', 'CSV importer', 'auth middleware', 'cache layer', 'CI pipeline', 'Dockerfile', 'error boundary', 'pagination', 'search index', 'billing webhook', 'feature flag', 'GraphQL schema', 'date picker', 'sidebar', 'config loader', 'job scheduler', 'S3 uploader', 'logger', 'metrics exporter', 'session store', 'theme switcher', 'form validation', 'OAuth callback', 'PDF export', 'email templates', 'cron job', 'build script', 'monorepo setup', 'lint config', 'test fixtures', 'API client', 'payment form', 'notification service', 'image resizer', 'queue consumer', 'health check'];
const FILES = ['src/index.ts', 'src/server.ts', 'src/auth/session.ts', 'lib/db.py', 'app/models/user.rb', 'cmd/main.go', 'src/lib.rs', 'package.json', 'Cargo.toml', 'src/components/Sidebar.tsx', 'tests/test_api.py', 'internal/cache/lru.go', 'src/routes/api.ts', 'migrations/0042_add_index.sql', 'README.md', 'Makefile', '.github/workflows/ci.yml', 'src/utils/date.ts', 'pkg/queue/worker.go', 'src/hooks/useAuth.ts'];
const TAILS = ['so that it handles timeouts', 'and keep the public API stable', 'without breaking the existing tests', 'it fails on CI but not locally', 'the tests are flaky since yesterday', 'use the same style as the rest of the code', 'and add a regression test', 'then run the linter', 'it is too slow with large inputs', 'can you explain why it returns null', 'I think the bug is an off-by-one', 'make it work on Windows too', 'we need this for the release on Friday', 'keep backwards compatibility with v1', 'check the logs for ECONNREFUSED errors'];
const WORDS = 'the a of to and in is it that for on with as this be are was at by not or from but have an they which one you all were we when there can more if no out so what up about into than them only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(' ');
const IDENTS = ['handleRequest', 'parseConfig', 'userId', 'retryCount', 'fetchJson', 'db.query', 'cache.get', 'logger.info', 'expect(res.status)', 'await client.send', 'throw new Error', 'return null', 'if (!token)', 'for (const row of rows)', 'assert_eq!', 'fn main()', 'def test_', 'SELECT * FROM users', 'impl Display for', 'useEffect(() =>'];
const NON_ASCII = ['请解释这个项目的结构', 'Überprüfe die Konfiguration', 'корректно обработай ошибки', 'accessibilité ♿ du menu', 'テストを追加してください', 'café ☕ encoding bug'];
const PROJECT_WORDS = ['api', 'web', 'data', 'infra', 'mobile', 'billing', 'auth', 'search', 'docs', 'admin', 'ml', 'edge', 'core', 'cli', 'sdk', 'chat', 'ops', 'shop', 'media', 'maps'];
const PROJECT_SUFFIX = ['server', 'ui', 'pipeline', 'service', 'app', 'gateway', 'worker', 'tools', 'dashboard', 'lib'];
const BRANCHES = ['main', 'main', 'main', 'master', 'HEAD', 'develop'];

function words(rng, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? ' ' : '') + rng.pick(WORDS);
  return s;
}
function prompt(rng, turn) {
  const r = rng.next();
  if (turn > 0 && r < 0.35) return rng.pick(['continue', 'yes, go ahead', 'now run the tests', 'looks good, commit it', 'why did that fail?', 'try again with the other approach', 'ok. next step', `what about ${rng.pick(FILES)}?`]);
  if (r < 0.04) return `${rng.pick(NON_ASCII)} ${rng.pick(FILES)}`;
  if (r < 0.12) {
    // a pasted stack trace or log
    let s = `${rng.pick(VERBS)} this error:\n\n`;
    const n = rng.int(5, 40);
    for (let i = 0; i < n; i++) s += `    at ${rng.pick(IDENTS)} (${rng.pick(FILES)}:${rng.int(1, 900)}:${rng.int(1, 80)})\n`;
    return s;
  }
  let s = `${rng.pick(VERBS)} the ${rng.pick(NOUNS)} in ${rng.pick(FILES)} ${rng.pick(TAILS)}`;
  if (rng.chance(0.4)) s += `. ${words(rng, rng.int(5, 40))}`;
  return s;
}
function assistantText(rng) {
  const n = rng.int(10, 120);
  return `I looked at ${rng.pick(FILES)} and ${rng.pick(['updated', 'fixed', 'refactored', 'checked', 'documented'])} the ${rng.pick(NOUNS)}. ${words(rng, n)}.`;
}
function reasoningSummary(rng, p) {
  return `**Thinking about ${p.slice(0, 40)}**\n\n${words(rng, rng.int(10, 50))}.`;
}

/** A pool of tool-output-like lines; outputs are windows of it (fast, and still varied). */
function buildPool(bytes) {
  const rng = makeRng('pool');
  const parts = [];
  let len = 0;
  while (len < bytes) {
    const r = rng.next();
    let line;
    if (r < 0.3) line = `${rng.pick(FILES)}:${rng.int(1, 2000)}:${rng.int(1, 80)}: ${rng.pick(IDENTS)} ${words(rng, rng.int(2, 12))}`;
    else if (r < 0.5) line = `-rw-r--r-- 1 dev dev ${String(rng.int(10, 99999)).padStart(6)} Nov ${rng.int(1, 28)} ${pad(rng.int(0, 23))}:${pad(rng.int(0, 59))} ${rng.pick(FILES)}`;
    else if (r < 0.65) line = `  ${rng.chance(0.9) ? '✓' : '✗'} ${rng.pick(NOUNS)} ${words(rng, rng.int(2, 8))} (${rng.int(1, 900)} ms)`;
    else if (r < 0.8) line = `    ${rng.pick(IDENTS)}(${words(rng, rng.int(1, 4)).replace(/ /g, ', ')});`;
    else line = `${iso(END_MS - rng.int(0, 1e9))} INFO ${rng.pick(NOUNS)}: ${words(rng, rng.int(3, 15))}`;
    parts.push(line);
    len += line.length + 1;
  }
  return parts.join('\n');
}
let POOL = '';
function output(rng, len) {
  if (len >= POOL.length - 1) {
    let s = '';
    while (s.length < len) s += POOL.slice(0, Math.min(POOL.length, len - s.length));
    return s;
  }
  let start = rng.int(0, POOL.length - len - 1);
  const nl = POOL.indexOf('\n', start);
  if (nl >= 0 && nl < POOL.length - len) start = nl + 1;
  return POOL.slice(start, start + len);
}
/** Tool output sizes: mostly small, sometimes large (log-uniform 120 B .. 24 KB, 2 % up to 200 KB). */
function outputSize(rng, lite) {
  if (lite) return rng.int(60, 1200);
  if (rng.chance(0.01)) return rng.int(24 * 1024, 128 * 1024);
  return Math.floor(Math.exp(Math.log(60) + rng.next() * (Math.log(8 * 1024) - Math.log(60))));
}
/** Turn counts 1..300, skewed: median 2, p90 52, mean ~18. */
function turnCount(rng, lite) {
  const u = rng.next();
  const t = Math.max(1, Math.round(Math.pow(300, Math.pow(u, 3.5))));
  return lite ? Math.min(t, 12) : t;
}

// Constant texts every session of a release repeats (Codex instructions, skill listings).
function fixedText(name, bytes) {
  const rng = makeRng(`fixed-${name}`);
  let s = '';
  while (s.length < bytes) {
    s += rng.chance(0.1) ? `\n\n## ${words(rng, 3)}\n\n` : `${words(rng, rng.int(8, 25))}. `;
  }
  return s.slice(0, bytes);
}
let TEXT = null;
function initTexts() {
  TEXT = {
    baseInstructions: `You are a coding agent running in the Codex CLI, a terminal-based coding assistant. ${fixedText('base', 21300)}`,
    skills: `<skills_instructions>\n## Skills\n${fixedText('skills', 2500)}\n</skills_instructions>`,
    permissions: `<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. ${fixedText('perm', 300)}\n</permissions instructions>`,
    hostSkills: `\n## Skills\n${fixedText('hostskills', 2400)}\n`,
    agentsMd: fixedText('agentsmd', 3200),
    agentListing: Array.from({ length: 5 }, (_, i) => `- ${['claude', 'Explore', 'general-purpose', 'Plan', 'statusline-setup'][i]}: ${fixedText(`agent${i}`, 260)}`),
    skillListing: fixedText('skilllisting', 4550),
  };
}

// ---------------------------------------------------------------- output with big buffers
class Out {
  constructor(path) {
    this.path = path;
    this.fd = openSync(path, 'w');
    this.parts = [];
    this.len = 0;
    this.bytes = 0;
  }
  line(obj) {
    const s = typeof obj === 'string' ? obj : JSON.stringify(obj);
    this.parts.push(s, '\n');
    this.len += s.length + 1;
    if (this.len > 4 * MiB) this.flush();
  }
  flush() {
    if (!this.parts.length) return;
    this.bytes += writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.len = 0;
  }
  close(mtimeMs) {
    this.flush();
    closeSync(this.fd);
    const t = mtimeMs / 1000;
    utimesSync(this.path, t, t);
    return this.bytes;
  }
}

// ---------------------------------------------------------------- the plan: what session i is
function projectsFor(out) {
  const rng = makeRng('projects');
  const names = new Set(['api-server', 'web-ui', 'data pipeline', 'ünïcødé-项目']);
  while (names.size < 50) names.add(`${rng.pick(PROJECT_WORDS)}-${rng.pick(PROJECT_SUFFIX)}`);
  return [...names].map((name) => join(out, 'src', name));
}

function planOf(opts, i) {
  const rng = makeRng(`${opts.seed}:plan:${i}`);
  const u = rng.next();
  let agent = u < 0.5 ? 'codex' : u < 0.9 ? 'claude' : 'claw';
  let bigBytes = 0;
  let longLine = 0;
  const N = opts.sessions;
  if (opts.big) {
    const bigs = [
      [Math.floor(N * 0.13), 'codex', 200 * MiB],
      [Math.floor(N * 0.37), 'claude', 120 * MiB],
      [Math.floor(N * 0.61), 'codex', 80 * MiB],
      [Math.floor(N * 0.83), 'claude', 50 * MiB],
    ];
    for (const [at, a, b] of bigs) if (i === at) { agent = a; bigBytes = b; }
  }
  if (!opts.lite && N >= 20) {
    const longs = [
      [Math.floor(N * 0.21) + 3, 'codex', 6 * MiB],
      [Math.floor(N * 0.47) + 3, 'claude', 4 * MiB],
      [Math.floor(N * 0.71) + 3, 'claw', 3 * MiB],
      [Math.floor(N * 0.93) + 3, 'codex', 2 * MiB],
    ];
    for (const [at, a, b] of longs) if (i === at && !bigBytes) { agent = a; longLine = b; }
  }
  return { agent, bigBytes, longLine };
}

// ---------------------------------------------------------------- Codex
const CODEX_RELEASES = [
  ['0.169.0', 0.55],
  ['0.100.0', 0.12],
  ['0.89.0', 0.1],
  ['0.39.0', 0.13],
  ['0.20.0', 0.1], // legacy format
];
function codexRelease(rng) {
  let u = rng.next();
  for (const [v, p] of CODEX_RELEASES) if ((u -= p) < 0) return v;
  return '0.169.0';
}

function genCodex(ctx) {
  const { rng, opts, t0, cwd, branch, turns, plan } = ctx;
  const version = plan.bigBytes || plan.longLine ? '0.169.0' : codexRelease(rng);
  const legacy = version === '0.20.0';
  const id = legacy ? uuid4(rng) : uuid7(rng, t0);
  const archived = !plan.bigBytes && !plan.longLine && rng.chance(0.01);
  const d = new Date(t0);
  const dir = archived ? join(opts.out, '.codex', 'archived_sessions') : join(opts.out, '.codex', 'sessions', String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate()));
  ensureDir(dir);
  const path = join(dir, `rollout-${fileStamp(t0)}-${id}.jsonl`);
  const out = new Out(path);
  let t = t0;
  const tick = (lo, hi) => (t += rng.int(lo, hi));
  const git = branch ? { commit_hash: rng.hex(40), branch, repository_url: `git@github.com:acme/${cwd.split('/').pop()}.git` } : undefined;
  const firstPrompt = { text: null };
  const sizeTarget = plan.bigBytes;
  const longTurn = plan.longLine ? rng.int(0, Math.max(0, turns - 1)) : -1;
  // tool calls per turn: 0..3, at least one in the turn that carries the long line or the search needle
  const calls = (k) => Math.max(rng.int(0, 3), k === longTurn || k === ctx.needleTurn ? 1 : 0);
  const writeTurns = (emitTurn) => {
    for (let k = 0; sizeTarget ? out.bytes + out.len < sizeTarget : k < turns; k++) emitTurn(k);
  };
  const toolOut = (k) => {
    if (k === longTurn && !ctx.longLineDone) { ctx.longLineDone = true; return output(rng, plan.longLine); }
    if (sizeTarget) return output(rng, rng.int(20 * 1024, 160 * 1024));
    let s = output(rng, outputSize(rng, opts.lite));
    if (ctx.needle && k === ctx.needleTurn) s = `${s}\n${ctx.needle}\n`;
    return s;
  };

  if (legacy) {
    out.line({ id, timestamp: iso(t), instructions: null, ...(git ? { git } : {}) });
    out.line({ record_type: 'state' });
    if (rng.chance(0.5)) out.line({ type: 'message', id: null, role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>` }] });
    writeTurns((k) => {
      const p = prompt(rng, k);
      firstPrompt.text ??= p;
      tick(5000, 600000);
      out.line({ type: 'message', id: null, role: 'user', content: [{ type: 'input_text', text: p }] });
      out.line({ record_type: 'state' });
      for (let c = calls(k); c > 0; c--) {
        const call = `call_${rng.hex(8)}`;
        out.line({ type: 'function_call', id: `fc_${rng.hex(6)}`, name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `rg -n ${rng.pick(IDENTS).split(' ')[0]}`] }), call_id: call });
        out.line({ type: 'function_call_output', call_id: call, output: JSON.stringify({ output: toolOut(k), metadata: { exit_code: 0, duration_seconds: 0.2 } }) });
        out.line({ record_type: 'state' });
      }
      out.line({ type: 'message', id: `msg_${rng.hex(6)}`, role: 'assistant', content: [{ type: 'output_text', text: assistantText(rng, p) }] });
      tick(500, 60000);
    });
  } else if (version === '0.39.0') {
    out.line({ timestamp: iso(t), type: 'session_meta', payload: { id, timestamp: iso(t - 3), cwd, originator: 'codex_cli_rs', cli_version: version, instructions: null, ...(git ? { git } : {}) } });
    out.line({ timestamp: iso(tick(20, 80)), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>never</approval_policy>\n  <sandbox_mode>read-only</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>` }] } });
    let tokens = 0;
    writeTurns((k) => {
      const p = prompt(rng, k);
      firstPrompt.text ??= p;
      if (k) tick(5000, 600000);
      const tc = { cwd, approval_policy: 'never', sandbox_policy: { mode: 'read-only' }, model: 'gpt-5-codex', summary: 'auto' };
      out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: p }] } });
      out.line({ timestamp: iso(t), type: 'event_msg', payload: { type: 'user_message', message: p, kind: 'plain' } });
      out.line({ timestamp: iso(t), type: 'turn_context', payload: tc });
      for (let c = calls(k); c > 0; c--) {
        const call = `call_${rng.hex(8)}`;
        tokens += 1100;
        out.line({ timestamp: iso(tick(200, 4000)), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage(tokens), last_token_usage: usage(1100), model_context_window: null } } });
        out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'ls -la'] }), call_id: call } });
        out.line({ timestamp: iso(tick(100, 3000)), type: 'response_item', payload: { type: 'function_call_output', call_id: call, output: JSON.stringify({ output: toolOut(k), metadata: { exit_code: 0, duration_seconds: 0.2 } }) } });
        out.line({ timestamp: iso(t), type: 'turn_context', payload: tc });
      }
      const a = assistantText(rng, p);
      if (rng.chance(0.4)) {
        const r = reasoningSummary(rng, p);
        out.line({ timestamp: iso(tick(100, 3000)), type: 'event_msg', payload: { type: 'agent_reasoning', text: r } });
        out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: r }], content: null, encrypted_content: Buffer.from(rng.hex(rng.int(200, 1500))).toString('base64') } });
      }
      out.line({ timestamp: iso(tick(100, 3000)), type: 'event_msg', payload: { type: 'agent_message', message: a } });
      tokens += 1100;
      out.line({ timestamp: iso(t), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage(tokens), last_token_usage: usage(1100), model_context_window: null } } });
      out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: a }] } });
    });
  } else if (version === '0.89.0' || version === '0.100.0') {
    const userInstr = `## Skills\n${TEXT.agentsMd}`;
    out.line({ timestamp: iso(t), type: 'session_meta', payload: { id, timestamp: iso(t - 4), cwd, originator: 'codex_exec', cli_version: version, source: rng.pick(['exec', 'cli', 'vscode']), model_provider: 'openai', base_instructions: { text: TEXT.baseInstructions }, ...(git ? { git } : {}) } });
    let tokens = 0;
    const rl = { primary: null, secondary: null, credits: null, plan_type: null };
    writeTurns((k) => {
      const p = prompt(rng, k);
      firstPrompt.text ??= p;
      if (k) tick(5000, 600000);
      out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: TEXT.permissions }] } });
      out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\n${userInstr}\n</INSTRUCTIONS>` }] } });
      out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>` }] } });
      out.line({ timestamp: iso(tick(10, 80)), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: p }] } });
      out.line({ timestamp: iso(tick(1, 5)), type: 'event_msg', payload: { type: 'user_message', message: p, images: [], local_images: [], text_elements: [] } });
      const tc = { cwd, approval_policy: 'never', sandbox_policy: { type: 'read-only' }, model: 'gpt-5.2-codex', collaboration_mode: { mode: 'custom', model: 'gpt-5.2-codex', reasoning_effort: null, developer_instructions: null }, summary: 'auto', user_instructions: userInstr, truncation_policy: { mode: 'tokens', limit: 10000 } };
      out.line({ timestamp: iso(t), type: 'turn_context', payload: tc });
      out.line({ timestamp: iso(tick(1, 9)), type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: rl } });
      for (let c = calls(k); c > 0; c--) {
        const call = `call_${rng.hex(8)}`;
        tokens += 1100;
        out.line({ timestamp: iso(tick(200, 4000)), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `cat ${rng.pick(FILES)}`] }), call_id: call } });
        out.line({ timestamp: iso(t), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage(tokens), last_token_usage: usage(1100), model_context_window: null }, rate_limits: rl } });
        out.line({ timestamp: iso(tick(100, 3000)), type: 'response_item', payload: { type: 'function_call_output', call_id: call, output: JSON.stringify({ output: toolOut(k), metadata: { exit_code: 0, duration_seconds: 0.2 } }) } });
        out.line({ timestamp: iso(tick(10, 90)), type: 'turn_context', payload: tc });
      }
      const a = assistantText(rng, p);
      if (rng.chance(0.4)) {
        const r = reasoningSummary(rng, p);
        out.line({ timestamp: iso(tick(100, 3000)), type: 'event_msg', payload: { type: 'agent_reasoning', text: r } });
        out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: r }], content: null, encrypted_content: Buffer.from(rng.hex(rng.int(200, 1500))).toString('base64') } });
      }
      out.line({ timestamp: iso(tick(100, 3000)), type: 'event_msg', payload: { type: 'agent_message', message: a } });
      out.line({ timestamp: iso(t), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: a }] } });
      tokens += 1100;
      out.line({ timestamp: iso(t), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage(tokens), last_token_usage: usage(1100), model_context_window: null }, rate_limits: rl } });
    });
  } else {
    // 0.169: ordinals, world_state, token_usage_record, item_completed, thread_settings_applied
    let ordinal = 0;
    const L = (type, payload, metadata) => {
      const o = { timestamp: iso(t), ordinal: ordinal++, type, payload };
      if (metadata) o.metadata = metadata;
      out.line(o);
    };
    const source = rng.pick(['exec', 'cli', 'cli', 'vscode']);
    let seq = 0;
    L('session_meta', {
      account_scoped: true, session_id: id, id, timestamp: iso(t - 30), cwd, runtime_workspace_roots: [cwd], originator: source === 'exec' ? 'codex_exec' : 'codex_cli_rs',
      cli_version: version, source, thread_source: 'user', model_provider: 'openai', base_instructions: { text: TEXT.baseInstructions }, ...(git ? { git } : {}),
      history_mode: 'paginated', context_window: { window_id: uuid7(rng, t) },
    });
    const settings = { model: 'gpt-5.5', model_provider_id: 'openai', approval_policy: 'on-request', approvals_reviewer: 'user', requested_approvals_reviewer: 'user', permission_profile: { type: 'disabled' }, cwd, runtime_workspace_roots: [cwd], collaboration_mode: { mode: 'default', settings: { model: 'gpt-5.5', reasoning_effort: 'medium', developer_instructions: null } }, disabled_plugin_ids: [] };
    let thread = 0;
    writeTurns((k) => {
      const p = prompt(rng, k);
      firstPrompt.text ??= p;
      if (k) {
        tick(5000, 600000);
        L('event_msg', { type: 'thread_settings_applied', thread_id: id, thread_settings: settings });
      }
      const turnId = uuid7(rng, t);
      L('event_msg', { type: 'task_started', turn_attribution: { turn_id: turnId, turn_trigger: source === 'exec' ? 'exec' : 'user', parent_turn_id: null, initiating_agent_path: null, root_turn_id: turnId }, turn_id: turnId, root_turn_id: turnId, started_at: Math.floor(t / 1000), model_context_window: 258400, collaboration_mode_kind: 'default' });
      const pass = (kinds) => ({ turn_id: turnId, create_time: t / 1000, content_item_kinds: kinds, content_item_metadata: kinds.map(() => ({ provenance: { type: 'harness', hook: false } })) });
      if (k === 0) {
        tick(10, 60);
        L('response_item', { type: 'message', id: `msg_${uuid7(rng, t)}`, role: 'developer', content: [{ type: 'input_text', text: TEXT.skills }, { type: 'input_text', text: TEXT.permissions }], internal_chat_message_metadata_passthrough: pass(['host_skills.instructions', 'permissions.instructions']) }, { history_sequence: ++seq, sampled_through_sequence: 0, client_authored: false, mcp_attribution: { status: 'none' } });
        L('response_item', { type: 'message', id: `msg_${uuid7(rng, t)}`, role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>${iso(t).slice(0, 10)}</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>` }], internal_chat_message_metadata_passthrough: pass(['environments.environment_context']) }, { history_sequence: ++seq, sampled_through_sequence: 0, client_authored: false });
        L('world_state', { full: true, state: { agents_md: {}, apps_instructions: false, collaboration_mode: { mode: 'default', model: 'gpt-5.5', instructions: rng.hex(40) }, environments: { environments: { local: { cwd, status: 'available', shell: 'bash' } }, current_date: iso(t).slice(0, 10), timezone: 'Etc/UTC' }, host_skills: { body: TEXT.hostSkills, includeInstructions: true }, model: 'gpt-5.5', permissions: { instructions: rng.hex(40), approved_command_prefixes: [] }, realtime: { active: false }, skills: { includeInstructions: true } } });
      }
      L('turn_context', { turn_id: turnId, root_turn_id: turnId, disabled_plugin_ids: [], cwd, approval_policy: 'on-request', approvals_reviewer: 'user', permission_profile: { type: 'disabled' }, model: 'gpt-5.5', collaboration_mode: { mode: 'default', settings: { model: 'gpt-5.5', reasoning_effort: 'medium', developer_instructions: null } }, multi_agent_version: 'v1', realtime_active: false, summary: 'auto', sandbox_policy: { type: 'workspace-write', writable_roots: [cwd], network_access: false } });
      if (k === 0) L('event_msg', { type: 'thread_settings_applied', thread_id: id, thread_settings: settings });
      const msgId = `msg_${uuid7(rng, tick(10, 50))}`;
      L('response_item', { type: 'message', id: msgId, role: 'user', content: [{ type: 'input_text', text: p }], internal_chat_message_metadata_passthrough: { turn_id: turnId, create_time: t / 1000, content_item_kinds: ['user.text'], content_item_metadata: [{ provenance: { type: 'user' } }] } }, { history_sequence: ++seq, sampled_through_sequence: seq - 1, retained_source: { id: { message_id: msgId, turn_id: turnId, role: 'user' }, revision: `retained_${uuid7(rng, t)}`, complete: true }, client_authored: false, user_input_order: k * 2, mcp_attribution: { status: 'none' } });
      L('event_msg', { type: 'item_completed', thread_id: id, turn_id: turnId, item: { type: 'UserMessage', id: uuid7(rng, t), content: [{ type: 'text', text: p, text_elements: [] }] }, started_at_ms: t, completed_at_ms: t });
      let turnTokens = 0;
      for (let c = calls(k); c > 0 || (sizeTarget && c > -1); c--) {
        const call = `call_${rng.hex(24)}`;
        const cmd = rng.pick(['ls -la', `rg -n "${rng.pick(IDENTS).split(' ')[0]}"`, `cat ${rng.pick(FILES)}`, 'npm test', 'git status', 'cargo build', `sed -n 1,200p ${rng.pick(FILES)}`]);
        tick(200, 5000);
        L('response_item', { type: 'function_call', id: `fc_${rng.hex(24)}`, name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: call, internal_chat_message_metadata_passthrough: { turn_id: turnId } }, { history_sequence: ++seq, sampled_through_sequence: seq - 1, client_authored: false, user_input_order: k * 2 + 1 });
        thread += 1100; turnTokens += 1100;
        L('token_usage_record', { thread_id: id, turn_id: turnId, session_id: id, root_turn_id: turnId, response_id: `resp_${rng.hex(24)}`, usage: usage2(1100), turn_token_usage: usage2(turnTokens), thread_token_usage: usage2(thread) });
        const o = toolOut(k);
        const started = t;
        tick(50, 8000);
        L('event_msg', { type: 'item_completed', thread_id: id, turn_id: turnId, item: { type: 'CommandExecution', id: call, process_id: String(rng.int(1000, 99999)), command: ['/bin/bash', '-lc', cmd], cwd: `file://${encodeURI(cwd)}`, parsed_cmd: [{ type: 'unknown', cmd }], source: 'unified_exec_startup', status: 'completed', aggregated_output: o, exit_code: 0, duration: { secs: Math.floor((t - started) / 1000), nanos: ((t - started) % 1000) * 1e6 } }, started_at_ms: started, completed_at_ms: t });
        L('response_item', { type: 'function_call_output', id: `fco_${uuid7(rng, t)}`, call_id: call, output: `Chunk ID: ${rng.hex(6)}\nWall time: ${((t - started) / 1000).toFixed(4)} seconds\nProcess exited with code 0\nOriginal token count: ${Math.ceil(o.length / 4)}\nOutput:\n${o}`, internal_chat_message_metadata_passthrough: { turn_id: turnId, create_time: t / 1000 } }, { history_sequence: ++seq, sampled_through_sequence: seq - 2, client_authored: false, fallback_token_limit_override: 3000 });
        L('event_msg', { type: 'token_count', info: { total_token_usage: usage2(thread), last_token_usage: usage2(1100), last_usage_includes_reasoning: false, model_context_window: 258400 }, rate_limits: { limit_id: 'codex', limit_name: null, primary: null, secondary: null, credits: null, individual_limit: null, spend_control_reached: null, plan_type: null, rate_limit_reached_type: null } });
      }
      const a = assistantText(rng, p);
      tick(100, 20000);
      if (rng.chance(0.5)) {
        L('response_item', { type: 'reasoning', id: `rs_${rng.hex(24)}`, summary: [{ type: 'summary_text', text: reasoningSummary(rng, p) }], content: null, encrypted_content: Buffer.from(rng.hex(rng.int(400, 3000))).toString('base64'), internal_chat_message_metadata_passthrough: { turn_id: turnId } }, { history_sequence: ++seq, sampled_through_sequence: seq - 1, client_authored: false });
      }
      const am = `msg_${rng.hex(24)}`;
      L('event_msg', { type: 'item_completed', thread_id: id, turn_id: turnId, item: { type: 'AgentMessage', id: am, content: [{ type: 'Text', text: a }] }, started_at_ms: t, completed_at_ms: t });
      L('response_item', { type: 'message', id: am, role: 'assistant', content: [{ type: 'output_text', text: a, annotations: [] }], internal_chat_message_metadata_passthrough: { turn_id: turnId, content_item_kinds: ['unknown'] } }, { history_sequence: ++seq, sampled_through_sequence: seq - 1, retained_source: { id: { message_id: am, turn_id: turnId, role: 'assistant' }, revision: `retained_${uuid7(rng, t)}`, complete: true }, client_authored: false, user_input_order: k * 2 + 1 });
      thread += 1100; turnTokens += 1100;
      L('token_usage_record', { thread_id: id, turn_id: turnId, session_id: id, root_turn_id: turnId, response_id: `resp_${rng.hex(24)}`, usage: usage2(1100), turn_token_usage: usage2(turnTokens), thread_token_usage: usage2(thread) });
      L('event_msg', { type: 'token_count', info: { total_token_usage: usage2(thread), last_token_usage: usage2(1100), last_usage_includes_reasoning: false, model_context_window: 258400 }, rate_limits: { limit_id: 'codex', limit_name: null, primary: null, secondary: null, credits: null, individual_limit: null, spend_control_reached: null, plan_type: null, rate_limit_reached_type: null } });
      L('event_msg', { type: 'task_complete', root_turn_id: turnId, turn_id: turnId, last_agent_message: a, started_at: Math.floor(t / 1000), completed_at: Math.floor(t / 1000), duration_ms: rng.int(500, 90000), time_to_first_token_ms: rng.int(80, 3000) });
    });
  }
  const bytes = out.close(t);
  const name = !archived && !legacy && rng.chance(0.05) ? `${rng.pick(VERBS)}-${rng.pick(NOUNS).replace(/ /g, '-')}` : null;
  return { id, path, bytes, updatedMs: t, version, archived, name, title: firstPrompt.text };
}
function usage(total) {
  return { input_tokens: total, cached_input_tokens: Math.floor(total / 5), output_tokens: Math.floor(total / 27), reasoning_output_tokens: 0, total_tokens: total + Math.floor(total / 27) };
}
function usage2(total) {
  return { input_tokens: total, cached_input_tokens: Math.floor(total / 5), cache_write_input_tokens: 0, output_tokens: Math.floor(total / 27), reasoning_output_tokens: 0, total_tokens: total + Math.floor(total / 27) };
}

// ---------------------------------------------------------------- Claude Code
function claudeFolder(cwd) {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}
function genClaude(ctx) {
  const { rng, opts, t0, cwd, branch, turns, plan } = ctx;
  const id = uuid4(rng);
  const dir = join(opts.out, '.claude', 'projects', claudeFolder(cwd));
  ensureDir(dir);
  const path = join(dir, `${id}.jsonl`);
  const out = new Out(path);
  let t = t0;
  const tick = (lo, hi) => (t += rng.int(lo, hi));
  const version = rng.pick(['2.1.197', '2.1.197', '2.0.76', '1.0.128']);
  const sdk = rng.chance(0.3);
  const common = () => ({ userType: 'external', entrypoint: sdk ? 'sdk-cli' : 'cli', cwd, sessionId: id, version, gitBranch: branch ?? 'HEAD' });
  let parent = null;
  let firstPrompt = null;
  let lastPrompt = null;
  const sizeTarget = plan.bigBytes;
  const longTurn = plan.longLine ? rng.int(0, Math.max(0, turns - 1)) : -1;
  // tool calls per turn: 0..3, at least one in the turn that carries the long line or the search needle
  const calls = (k) => Math.max(rng.int(0, 3), k === longTurn || k === ctx.needleTurn ? 1 : 0);
  const toolOut = (k) => {
    if (k === longTurn && !ctx.longLineDone) { ctx.longLineDone = true; return output(rng, plan.longLine); }
    if (sizeTarget) return output(rng, rng.int(20 * 1024, 160 * 1024));
    let s = output(rng, outputSize(rng, opts.lite));
    if (ctx.needle && k === ctx.needleTurn) s = `${s}\n${ctx.needle}\n`;
    return s;
  };
  const model = rng.pick(['claude-opus-4-8', 'claude-sonnet-4-6', 'claude-opus-4-1']);
  const assistant = (content, stop) => {
    const uuid = uuid4(rng);
    out.line({ parentUuid: parent, isSidechain: false, message: { id: `msg_${rng.hex(24)}`, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: rng.int(3, 9000), cache_creation_input_tokens: rng.int(0, 3000), cache_read_input_tokens: rng.int(0, 90000), output_tokens: rng.int(10, 2000), server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 }, service_tier: 'standard', cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 }, inference_geo: '', iterations: [], speed: 'standard' }, stop_details: null }, requestId: `req_${rng.hex(24)}`, type: 'assistant', uuid, timestamp: iso(t), ...common() });
    parent = uuid;
  };
  if (rng.chance(0.05)) out.line({ type: 'summary', summary: `${rng.pick(VERBS)} ${rng.pick(NOUNS)}`, leafUuid: uuid4(rng) });
  if (sdk && rng.chance(0.5)) out.line({ type: 'mode', mode: 'normal', sessionId: id });
  for (let k = 0; sizeTarget ? out.bytes + out.len < sizeTarget : k < turns; k++) {
    const p = prompt(rng, k);
    firstPrompt ??= p;
    lastPrompt = p;
    if (k) tick(5000, 600000);
    if (sdk) {
      out.line({ type: 'queue-operation', operation: 'enqueue', timestamp: iso(t), sessionId: id, content: p });
      out.line({ type: 'queue-operation', operation: 'dequeue', timestamp: iso(t), sessionId: id });
    }
    const promptId = uuid4(rng);
    const uuid = uuid4(rng);
    out.line({ parentUuid: parent, isSidechain: false, promptId, type: 'user', message: { role: 'user', content: p }, uuid, timestamp: iso(tick(5, 40)), permissionMode: 'default', ...(sdk ? { promptSource: 'sdk' } : {}), ...common() });
    parent = uuid;
    if (k === 0) {
      const a1 = uuid4(rng);
      out.line({ parentUuid: parent, isSidechain: false, attachment: { type: 'agent_listing_delta', addedTypes: ['claude', 'Explore', 'general-purpose', 'Plan', 'statusline-setup'], addedLines: TEXT.agentListing, removedTypes: [], isInitial: true, showConcurrencyNote: true }, type: 'attachment', uuid: a1, timestamp: iso(t), ...common() });
      const a2 = uuid4(rng);
      out.line({ parentUuid: a1, isSidechain: false, attachment: { type: 'skill_listing', content: TEXT.skillListing, skillCount: 13, isInitial: true, names: ['deep-research', 'update-config', 'keybindings-help', 'verify', 'code-review', 'simplify', 'fewer-permission-prompts', 'loop', 'claude-api', 'run', 'init', 'review', 'security-review'] }, type: 'attachment', uuid: a2, timestamp: iso(t), ...common() });
      parent = a2;
    }
    if (rng.chance(0.3)) assistant([{ type: 'thinking', thinking: reasoningSummary(rng, p), signature: Buffer.from(rng.hex(rng.int(100, 600))).toString('base64') }], null);
    for (let c = calls(k); c > 0 || (sizeTarget && c > -1); c--) {
      const toolId = `toolu_${rng.hex(24)}`;
      const tool = rng.pick(['Bash', 'Read', 'Grep', 'Edit']);
      const input = tool === 'Bash' ? { command: rng.pick(['npm test', 'ls -la', 'git diff', 'cargo test']), description: 'Run it' } : tool === 'Read' ? { file_path: `${cwd}/${rng.pick(FILES)}` } : tool === 'Grep' ? { pattern: rng.pick(IDENTS), path: cwd } : { file_path: `${cwd}/${rng.pick(FILES)}`, old_string: rng.pick(IDENTS), new_string: rng.pick(IDENTS) };
      tick(200, 5000);
      assistant([{ type: 'tool_use', id: toolId, name: tool, input }], 'tool_use');
      const o = toolOut(k);
      const ru = uuid4(rng);
      tick(50, 8000);
      out.line({ parentUuid: parent, isSidechain: false, promptId, type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: o, is_error: false }] }, uuid: ru, timestamp: iso(t), toolUseResult: { stdout: o, stderr: '', interrupted: false, isImage: false, noOutputExpected: false }, sourceToolAssistantUUID: parent, ...common() });
      parent = ru;
    }
    tick(100, 20000);
    assistant([{ type: 'text', text: assistantText(rng, p) }], 'end_turn');
  }
  if (rng.chance(0.08)) out.line({ type: 'custom-title', customTitle: `${rng.pick(NOUNS)} ${rng.pick(['spike', 'cleanup', 'hotfix', 'investigation'])}`, sessionId: id });
  else if (rng.chance(0.15)) out.line({ type: 'ai-title', aiTitle: `${rng.pick(VERBS)} ${rng.pick(NOUNS)}`.replace(/^./, (c) => c.toUpperCase()), sessionId: id });
  out.line({ type: 'last-prompt', lastPrompt: lastPrompt.slice(0, 200), leafUuid: parent, sessionId: id });
  const bytes = out.close(t);
  return { id, path, bytes, updatedMs: t, version, title: firstPrompt };
}

// ---------------------------------------------------------------- claw
function sorted(obj) {
  const o = {};
  for (const k of Object.keys(obj).sort()) o[k] = obj[k];
  return o;
}
function genClaw(ctx, index) {
  const { rng, opts, t0, cwd, turns, plan } = ctx;
  const id = `session-${t0}-${index % 10}`;
  const dir = join(cwd, '.claw', 'sessions');
  ensureDir(dir);
  const path = join(dir, `${id}.jsonl`);
  const out = new Out(path);
  let t = t0;
  const tick = (lo, hi) => (t += rng.int(lo, hi));
  const longTurn = plan.longLine ? rng.int(0, Math.max(0, turns - 1)) : -1;
  // tool calls per turn: 0..3, at least one in the turn that carries the long line or the search needle
  const calls = (k) => Math.max(rng.int(0, 3), k === longTurn || k === ctx.needleTurn ? 1 : 0);
  const lines = [];
  let firstPrompt = null;
  for (let k = 0; k < turns; k++) {
    const p = prompt(rng, k);
    firstPrompt ??= p;
    if (k) tick(5000, 600000);
    if (rng.chance(0.3)) lines.push(JSON.stringify({ text: p, timestamp_ms: t, type: 'prompt_history' }));
    lines.push(JSON.stringify({ message: { blocks: [{ text: p, type: 'text' }], role: 'user' }, type: 'message' }));
    for (let c = calls(k); c > 0; c--) {
      const tid = `toolu_${rng.hex(24)}`;
      const name = rng.pick(['bash', 'read_file', 'grep_search', 'edit_file']);
      tick(200, 5000);
      lines.push(JSON.stringify({ message: { blocks: [{ id: tid, input: JSON.stringify({ command: 'ls -la' }), name, type: 'tool_use' }], role: 'assistant', usage: sorted({ input_tokens: rng.int(10, 9000), output_tokens: rng.int(5, 900), cache_creation_input_tokens: 0, cache_read_input_tokens: rng.int(0, 5000) }) }, type: 'message' }));
      let o;
      if (k === longTurn && !ctx.longLineDone) { ctx.longLineDone = true; o = output(rng, plan.longLine); }
      else {
        o = output(rng, outputSize(rng, opts.lite));
        if (ctx.needle && k === ctx.needleTurn) o = `${o}\n${ctx.needle}\n`;
      }
      lines.push(JSON.stringify({ message: { blocks: [{ is_error: false, output: o, tool_name: name, tool_use_id: tid, type: 'tool_result' }], role: 'tool' }, type: 'message' }));
    }
    if (rng.chance(0.2)) lines.push(JSON.stringify({ message: { blocks: [{ signature: Buffer.from(rng.hex(200)).toString('base64'), thinking: reasoningSummary(rng, p), type: 'thinking' }], role: 'assistant' }, type: 'message' }));
    tick(100, 20000);
    lines.push(JSON.stringify({ message: { blocks: [{ text: assistantText(rng, p), type: 'text' }], role: 'assistant', usage: sorted({ input_tokens: rng.int(10, 9000), output_tokens: rng.int(5, 900), cache_creation_input_tokens: 0, cache_read_input_tokens: rng.int(0, 5000) }) }, type: 'message' }));
  }
  const meta = { created_at_ms: t0, session_id: id, type: 'session_meta', updated_at_ms: t, version: 1 };
  if (rng.chance(0.5)) { meta.model = rng.pick(['claude-opus-4-6', 'claude-sonnet-4-6']); meta.workspace_root = cwd; }
  out.line(JSON.stringify(sorted(meta)));
  for (const l of lines) out.line(l);
  const bytes = out.close(t);
  return { id, path, bytes, updatedMs: t, version: 'claw', title: firstPrompt };
}

// ---------------------------------------------------------------- one session
const madeDirs = new Set();
function ensureDir(dir) {
  if (madeDirs.has(dir)) return;
  mkdirSync(dir, { recursive: true });
  madeDirs.add(dir);
}

function generateOne(opts, projects, i) {
  const plan = planOf(opts, i);
  const rng = makeRng(`${opts.seed}:session:${i}`);
  const t0 = END_MS - YEAR_MS + Math.floor(rng.next() * (YEAR_MS - 3 * 24 * 3600 * 1000));
  // Projects are Zipf-like: a few get most of the sessions.
  const project = projects[Math.min(projects.length - 1, Math.floor(Math.pow(rng.next(), 2) * projects.length))];
  const cwd = rng.chance(0.1) ? `${project}/packages/${rng.pick(['core', 'web', 'cli'])}` : project;
  const branch = rng.chance(0.7) ? (rng.chance(0.5) ? rng.pick(BRANCHES) : `feat/${rng.pick(PROJECT_WORDS)}-${rng.pick(['fix', 'refactor', 'v2', 'cleanup'])}`) : null;
  const turns = plan.bigBytes ? 0 : turnCount(rng, opts.lite);
  const needle = rng.chance(0.003) ? NEEDLES.rare : rng.chance(0.03) ? NEEDLES.common : null;
  const ctx = { rng, opts, t0, cwd, branch, turns: Math.max(turns, 1), plan, needle, needleTurn: needle ? rng.int(0, Math.max(0, turns - 1)) : -1, longLineDone: false };
  const r = plan.agent === 'codex' ? genCodex(ctx) : plan.agent === 'claude' ? genClaude(ctx) : genClaw(ctx, i);
  // A needle lands only if that turn had a tool call; record whether the file holds it.
  return { i, agent: plan.agent, ...r, cwd, big: plan.bigBytes > 0, longLine: plan.longLine > 0 && ctx.longLineDone, needle: needle && ctx.needleTurn >= 0 ? needle : null };
}

// ---------------------------------------------------------------- workers and main
function workerMain() {
  const { opts, w, W } = workerData;
  initTexts();
  POOL = buildPool(8 * MiB);
  const projects = projectsFor(opts.out);
  const results = [];
  for (let i = w; i < opts.sessions; i += W) {
    const r = generateOne(opts, projects, i);
    results.push({ i: r.i, agent: r.agent, id: r.id, path: r.path, bytes: r.bytes, updatedMs: r.updatedMs, version: r.version, archived: r.archived ?? false, name: r.name ?? null, big: r.big, longLine: r.longLine, needle: r.needle, title: r.title.slice(0, 80) });
  }
  parentPort.postMessage(results);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = process.hrtime.bigint();
  if (existsSync(opts.out)) {
    for (const entry of ['.codex', '.claude', 'src', 'manifest.json']) rmSync(join(opts.out, entry), { recursive: true, force: true });
    if (readdirSync(opts.out).length) throw new Error(`${opts.out} holds other files; refusing to mix`);
  }
  mkdirSync(opts.out, { recursive: true });
  const self = fileURLToPath(import.meta.url);
  const all = (
    await Promise.all(
      Array.from({ length: opts.workers }, (_, w) =>
        new Promise((res, rej) => {
          const worker = new Worker(self, { workerData: { opts, w, W: opts.workers } });
          worker.once('message', res);
          worker.once('error', rej);
          worker.once('exit', (code) => code && rej(new Error(`worker exited with ${code}`)));
        }),
      ),
    )
  ).flat();
  all.sort((a, b) => a.i - b.i);

  // Codex thread names, newest line wins (one rename in ten is written twice, the later one wins).
  const index = [];
  const nrng = makeRng(`${opts.seed}:names`);
  for (const s of all) {
    if (!s.name) continue;
    if (nrng.chance(0.1)) index.push({ id: s.id, thread_name: `old-${s.name}`, updated_at: iso(s.updatedMs - 1000).replace(/\.\d+Z$/, 'Z') });
    index.push({ id: s.id, thread_name: s.name, updated_at: iso(s.updatedMs).replace(/\.\d+Z$/, 'Z') });
  }
  if (all.some((s) => s.agent === 'codex')) {
    mkdirSync(join(opts.out, '.codex'), { recursive: true });
    writeFileSync(join(opts.out, '.codex', 'session_index.jsonl'), index.map((l) => `${JSON.stringify(l)}\n`).join(''));
    utimesSync(join(opts.out, '.codex', 'session_index.jsonl'), END_MS / 1000, END_MS / 1000);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const count = (f) => all.filter(f).length;
  const bytes = all.reduce((a, s) => a + s.bytes, 0);
  const largest = all.reduce((a, s) => (s.bytes > a.bytes ? s : a), all[0]);
  const manifest = {
    generator: 'bench/generate.mjs',
    generatorVersion: GENERATOR_VERSION,
    sessions: all.length,
    seed: opts.seed,
    lite: opts.lite,
    big: opts.big,
    out: opts.out,
    home: opts.out,
    clawDir: join(opts.out, 'src'),
    byAgent: { codex: count((s) => s.agent === 'codex'), claude: count((s) => s.agent === 'claude'), claw: count((s) => s.agent === 'claw') },
    byVersion: Object.fromEntries([...new Set(all.map((s) => s.version))].sort().map((v) => [v, count((s) => s.version === v)])),
    archived: count((s) => s.archived),
    named: index.length ? new Set(index.map((l) => l.id)).size : 0,
    bytes,
    medianBytes: [...all.map((s) => s.bytes)].sort((a, b) => a - b)[Math.floor(all.length / 2)],
    largest: { agent: largest.agent, id: largest.id, path: largest.path, bytes: largest.bytes },
    bigSessions: all.filter((s) => s.big).map((s) => ({ agent: s.agent, id: s.id, path: s.path, bytes: s.bytes })),
    longLines: all.filter((s) => s.longLine).map((s) => ({ agent: s.agent, id: s.id, path: s.path, bytes: s.bytes })),
    needles: Object.fromEntries(Object.entries(NEEDLES).map(([k, v]) => [k, { text: v, sessions: count((s) => s.needle === v) }])),
    titles: all.slice(0, 50).map((s) => s.title),
    generationSeconds: Number(seconds.toFixed(2)),
    workers: opts.workers,
  };
  writeFileSync(join(opts.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (!opts.quiet) {
    process.stdout.write(
      `wrote ${all.length} sessions (codex ${manifest.byAgent.codex}, claude ${manifest.byAgent.claude}, claw ${manifest.byAgent.claw}), ` +
        `${(bytes / MiB).toFixed(0)} MiB, largest ${(largest.bytes / MiB).toFixed(1)} MiB, in ${seconds.toFixed(1)} s ` +
        `(${(bytes / MiB / seconds).toFixed(0)} MiB/s, ${opts.workers} workers) -> ${opts.out}\n`,
    );
  }
}

const isEntry = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMainThread && isEntry) {
  main().catch((error) => {
    process.stderr.write(`bench:data: ${error.message}\n`);
    process.exit(1);
  });
} else if (!isMainThread) {
  workerMain();
}
