// Small helpers shared by the benchmark scripts: statistics, timed processes, tmux screens, /proc.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The bench folder. */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** The checkout whose build is measured: SESSIONS_BENCH_PRODUCT (another build, e.g. the commit before), else this one. */
export const PRODUCT_ROOT = resolve(process.env.SESSIONS_BENCH_PRODUCT || resolve(BENCH_DIR, '..'));

/** The checkout the bench scripts are in: its bench/data, test/fixtures and bin/. */
export const REPO_ROOT = resolve(BENCH_DIR, '..');
/** The homes bench/clone-real.mjs makes (manifest.json's `version`): a home of another version is made again. 4: claw
 * clones have their own session ids and share their projects' workspaces (3: their own ids, a workspace each). */
export const CLONE_VERSION = 4;

/** A module of the measured build's dist/ (`catalog/scan.js`), imported. */
export function loadProduct(rel) {
  return import(pathToFileURL(join(PRODUCT_ROOT, 'dist', rel)).href);
}

/**
 * The catalog of `home` as the measured build's scan makes it from the cache under `xdg` (the one
 * bench/keystrokes.mjs writes): the sessions and the locations they came from.
 */
export async function loadCachedCatalog({ home, clawDir, xdg }) {
  const { scanCatalog } = await loadProduct('catalog/scan.js');
  const { CatalogCache, defaultCachePath } = await loadProduct('catalog/cache.js');
  const { resolveLocations } = await loadProduct('catalog/locations.js');
  const locations = resolveLocations({ home, roots: { claw: [clawDir] } }, { env: {}, homeDir: home, cwd: home });
  const cache = await CatalogCache.load(defaultCachePath({ XDG_CACHE_HOME: xdg }, home, locations));
  const { sessions } = await scanCatalog(locations, { cache });
  return { sessions, locations };
}

/** Whether `--name` is among the script's arguments. */
export function hasFlag(name, args = process.argv.slice(2)) {
  return args.includes(name);
}

/** The value after `--name` among the script's arguments, or `fallback`. */
export function option(name, fallback, args = process.argv.slice(2)) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
}

export function median(xs) {
  return percentile(xs, 50);
}

/** Nearest-rank percentile (p in 0..100) of a list of numbers. */
export function percentile(xs, p) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms) {
  Atomics.wait(SLEEPER, 0, 0, ms);
}

/**
 * Run a whole process to its end; wall time measured around the spawn, peak RSS from /usr/bin/time.
 * Returns {ms, maxRssKB, cpuMs (user + sys of the process and its children; null without /usr/bin/time), status, stdout, stderr}.
 */
