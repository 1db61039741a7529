#!/usr/bin/env node
// How much grep's trigram maps of big files save when the file's bytes are as varied as a real big session's, not the
// few thousand trigrams of the 10k home's clones (repeated real turns). One Claude Code session is written whose tool
// results are real source files of this machine (node_modules, and /usr/include and Python's library when present),
// each read once, as Claude Code records a Read: the tool_result and its toolUseResult copy. A search for text the map
// rules out reads none of the file; one it cannot rule out reads it all. For five absent texts of each kind (random
// letters, identifiers, error codes, hex ids, phrases), `sessions grep` with the map (after a first grep made it) is
// timed against `--no-cache` (no map), interleaved, in fresh processes.
//
//   node bench/trigram-diversity.mjs [--mib 200] [--runs 3]
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, median, option, PRODUCT_ROOT, timeProcess } from './lib.mjs';

const MIB = Number(option('--mib', 200));
const RUNS = Number(option('--runs', 3));
const CLI = join(PRODUCT_ROOT, 'bin', 'sessions.js');
const WORK = join(BENCH_DIR, '.work', 'trigram-diversity');
const home = join(WORK, 'home');
const project = join(WORK, 'project');
const log = (line) => process.stderr.write(`[trigram-diversity] ${line}\n`);

// A fixed seed: the same session and the same texts every run.
let seed = 20261128;
// (The LCG's high bits: its low ones repeat with a short period.)
const random = (n) => Math.floor(((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * n);
const pick = (list) => list[random(list.length)];
const uuid = () => Array.from({ length: 32 }, () => '0123456789abcdef'[random(16)]).join('').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

function* filesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

/** The session, written once (kept in bench/.work between runs). */
function writeSession() {
  const sessionId = uuid();
  const dir = join(home, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
  const file = join(dir, `${sessionId}.jsonl`);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const fd = openSync(file, 'w');
  let bytes = 0;
  let parent = null;
  let time = Date.parse('2026-11-01T09:00:00.000Z');
  const write = (type, fields) => {
    const id = uuid();
    const line = `${JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: project, sessionId, version: '2.1.197', gitBranch: 'main', type, uuid: id, timestamp: new Date((time += 1000)).toISOString(), ...fields })}\n`;
    parent = id;
    bytes += writeSync(fd, line);
  };
  write('user', { message: { role: 'user', content: 'read through these sources and explain how they fit together' } });
  const seen = new Set();
  let files = 0;
  const sources = [join(PRODUCT_ROOT, 'node_modules'), '/usr/include', '/usr/lib/python3', ...(existsSync('/usr/lib') ? readdirSync('/usr/lib').filter((name) => /^python3\.\d+$/.test(name)).map((name) => join('/usr/lib', name)) : [])];
  outer: for (const source of sources) {
    for (const path of filesUnder(source)) {
      if (!/\.(js|mjs|cjs|ts|md|h|py|c|txt|json)$/.test(path)) continue;
      const size = statSync(path).size;
      if (size < 200 || size > 512 * 1024) continue;
      const raw = readFileSync(path);
      const text = raw.toString('utf8');
      if (raw.includes(0) || text.includes('\ufffd')) continue;
      const key = `${size}:${text.slice(0, 200)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const toolId = `toolu_${uuid().replace(/-/g, '').slice(0, 24)}`;
      write('assistant', { message: { id: `msg_${toolId}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: toolId, name: 'Read', input: { file_path: path } }] } });
      write('user', { message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: text }] }, toolUseResult: { type: 'text', file: { filePath: path, content: text } } });
      if (++files % 50 === 0) write('user', { message: { role: 'user', content: `go on with the next ones (${files} read)` } });
      if (bytes >= MIB * 2 ** 20) break outer;
    }
  }
  closeSync(fd);
  return { file, bytes, files };
}

