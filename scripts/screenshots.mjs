#!/usr/bin/env node
// `npm run screenshots`: PNG screenshots of the real, built TUI on the bundled sample home.
// The app runs in a private tmux server at a fixed size and is driven with send-keys; each screen is captured
// with its colours (`tmux capture-pane -e`), turned into an HTML grid of terminal cells and photographed by
// headless Chromium. Needs tmux and Debian's chromium (apt-get install -y tmux chromium; fonts-wqy-microhei
// draws the CJK sample prompts).
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import stringWidth from 'string-width';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'screenshots');
const COLUMNS = 120;
const ROWS = 34;
const CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome'].find((name) => {
  try {
    execFileSync('which', [name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

if (!CHROMIUM) {
  console.error('screenshots: headless Chromium is needed (Debian: apt-get install -y chromium fonts-wqy-microhei)');
  process.exit(1);
}

/** The private tmux server's socket, inside the run's temp dir (set in main). */
let socket = '';
const tmux = (...args) => exec('tmux', ['-S', socket, ...args]);
const screen = async (ansi = false) => (await tmux('capture-pane', '-p', ...(ansi ? ['-e'] : []), '-t', 'main')).stdout;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function see(test, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = await screen();
    if (typeof test === 'string' ? text.includes(test) : test.test(text)) return text;
    await sleep(50);
  }
  throw new Error(`screenshots: timed out waiting for ${test}; the screen shows:\n${text}`);
}

async function keys(...names) {
  for (const name of names) {
    const literal = name.length === 1;
    await tmux('send-keys', '-t', 'main', ...(literal ? ['-l', name] : [name]));
    await sleep(60);
  }
}

async function type(text) {
  for (const char of text) await keys(char);
}

// ---- ANSI (SGR only: that is all capture-pane -e emits) to an HTML grid of cells ----

const PALETTE = ['#1d1f21', '#cc6666', '#b5bd68', '#f0c674', '#81a2be', '#b294bb', '#8abeb7', '#c5c8c6', '#707880', '#ff7b72', '#a8d08d', '#ffd479', '#9ecbff', '#d2a8ff', '#a5f3fc', '#ffffff'];
const FOREGROUND = '#d8dee4';
const BACKGROUND = '#16181d';

function color256(n) {
  if (n < 16) return PALETTE[n];
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return `rgb(${level},${level},${level})`;
  }
  const index = n - 16;
  const level = (v) => (v === 0 ? 0 : 55 + v * 40);
  return `rgb(${level(Math.floor(index / 36))},${level(Math.floor(index / 6) % 6)},${level(index % 6)})`;
}

function applySgr(style, params) {
  const codes = params === '' ? [0] : params.split(';').map(Number);
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) Object.assign(style, { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false });
    else if (code === 1) style.bold = true;
    else if (code === 2) style.dim = true;
    else if (code === 3) style.italic = true;
    else if (code === 4) style.underline = true;
    else if (code === 7) style.inverse = true;
    else if (code === 22) style.bold = style.dim = false;
    else if (code === 23) style.italic = false;
    else if (code === 24) style.underline = false;
    else if (code === 27) style.inverse = false;
    else if (code >= 30 && code <= 37) style.fg = PALETTE[code - 30];
    else if (code === 39) style.fg = null;
    else if (code >= 40 && code <= 47) style.bg = PALETTE[code - 40];
    else if (code === 49) style.bg = null;
    else if (code >= 90 && code <= 97) style.fg = PALETTE[code - 90 + 8];
    else if (code >= 100 && code <= 107) style.bg = PALETTE[code - 100 + 8];
    else if (code === 38 || code === 48) {
      const target = code === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5) {
        style[target] = color256(codes[i + 2]);
        i += 2;
      } else if (codes[i + 1] === 2) {
        style[target] = `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`;
        i += 4;
      }
    }
  }
}

const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
const SGR = new RegExp(`^${ESC}\\[([0-9;]*)m`);
const OTHER_ESCAPE = new RegExp(`^${ESC}(\\[[0-9;?]*[A-Za-z]|\\][^${BEL}]*${BEL}|.)`);

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function cellSpan(char, style) {
  let fg = style.fg ?? FOREGROUND;
  let bg = style.bg ?? 'transparent';
  if (style.inverse) [fg, bg] = [style.bg ?? BACKGROUND, style.fg ?? FOREGROUND];
  const css = [`color:${fg}`, `background:${bg}`];
  if (style.bold) css.push('font-weight:bold');
  if (style.dim) css.push('opacity:0.6');
  if (style.italic) css.push('font-style:italic');
  if (style.underline) css.push('text-decoration:underline');
  // Every cell is exactly one (or two, for wide characters) columns wide, whatever font draws the glyph.
  const width = Math.max(1, stringWidth(char));
  return `<span style="${css.join(';')};width:${width}ch">${escapeHtml(char)}</span>`;
}

