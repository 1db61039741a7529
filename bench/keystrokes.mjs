#!/usr/bin/env node
// Keystroke to screen, measured from outside: the built app (`sessions --all`) in a tmux pane, a query typed one
// key at a time with `send-keys`, the pane captured every few milliseconds. Per keystroke, two times:
//   - first change: the first capture that differs from the one taken just before the key was sent;
//   - final count: the first capture whose header shows the settled count for the typed prefix
//     (`N matching "prefix"` with no `+` and no "ranking…", or "Nothing matches").
// Interactive fzf is measured the same way in the same run, on the same candidate lines (each session's title,
// name, prompts, cwd, branch and id on one line, as bench/search-bench.mjs builds them): its final count is the
// `N/M` info line showing what `fzf --filter prefix` prints for the same lines. The next key is sent once the
// final count of the previous one is on screen (or after a time-out, counted as missing). A space is typed but
// not measured: it changes nothing fzf draws.
//
//   node bench/keystrokes.mjs --home DIR [--claw-dir DIR] [--xdg DIR] [--queries 8] [--query Q]... [--query-rounds 1] [--content WORD]
//                             [--no-content] [--content-runs 3] [--rg-first] [--cold-cache] [--node-arg ARG]...
//                             [--tui-stderr FILE] [--no-fzf] [--out FILE] [--timeout-ms 20000]
//
// Queries are chosen from the data, not by hand: single words of titles (a common and a rarer one), two words of
// one title typed in the opposite order, and fzf's extended syntax ('exact, ^prefix, suffix$, !not, a | b); each
// --query is typed after them (issue 33 names `deploy` and `websocket auth`), --query-rounds times (each round after
// the last: `deploy` typed once is 6 keystrokes, whose p95 is their slowest). Figures are given for all keystrokes
// and per query (every round's keystrokes of it).
//
// Content search (Ctrl-G), after the typing: WORD (--content; default: the commonest word of the titles) is typed as
// a query, then Ctrl-G; from that key, the time to the first session found on screen (the header's count is 1 or
// more) and to the search's end (the header no longer says "searching…"); the TUI's VmRSS is sampled meanwhile (its
// peak, until the search ends and --rss-tail-ms 1500 after it) and VmHWM read at the end; the TUI's CPU time (every
// thread, /proc/PID/stat, and its UI thread's alone) from the key to the end. Peer, in the same run: `rg -l -F -uu` (and with -i: the TUI ignores ASCII case)
// for WORD over the same folders, whole processes, median of 3, interleaved with two more Ctrl-G searches (after each
// search; --rg-first: before it). The page cache decides these times (the files read from storage or from memory:
// rg -uu over the 100k home 83.5 s after dropping it, 2.0 s warm), so each search and each rg says what it read from
// storage: the TUI's /proc/PID/io read_bytes and rg's own (/usr/bin/time's %I), with the system's pgpgin and major
// faults (/proc/vmstat) over the same span, and how much of a sample of the files the page cache held before (fincore); `done` is compared with rg only where both read (almost) nothing from
// storage. --cold-cache drops the page cache before every rg and every search (root; never beside other benches).
// --node-arg: a flag for the TUI's node (e.g. --trace-gc, --heap-prof); --tui-stderr: where its stderr goes (else the pane).
// --no-fzf: the TUI alone (a build beside another, interleaved: fzf's part takes as long again).
// Prints one JSON object on stdout (and writes it to --out).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Tmux, cacheResidency, dropPageCache, median, percentile, procIo, sleepSync, sq, timeProcess, vmstatIo, option as opt, BENCH_DIR as BENCH, PRODUCT_ROOT as root } from './lib.mjs';