const session = writeSession();
log(`${session.file}: ${(session.bytes / 2 ** 20).toFixed(0)} MiB, ${session.files} source files read once each`);
const env = { ...process.env, XDG_CACHE_HOME: join(WORK, 'xdg'), XDG_CONFIG_HOME: join(WORK, 'xdg-config'), NO_COLOR: '1', SESSIONS_GREP_ENGINE: 'native' };
const grep = (text, extra = []) => timeProcess(process.execPath, [CLI, 'grep', text, ...extra, '--home', home, '--claw-dir', project], { env, cwd: WORK });
timeProcess(process.execPath, [CLI, 'list', '--home', home, '--claw-dir', project], { env, cwd: WORK });
const first = grep('qvzzkx-first-grep');
// The map's share of set bits (its layout: native/search.c, "trigram maps of big files": the path's length at byte 72,
// the path from byte 80, then the bits).
const maps = join(WORK, 'xdg', 'sessions', 'grep-trigrams-v2');
const mapFile = readdirSync(maps).find((name) => name.endsWith('.tri'));
if (mapFile === undefined) throw new Error('the first grep wrote no trigram map (is the native engine built?)');
const map = readFileSync(join(maps, mapFile));
const bits = map.subarray(80 + map.readUInt32LE(72));
let set = 0;
for (const byte of bits) for (let v = byte; v !== 0; v >>= 1) set += v & 1;
const fill = set / (bits.length * 8);
log(`first grep (reads the file, writes its map): ${first.ms.toFixed(0)} ms; the map has ${set} of ${bits.length * 8} bits set (${(fill * 100).toFixed(1)} %)`);

// Texts the file does not hold, in any case (a map folds ASCII letters).
const folded = readFileSync(session.file, 'latin1').toLowerCase();
const words = ['session', 'picker', 'rate', 'limiter', 'bucket', 'token', 'cache', 'index', 'render', 'worker', 'retry', 'queue', 'stream', 'config', 'handler', 'client', 'timeout', 'buffer', 'schema', 'deploy', 'rollout', 'billing', 'invoice', 'tenant', 'ledger'];
const capital = (word) => word[0].toUpperCase() + word.slice(1);
const kinds = {
  'random letters (8)': () => Array.from({ length: 8 }, () => String.fromCharCode(97 + random(26))).join(''),
  'camelCase identifier (3 words)': () => `${pick(words)}${capital(pick(words))}${capital(pick(words))}`,
  'snake_case identifier (2 words)': () => `${pick(words)}_${pick(words)}`,
  'error code (E + 2 words)': () => `E${pick(words).toUpperCase()}${pick(words).toUpperCase()}`,
  'hex id (8 digits)': () => Array.from({ length: 8 }, () => '0123456789abcdef'[random(16)]).join(''),
  'phrase (4 words)': () => Array.from({ length: 4 }, () => pick(words)).join(' '),
};
const out = { file: session.file, bytes: session.bytes, sourceFiles: session.files, firstGrepMs: Number(first.ms.toFixed(1)), mapBitsSet: set, mapFill: Number(fill.toFixed(4)), runs: RUNS, kinds: [] };
for (const [kind, make] of Object.entries(kinds)) {
  const texts = [];
  for (let tries = 0; texts.length < 5; tries++) {
    if (tries === 10_000) throw new Error(`no 5 absent texts of the kind "${kind}" in 10,000 tries`);
    const text = make();
    if (!folded.includes(text.toLowerCase()) && !texts.includes(text)) texts.push(text);
  }
  const withMap = [];
  const without = [];
  let fast = 0;
  for (const text of texts) {
    const a = [];
    const b = [];
    for (let r = 0; r < RUNS; r++) {
      a.push(grep(text).ms);
      b.push(grep(text, ['--no-cache']).ms);
    }
    withMap.push(median(a));
    without.push(median(b));
    // Ruled out: the file is not read (reading it is tens of ms on one thread; the rest of the run is the same).
    if (median(a) < 0.75 * median(b)) fast++;
  }
  const entry = { kind, texts, withMapMs: Number(median(withMap).toFixed(1)), noMapMs: Number(median(without).toFixed(1)), ruledOut: fast };
  out.kinds.push(entry);
  log(`${kind}: ${texts.join(', ')} | with the map ${entry.withMapMs} ms, --no-cache ${entry.noMapMs} ms (medians) | ${fast} of 5 ruled out`);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