export function timeProcess(cmd, args, { env = process.env, cwd, input, captureStdout = false, timeoutMs = 600000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-time-'));
  const rssFile = join(dir, 'rss');
  const hasTime = existsSync('/usr/bin/time');
  // %I: blocks of 512 bytes the process read from storage (page-cache misses), to tell a cold cache from a warm one
  const argv = hasTime ? ['-f', '%U %S %M %I', '-o', rssFile, cmd, ...args] : args;
  const started = process.hrtime.bigint();
  const res = spawnSync(hasTime ? '/usr/bin/time' : cmd, argv, {
    env,
    cwd,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', captureStdout ? 'pipe' : 'ignore', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
    timeout: timeoutMs,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  let maxRssKB = null;
  let cpuMs = null;
  let diskReadKB = null;
  try {
    // The last line (a command that failed adds one of its own before it).
    const [user, sys, rss, blocks] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    maxRssKB = rss;
    cpuMs = Math.round((user + sys) * 1000);
    diskReadKB = Number.isFinite(blocks) ? blocks / 2 : null;
  } catch {
    // no /usr/bin/time
  }
  rmSync(dir, { recursive: true, force: true });
  return { ms, maxRssKB, cpuMs, diskReadKB, status: res.status, signal: res.signal, stdout: captureStdout ? res.stdout?.toString() ?? '' : '', stderr: res.stderr?.toString() ?? '', error: res.error };
}

/** The system's page-in counters (/proc/vmstat): kB read from storage, major faults; null off Linux. */
export function vmstatIo() {
  try {
    const text = readFileSync('/proc/vmstat', 'utf8');
    const get = (k) => Number(new RegExp(`^${k} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    return { pgpginKB: get('pgpgin'), pgmajfault: get('pgmajfault') };
  } catch {
    return null;
  }
}

/** Bytes a live process has caused to be read from storage (/proc/PID/io read_bytes), and its read syscalls' bytes. */
export function procIo(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    const get = (k) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    return { readBytes: get('read_bytes'), rchar: get('rchar') };
  } catch {
    return null;
  }
}

/**
 * How much of these files the page cache holds now (fincore: mincore, which reads no data), as a fraction of their
 * pages; null without fincore. Taken on a sample of a home's files before a search, it says whether the search met a
 * cold cache (this machine's kdamond pages out what was not touched for a minute or so).
 */
export function cacheResidency(paths) {
  if (paths.length === 0) return null;
  const r = spawnSync('fincore', ['--bytes', '--noheadings', '--raw', '--output', 'PAGES,SIZE', ...paths], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || typeof r.stdout !== 'string') return null;
  let resident = 0;
  let pages = 0;
  for (const line of r.stdout.trim().split('\n')) {
    const [res, size] = line.trim().split(/\s+/).map(Number);
    if (!Number.isFinite(res) || !Number.isFinite(size)) continue;
    resident += res;
    pages += Math.ceil(size / 4096);
  }
  return pages === 0 ? null : Number((resident / pages).toFixed(3));
}

/** Drop the page cache (root only): for a cold-cache comparison on a machine no one else is measuring on. */
export function dropPageCache() {
  spawnSync('sync');
  writeFileSync('/proc/sys/vm/drop_caches', '1\n');
}

/** VmRSS / VmHWM (kB) of a live process, or null. */
export function procMemory(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    return { rssKB: get('VmRSS'), hwmKB: get('VmHWM') };
  } catch {
    return null;
  }
}

/** Pids of a process and all its descendants (from /proc). */
export function descendants(pid) {
  const children = new Map();
  for (const entry of spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout.split('\n')) {
    const [p, pp] = entry.trim().split(/\s+/).map(Number);
    if (!p) continue;
    if (!children.has(pp)) children.set(pp, []);
    children.get(pp).push(p);
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** Shell-quote one word. */
export function sq(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${String(word).replace(/'/g, `'\\''`)}'`;
}

/**
 * One tmux server (own socket) with one pane of fixed size. `launch` replaces the pane's program and
 * returns the time it was started; `waitFor` polls capture-pane until a predicate holds.
 */
export class Tmux {
  constructor(name, { width = 160, height = 48 } = {}) {
    // a socket file of our own (not /tmp/tmux-UID/), removed again by kill()
    this.socket = join(tmpdir(), `sessions-bench-${name}-${process.pid}.sock`);
    this.width = width;
    this.height = height;
    this.started = false;
  }
  run(args, opts = {}) {
    return spawnSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8', ...opts });
  }
  start() {
    const r = this.run(['-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', String(this.width), '-y', String(this.height), 'sleep 86400']);
    if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
    this.run(['set-option', '-g', 'remain-on-exit', 'on']);
    this.run(['set-option', '-g', 'history-limit', '0']);
    this.started = true;
  }
  /** Start `shellCommand` (run by sh -c) in the pane; returns hrtime (ns bigint) just before the request. */
  launch(shellCommand, cwd) {
    const t = process.hrtime.bigint();
    const r = this.run(['respawn-pane', '-k', '-t', 'bench', ...(cwd ? ['-c', cwd] : []), shellCommand]);
    if (r.status !== 0) throw new Error(`tmux respawn-pane failed: ${r.stderr}`);
    return t;
  }
  capture() {
    return this.run(['capture-pane', '-p', '-t', 'bench']).stdout ?? '';
  }
  sendKeys(...keys) {
    this.run(['send-keys', '-t', 'bench', ...keys]);
  }
  sendLiteral(text) {
    this.run(['send-keys', '-t', 'bench', '-l', text]);
  }
  panePid() {
    return Number(this.run(['display-message', '-p', '-t', 'bench', '#{pane_pid}']).stdout.trim());
  }
  paneDead() {
    return this.run(['display-message', '-p', '-t', 'bench', '#{pane_dead}']).stdout.trim() === '1';
  }
  /** Poll until pred(screen) is true: {ok, ms (since `since`), screen}. */
  waitFor(pred, { since, timeoutMs = 30000, pollMs = 5 } = {}) {
    const t0 = since ?? process.hrtime.bigint();
    for (;;) {
      const screen = this.capture();
      const now = process.hrtime.bigint();
      const ms = Number(now - t0) / 1e6;
      if (pred(screen)) return { ok: true, ms, screen };
      if (ms > timeoutMs) return { ok: false, ms, screen };
      sleepSync(pollMs);
    }
  }
  /** Stop whatever runs in the pane (the pane stays, running `sleep`). */
  idle() {
    this.run(['respawn-pane', '-k', '-t', 'bench', 'sleep 86400']);
  }
  kill() {
    if (this.started) this.run(['kill-server']);
    this.started = false;
    rmSync(this.socket, { force: true });
  }
}

/** Whitespace-collapsed text, the way list rows show it. */
export function oneLine(text) {
  return String(text ?? '').replace(/\s+/g, ' ').trim();
}

/** True when at least `min` screen lines contain one of the probes (start of a title/prompt/name). */
export function rowsShown(screen, probes, min = 3) {
  let n = 0;
  for (const line of screen.split('\n')) {
    const l = oneLine(line);
    if (l.length < 8) continue;
    if (probes.some((p) => l.includes(p))) n++;
    if (n >= min) return true;
  }
  return false;
}