const home = resolve(opt('--home'));
const clawDir = resolve(opt('--claw-dir', join(home, 'src')));
const WORK = join(BENCH, '.work');
const xdg = resolve(opt('--xdg', join(WORK, `xdg-keys-${home.split('/').pop()}`)));
const QUERY_COUNT = Number(opt('--queries', 8));
const TIMEOUT_MS = Number(opt('--timeout-ms', 20000));
const OUT = opt('--out', null);
/** Every value of a repeatable option. */
const optAll = (name) => process.argv.slice(2).flatMap((arg, i, all) => (arg === name && i + 1 < all.length ? [all[i + 1]] : []));
const NAMED_QUERIES = optAll('--query');
const QUERY_ROUNDS = Number(opt('--query-rounds', 1));
const CONTENT_WORD = opt('--content', null);
/** --no-content: the typing only. */
const CONTENT = !process.argv.includes('--no-content');
const CONTENT_RUNS = Number(opt('--content-runs', 3));
/** --rg-first: each run times rg (and rg -i) before the TUI's search, not after it. */
const RG_FIRST = process.argv.includes('--rg-first');
/** --cold-cache: drop the page cache (root) before every rg and every TUI search: only on a machine no one else measures on. */
const COLD_CACHE = process.argv.includes('--cold-cache');
const NODE_ARGS = optAll('--node-arg');
const TUI_STDERR = opt('--tui-stderr', null);
const NODE = process.execPath;
const CLI = join(root, 'bin', 'sessions.js');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const log = (line) => process.stderr.write(`[keystrokes] ${line}\n`);
mkdirSync(WORK, { recursive: true });
const load = () => loadavg().map((x) => Number(x.toFixed(2)));

const env = { ...process.env, XDG_CACHE_HOME: xdg, XDG_CONFIG_HOME: join(WORK, 'xdg-config'), NO_COLOR: '1', FORCE_COLOR: '0' };
delete env.CODEX_HOME;
delete env.CLAUDE_CONFIG_DIR;
const cliArgs = (extra) => [CLI, ...extra, '--home', home, '--claw-dir', clawDir];

// ---------------------------------------------------------------- the catalog and its candidate lines
// `list` builds (or reuses) the cache the TUI then starts from; the prompts come from the product's own scan.
const out = { home, loadAtStart: load(), queries: [], tui: null, fzf: null };
const listed = spawnSync(NODE, cliArgs(['list', '--all', '--json']), { env, encoding: 'utf8', maxBuffer: 2 ** 30, cwd: WORK });
if (listed.status !== 0) throw new Error(`list failed: ${listed.stderr.slice(0, 400)}`);
const { scanCatalog } = await import(dist('catalog/scan.js'));
const { CatalogCache, defaultCachePath } = await import(dist('catalog/cache.js'));
const { resolveLocations } = await import(dist('catalog/locations.js'));
const locations = resolveLocations({ home, roots: { claw: [clawDir] } }, { env: {}, homeDir: home, cwd: home });
const cache = await CatalogCache.load(defaultCachePath(env, home, locations));
const { sessions } = await scanCatalog(locations, { cache });
out.sessions = sessions.length;
const candidateLine = (s) => [s.title, s.name ?? '', ...(s.prompts ?? [s.firstPrompt ?? '']), s.cwd ?? '', s.gitBranch ?? '', s.id].join(' ').replace(/\s+/g, ' ');
const linesPath = join(WORK, `keys-candidates-${sessions.length}.txt`);
writeFileSync(linesPath, `${sessions.map(candidateLine).join('\n')}\n`);