function ansiToHtml(ansi) {
  const style = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false };
  const lines = ansi.replace(/\n$/, '').split('\n').slice(0, ROWS);
  const rows = lines.map((line) => {
    let html = '';
    let used = 0;
    for (let i = 0; i < line.length; ) {
      const sgr = SGR.exec(line.slice(i));
      if (sgr) {
        applySgr(style, sgr[1]);
        i += sgr[0].length;
        continue;
      }
      if (line[i] === ESC) {
        const other = OTHER_ESCAPE.exec(line.slice(i));
        i += other ? other[0].length : 1;
        continue;
      }
      const char = String.fromCodePoint(line.codePointAt(i));
      i += char.length;
      html += cellSpan(char, style);
      used += Math.max(1, stringWidth(char));
    }
    return `<div class="row">${html}${used < COLUMNS ? `<span style="width:${COLUMNS - used}ch"></span>` : ''}</div>`;
  });
  while (rows.length < ROWS) rows.push('<div class="row"></div>');
  return `<!doctype html><meta charset="utf-8"><style>
    html, body { margin: 0; background: ${BACKGROUND}; }
    .term { padding: 14px 16px; font: 15px/1.3 "DejaVu Sans Mono", "WenQuanYi Micro Hei Mono", monospace; color: ${FOREGROUND}; width: ${COLUMNS}ch; }
    .row { display: flex; height: 1.3em; white-space: pre; }
    .row span { display: inline-block; overflow: hidden; text-align: left; flex: none; }
  </style><div class="term">${rows.join('\n')}</div>`;
}

async function shoot(name, dir) {
  const html = join(dir, `${name}.html`);
  await writeFile(html, ansiToHtml(await screen(true)));
  const out = join(OUT, `${name}.png`);
  const width = Math.ceil(COLUMNS * 9.05 + 32);
  const height = Math.ceil(ROWS * 15 * 1.3 + 28);
  await exec(CHROMIUM, [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--hide-scrollbars',
    `--user-data-dir=${join(dir, 'chromium')}`,
    `--window-size=${width},${height}`,
    `--screenshot=${out}`,
    `file://${html}`,
  ]);
  console.log(`screenshots: ${out}`);
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'sessions-screenshots-'));
  socket = join(dir, 'tmux.sock');
  const work = join(dir, 'work');
  await mkdir(work);
  await mkdir(OUT, { recursive: true });
  // HOME is examples/ so paths read ~/home/…; config and cache stay in the temp dir; no CI (Ink would draw only the last frame).
  const env = [
    `HOME=${join(ROOT, 'examples')}`,
    `XDG_CACHE_HOME=${join(dir, 'cache')}`,
    `XDG_CONFIG_HOME=${join(dir, 'config')}`,
    `PATH=${process.env.PATH}`,
    'TERM=xterm-256color',
    'COLORTERM=truecolor',
  ];
  const command = ['env', '-i', ...env, process.execPath, join(ROOT, 'bin', 'sessions.js'), '--home', 'examples/home', '--claw-dir', 'examples/home/src']
    .map((part) => `'${part.replaceAll("'", `'\\''`)}'`)
    .join(' ');
  try {
    await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(COLUMNS), '-y', String(ROWS), '-c', ROOT, `${command}; sleep 600`);
    await see(/sessions · \d+ in /);
    await keys('C-a');
    await see(/\d+ in all directories/);
    // Select the Claude Code session about the checkout bug: its preview shows the first and last exchanges. Step
    // down until it is selected (rows may still be arriving, so counting rows on one screen can miss it).
    const checkout = /› claude .*Checkout returns a 500/;
    for (let i = 0; i < 40 && !checkout.test(await screen()); i++) {
      await keys('Down');
      await sleep(60);
    }
    await see(checkout);
    await sleep(400); // the preview reads the first and last exchanges after the selection rests
    await shoot('list', dir);

    // Typing searches every column: the agent's name and a word of the prompts.
    await type('checkout codex');
    await see(/\d+ matching "checkout codex"/);
    await sleep(400);
    await shoot('search', dir);

    // The Codex session holding the whole Claude Code conversation, handed off, and the turn Codex added.
    await keys('Right');
    await see('turn 1/4');
    await keys('End');
    await sleep(200);
    await shoot('transcript', dir);

    // Hand the Claude Code session off to another agent before its third turn: f, then Tab picks the agent.
    await keys('Escape');
    await see(/matching "checkout codex"/);
    await keys('C-u');
    await type('checkout claude');
    await see(/› claude .*Checkout returns a 500/);
    await keys('Right');
    await see('turn 1/3');
    await keys(']', ']');
    await see('turn 3/3');
    await keys('f');
    await see('Fork before turn 3');
    await keys('BTab'); // from claude back to codex
    await see('Hand off to codex before turn 3');
    await type('expired-code');
    await sleep(200);
    await shoot('fork', dir);

    // Back to the list, the query cleared; Ctrl-G searches inside every transcript, tool output too.
    await keys('Escape');
    await see('turn 3/3');
    await keys('Escape');
    await see(/matching "checkout claude"/);
    await keys('Escape', 'C-g');
    await see('type 2+ characters after >');
    await type('expired');
    await see(/sessions?, \d+ match(es)? of "expired" in transcripts(?! \(searching)/);
    await sleep(400);
    await shoot('content-search', dir);
    await keys('Escape');
    await see(/\d+ in all directories/);
    await keys('Escape');
  } finally {
    await tmux('kill-server').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