// ---------------------------------------------------------------- queries, from the titles
function chooseQueries(count) {
  const df = new Map(); // word -> sessions whose title has it
  const titles = sessions.map((s) => (s.title ?? '').toLowerCase());
  for (const t of titles) for (const w of new Set(t.match(/[a-z]{4,}/g) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  const byFreq = [...df.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const common = byFreq.filter(([w]) => w.length >= 5).slice(0, 40);
  const pick = (list, k) => list[Math.min(list.length - 1, k)]?.[0];
  const rare = byFreq.filter(([, n]) => n >= 2 && n <= Math.max(3, sessions.length / 200));
  const w1 = pick(common, 2) ?? 'test';
  const w2 = pick(common, 9) ?? 'file';
  const w3 = pick(rare, Math.floor(rare.length / 2)) ?? 'zzzz';
  // two words of one title, typed in the other order
  const pair = titles.map((t) => t.match(/[a-z]{4,}/g) ?? []).find((ws) => ws.length >= 3 && ws[0] !== ws[2] && df.get(ws[0]) > 3 && df.get(ws[2]) > 3);
  const reversed = pair ? `${pair[2]} ${pair[0]}` : `${w2} ${w1}`;
  const all = [w1, w3, reversed, `${w2} ${w1}`, `'${w2}`, `^${pick(common, 4) ?? w1}`, `${pick(common, 6) ?? w2}$`, `${w1} !${w2}`, `${w3} | ${pick(rare, 3) ?? w2}`, 'xyzzyq'];
  return all.slice(0, count);
}
const queries = [...chooseQueries(QUERY_COUNT), ...Array.from({ length: QUERY_ROUNDS }, () => NAMED_QUERIES).flat()];
out.queries = queries;
out.queryRounds = QUERY_ROUNDS;
log(`${sessions.length} sessions; queries: ${queries.map((q) => JSON.stringify(q)).join(' ')}`);

/** What `fzf --filter` prints for each prefix of each query: the count interactive fzf settles on. */
function fzfCounts() {
  const counts = new Map();
  for (const q of queries) {
    for (let i = 1; i <= q.length; i++) {
      const prefix = q.slice(0, i);
      if (counts.has(prefix)) continue;
      const r = spawnSync('sh', ['-c', `fzf --filter ${sq(prefix)} < ${sq(linesPath)} | wc -l`], { encoding: 'utf8' });
      counts.set(prefix, Number(r.stdout.trim()));
    }
  }
  return counts;
}

// ---------------------------------------------------------------- typing
const tmux = new Tmux(`keys-${process.pid}`, { width: 160, height: 48 });
tmux.start();
process.on('exit', () => tmux.kill());

/**
 * Type each query one key at a time; `final(prefix, screen)` says when the screen shows the settled count.
 * Returns per-keystroke samples {query, prefix, firstMs, finalMs} (null: not seen before the time-out).
 */
function typeQueries(final, clear) {
  const samples = [];
  for (const q of queries) {
    for (let i = 1; i <= q.length; i++) {
      const prefix = q.slice(0, i);
      if (q[i - 1] === ' ') {
        // A space changes nothing fzf shows (the cursor moves; capture-pane does not show it): typed, not measured.
        tmux.sendLiteral(' ');
        sleepSync(150);
        continue;
      }
      const before = tmux.capture();
      const since = process.hrtime.bigint();
      tmux.sendLiteral(q[i - 1]);
      let firstMs = null;
      let finalMs = null;
      for (;;) {
        const screen = tmux.capture();
        const ms = Number(process.hrtime.bigint() - since) / 1e6;
        if (firstMs === null && screen !== before) firstMs = ms;
        if (firstMs !== null && final(prefix, screen)) {
          finalMs = ms;
          break;
        }
        if (ms > TIMEOUT_MS) break;
        sleepSync(2);
      }
      samples.push({ query: q, prefix, firstMs, finalMs });
      sleepSync(20);
    }
    clear();
  }
  return samples;
}

function summarise(samples) {
  const figures = (some) => {
    const first = some.map((s) => s.firstMs).filter((x) => x !== null);
    const final = some.map((s) => s.finalMs).filter((x) => x !== null);
    const r = (x) => (Number.isFinite(x) ? Number(x.toFixed(1)) : null);
    return { keystrokes: some.length, missed: some.length - final.length, firstP50: r(percentile(first, 50)), firstP95: r(percentile(first, 95)), finalP50: r(percentile(final, 50)), finalP95: r(percentile(final, 95)), finalMax: r(Math.max(...final)) };
  };
  return { ...figures(samples), perQuery: Object.fromEntries([...new Set(queries)].map((q) => [q, figures(samples.filter((s) => s.query === q))])) };
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---------------------------------------------------------------- content search (Ctrl-G)
/** The folders the TUI searches, for rg. */
const searchedDirs = [join(home, '.codex'), join(home, '.claude'), clawDir].filter((dir) => existsSync(dir));
const contentWord = CONTENT_WORD ?? (() => {
  const df = new Map();
  for (const s of sessions) for (const w of new Set((s.title ?? '').toLowerCase().match(/[a-z]{5,}/g) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  return [...df.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'message';
})();
const rssOf = (pid) => {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // gone
  }
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: Math.round(kb('VmRSS') / 1024), hwmMB: Math.round(kb('VmHWM') / 1024) };
};
/** CPU time (ms, user + system, every thread) a live process has used: under load steadier than the wall time. */
/** CPU time of the process (every thread), or with `thread` of that thread only (the pid: the UI thread). */
const cpuOf = (pid, thread = null) => {
  try {
    const fields = readFileSync(thread === null ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime: clock ticks of 10 ms
  } catch {
    return NaN;
  }
};
/** After a search's end its RSS is still sampled this long: what it does once done (snippets read, a collection) counts. */
const RSS_TAIL_MS = Number(opt('--rss-tail-ms', 1500));

/**
 * Ctrl-G on `contentWord` typed as a query, RUNS times, each beside `rg -l -F -uu` (and -i) timed whole: from the key to
 * the header's first count of 1 or more sessions, and to the header without "searching…". VmRSS is read every capture.
 */
function contentSearch(pid) {
  const RUNS = CONTENT_RUNS;
  const header = (screen) => screen.split('\n')[0] ?? '';
  const found = (screen) => {
    const m = /(\d[\d,]*) sessions?\b[^·]*in transcripts/.exec(header(screen));
    return m ? Number(m[1].replace(/,/g, '')) : null;
  };
  const runs = [];
  const rg = [];
  const rgi = [];
  tmux.sendKeys('C-u');
  tmux.waitFor((s) => /^search: {2,}/m.test(s) && !/matching "/.test(header(s)), { timeoutMs: 5000 });
  tmux.sendLiteral(contentWord);
  tmux.waitFor((s) => new RegExp(`\\d+ matching "${escapeRe(contentWord)}"|Nothing matches`).test(s), { timeoutMs: TIMEOUT_MS });
  const loadBefore = load();
  /** rg and rg -i, each on the cache state asked for, with what each read from storage. */
  const peers = () => {
    for (const [list, flags] of [[rg, []], [rgi, ['-i']]]) {
      if (COLD_CACHE) dropPageCache();
      const cached = cacheResidency(residencySample);
      const vm = vmstatIo();
      const t = timeProcess('rg', ['-l', '-F', '-uu', ...flags, '--', contentWord, ...searchedDirs], { captureStdout: true });
      list.push({ ...t, io: { cachedBefore: cached, ...ioDelta(vm, vmstatIo(), t.diskReadKB) } });
    }
  };
  for (let r = 0; r < RUNS; r++) {
    if (RG_FIRST) peers();
    sleepSync(500);
    if (COLD_CACHE) dropPageCache();
    const cached = cacheResidency(residencySample);
    const before = rssOf(pid);
    const vm = vmstatIo();
    const io = procIo(pid);
    const cpuBefore = cpuOf(pid);
    const uiCpuBefore = cpuOf(pid, pid);
    const since = process.hrtime.bigint();
    tmux.sendKeys('C-g');
    let firstMs = null;
    let doneMs = null;
    let peakRssMB = before.rssMB;
    let peakSearchRssMB = null;
    let cpuMs = null;
    let uiCpuMs = null;
    let sessionsFound = null;
    for (;;) {
      const screen = tmux.capture();
      const ms = Number(process.hrtime.bigint() - since) / 1e6;
      peakRssMB = Math.max(peakRssMB, rssOf(pid).rssMB);
      const n = found(screen);
      if (firstMs === null && n !== null && n > 0) firstMs = ms;
      if (n !== null && !/searching/.test(header(screen)) && /in transcripts/.test(header(screen))) {
        doneMs = ms;
        sessionsFound = n;
        if (firstMs === null) firstMs = ms;
        cpuMs = cpuOf(pid) - cpuBefore;
        uiCpuMs = cpuOf(pid, pid) - uiCpuBefore;
        peakSearchRssMB = peakRssMB;
        const tailUntil = Date.now() + RSS_TAIL_MS;
        while (Date.now() < tailUntil) {
          peakRssMB = Math.max(peakRssMB, rssOf(pid).rssMB);
          sleepSync(10);
        }
        break;
      }
      if (ms > (COLD_CACHE ? 600000 : TIMEOUT_MS * 3)) break; // a cold cache: rg took 83.5 s over the 100k home
      sleepSync(2);
    }
    const after = rssOf(pid);
    const ioAfter = procIo(pid);
    const tuiReadKB = io && ioAfter ? (ioAfter.readBytes - io.readBytes) / 1024 : null;
    runs.push({ firstMs: firstMs === null ? null : Number(firstMs.toFixed(1)), doneMs: doneMs === null ? null : Number(doneMs.toFixed(1)), sessions: sessionsFound, cpuMs, uiCpuMs, rssBeforeMB: before.rssMB, peakRssMB, peakSearchRssMB, hwmMB: after.hwmMB, load: load(), io: { cachedBefore: cached, ...ioDelta(vm, vmstatIo(), tuiReadKB) } });
    // back to the fuzzy query, then the peers
    tmux.sendKeys('C-g');
    tmux.waitFor((s) => !/in transcripts/.test(header(s)), { timeoutMs: TIMEOUT_MS });
    if (!RG_FIRST) peers();
  }
  const files = (r) => r.stdout.split('\n').filter(Boolean).length;
  const med = (xs) => (xs.some((x) => x === null) ? null : Number(median(xs).toFixed(1)));
  // warm: read under 16 MB from storage (the homes are 0.9–1.7 GB; a cold search reads hundreds of MB, a warm one at
  // 100k a few MB that kdamond had just paged out)
  const warm = (x) => x.io.readMB !== null && x.io.readMB < 16;
  const warmRuns = runs.filter(warm);
  const warmRg = rg.filter(warm);
  const peer = (list) => list.map((x) => ({ ms: Number(x.ms.toFixed(1)), cpuMs: x.cpuMs, ...x.io }));
  const result = {
    word: contentWord,
    runs,
    firstMs: med(runs.map((r) => r.firstMs)),
    doneMs: med(runs.map((r) => r.doneMs)),
    cpuMs: med(runs.map((r) => r.cpuMs)),
    uiCpuMs: med(runs.map((r) => r.uiCpuMs)),
    peakRssMB: Math.max(...runs.map((r) => r.peakRssMB)),
    hwmMB: Math.max(...runs.map((r) => r.hwmMB)),
    sessions: runs[0]?.sessions ?? null,
    rg: { ms: Number(median(rg.map((r) => r.ms)).toFixed(1)), files: files(rg[0]), command: `rg -l -F -uu ${contentWord} DIRS`, runs: peer(rg) },
    rgIgnoreCase: { ms: Number(median(rgi.map((r) => r.ms)).toFixed(1)), files: files(rgi[0]), runs: peer(rgi) },
    order: RG_FIRST ? 'rg before each search' : 'rg after each search',
    coldCache: COLD_CACHE,
    // like with like: the searches and the rg runs that read (almost) nothing from storage
    warm: { searches: warmRuns.length, doneMs: warmRuns.length ? med(warmRuns.map((r) => r.doneMs)) : null, rgMs: warmRg.length ? Number(median(warmRg.map((r) => r.ms)).toFixed(1)) : null },
    load: [loadBefore, load()],
  };
  const ioText = (x) => `${x.io.readMB ?? '?'} MB from storage (${x.io.cachedBefore === null ? '?' : Math.round(x.io.cachedBefore * 100)} % of a sample cached before)`;
  for (const [i, r] of runs.entries()) log(`  search ${i + 1}: first ${r.firstMs} ms, done ${r.doneMs} ms, CPU ${r.cpuMs} ms (UI thread ${r.uiCpuMs} ms), ${ioText(r)} (pgpgin ${r.io.pgpginMB} MB, ${r.io.majfaults} major faults), peak RSS ${r.peakSearchRssMB} MB (${RSS_TAIL_MS} ms after: ${r.peakRssMB} MB), before ${r.rssBeforeMB} MB; rg ${rg[i].ms.toFixed(0)} ms (CPU ${rg[i].cpuMs} ms) ${ioText(rg[i])}, rg -i ${rgi[i].ms.toFixed(0)} ms ${ioText(rgi[i])}`);
  log(`content search "${contentWord}": first ${result.firstMs} ms, done ${result.doneMs} ms (${result.sessions} sessions), CPU ${result.cpuMs} ms (UI thread ${result.uiCpuMs} ms), peak RSS ${result.peakRssMB} MB; rg -l -F -uu ${result.rg.ms} ms (${result.rg.files} files), with -i ${result.rgIgnoreCase.ms} ms; warm only: done ${result.warm.doneMs} ms (${result.warm.searches} searches) beside rg ${result.warm.rgMs} ms; load ${loadBefore[0]}`);
  return result;
}

/** A sample of the searched files (every k-th session's, ~2,000), whose page-cache residency is taken before each run. */
const residencySample = (() => {
  const step = Math.max(1, Math.floor(sessions.length / 2000));
  return sessions.filter((_, i) => i % step === 0).flatMap((s) => s.paths ?? [s.path]).filter((p) => p.startsWith(home) || p.startsWith(clawDir));
})();

/** What a span read from storage: the process's own bytes (KB → MB) and the system's page-ins and major faults. */
function ioDelta(before, after, ownKB) {
  const mb = (kb) => (kb === null || !Number.isFinite(kb) ? null : Number((kb / 1024).toFixed(1)));
  return { readMB: mb(ownKB), pgpginMB: before && after ? mb(after.pgpginKB - before.pgpginKB) : null, majfaults: before && after ? after.pgmajfault - before.pgmajfault : null };
}

// ---- ours
{
  const vars = ['XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'NO_COLOR', 'FORCE_COLOR', 'HOME', 'PATH'].filter((k) => env[k] !== undefined).map((k) => `${k}=${sq(env[k])}`);
  const since = tmux.launch(`exec env -i ${vars.join(' ')} TERM=xterm-256color LANG=C.UTF-8 ${sq(NODE)} ${[...NODE_ARGS, ...cliArgs(['--all'])].map(sq).join(' ')}${TUI_STDERR === null ? '' : ` 2>${sq(resolve(TUI_STDERR))}`}`, WORK);
  // settled: rows painted, the header no longer says it is scanning or indexing
  const ready = tmux.waitFor((s) => / in all directories/.test(s.split('\n')[0] ?? '') && !/scanning|indexing/i.test(s.split('\n')[0] ?? ''), { since, timeoutMs: 600000, pollMs: 20 });
  if (!ready.ok) throw new Error(`the TUI never settled:\n${ready.screen}`);
  sleepSync(3000); // the search index is built 30 ms after the catalog settles; the watcher arms
  const pid = tmux.panePid();
  // typing searches at once: the list's footer holds the query (`search: `)
  tmux.waitFor((s) => /^search: /m.test(s), { timeoutMs: 5000 });
  sleepSync(200);
  const loadBefore = load();
  const cpuBefore = cpuOf(pid);
  const uiCpuBefore = cpuOf(pid, pid);
  const settled = (prefix, screen) => {
    const header = screen.split('\n')[0] ?? '';
    const q = escapeRe(prefix.trim());
    return new RegExp(`\\b\\d+ matching "${q}"`).test(header) || screen.includes(`Nothing matches "${prefix.trim()}"`);
  };
  const samples = typeQueries(settled, () => {
    tmux.sendKeys('C-u');
    tmux.waitFor((s) => /^search: {2,}/m.test(s) && !/matching "/.test(s.split('\n')[0] ?? ''), { timeoutMs: 5000 });
    sleepSync(100);
  });
  const status = spawnSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }).stdout;
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  // CPU time over the typing (every thread: GC's helpers too; and the UI thread's alone): steadier than wall time under load.
  out.tui = { ...summarise(samples), cpuMs: cpuOf(pid) - cpuBefore, uiCpuMs: cpuOf(pid, pid) - uiCpuBefore, load: [loadBefore, load()], rssMB: Math.round(kb('VmRSS') / 1024), hwmMB: Math.round(kb('VmHWM') / 1024), samples };
  if (CONTENT) out.content = contentSearch(pid);
  tmux.idle();
  log(`sessions: first change p50 ${out.tui.firstP50} / p95 ${out.tui.firstP95} ms, final count p50 ${out.tui.finalP50} / p95 ${out.tui.finalP95} ms (${out.tui.missed} missed), CPU ${out.tui.cpuMs} ms (UI thread ${out.tui.uiCpuMs} ms), load ${loadBefore[0]}`);
}

// ---- fzf, interactive, on the same lines
if (process.argv.includes('--no-fzf')) {
  out.fzf = { status: 'not measured (--no-fzf)' };
} else if (spawnSync('sh', ['-c', 'command -v fzf']).status !== 0) {
  out.fzf = { status: 'fzf is not installed (apt-get install fzf)' };
} else {
  const counts = fzfCounts();
  const total = sessions.length;
  const since = tmux.launch(`exec env TERM=xterm-256color LANG=C.UTF-8 fzf --no-mouse < ${sq(linesPath)}`, WORK);
  const ready = tmux.waitFor((s) => new RegExp(`\\b${total}/${total}\\b`).test(s), { since, timeoutMs: 120000, pollMs: 10 });
  if (!ready.ok) throw new Error(`fzf never showed ${total}/${total}:\n${ready.screen}`);
  sleepSync(500);
  const loadBefore = load();
  // fzf's info line: `  123/10000` (a spinner before it while it is still matching)
  const settled = (prefix, screen) => new RegExp(`(^|\\s)${counts.get(prefix)}/${total}(\\s|$)`, 'm').test(screen) && screen.includes(`> ${prefix.trimEnd()}`);
  const samples = typeQueries(settled, () => {
    tmux.sendKeys('C-u');
    tmux.waitFor((s) => new RegExp(`\\b${total}/${total}\\b`).test(s), { timeoutMs: 10000 });
    sleepSync(100);
  });
  out.fzf = { ...summarise(samples), version: spawnSync('fzf', ['--version'], { encoding: 'utf8' }).stdout.trim(), load: [loadBefore, load()], samples };
  tmux.idle();
  log(`fzf: first change p50 ${out.fzf.firstP50} / p95 ${out.fzf.firstP95} ms, final count p50 ${out.fzf.finalP50} / p95 ${out.fzf.finalP95} ms (${out.fzf.missed} missed), load ${loadBefore[0]}`);
}
tmux.kill();
out.loadAtEnd = load();
const json = JSON.stringify(out);
if (OUT) {
  mkdirSync(dirname(resolve(OUT)), { recursive: true });
  writeFileSync(resolve(OUT), `${JSON.stringify(out, null, 2)}\n`);
}
process.stdout.write(`${json}\n`);
if (!existsSync(CLI)) process.exitCode = 1;
