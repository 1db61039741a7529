// `sessions show --format html` and `--redact` on a copy of the sample home whose Claude Code session was given a
// prompt with markup that would fetch (an <img>, a <script>) and two secrets: the page holds every turn, escapes the
// markup, fetches nothing in a real headless Chromium, and --redact masks the secrets in md, json and html.
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const SESSION = '3e88d315-7144-400c-90c6-61cb05f07877';
const FILE = join('.claude', 'projects', '-home-dev-src-shop-api', `${SESSION}.jsonl`);
const PROMPTS = ['Checkout returns a 500 when the cart has a discount code.', 'and add a regression test for a cart with a 10% code.', 'An expired code should give a 400'];
// Shaped as the real ones are (made up: the AWS documentation's example id, a GitHub token of x's).
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const GITHUB_TOKEN = `ghp_${'x1Y2'.repeat(9)}`;

let dir: string;
let home: string;
let server: Server;
const fetched: string[] = [];

function sessions(...args: string[]): string {
  return execFileSync(process.execPath, [BIN, ...args, '--home', home, '--no-cache'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') }, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

function show(...args: string[]): string {
  return sessions('show', SESSION, ...args);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-show-html-'));
  home = join(dir, 'home');
  await cp(join(ROOT, 'examples', 'home'), home, { recursive: true });
  server = createServer((req, res) => {
    fetched.push(req.url ?? '');
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Markup with no quotes in it: it stays a valid JSON string in the session's lines.
  const hostile = `Fix it <img src=${origin}/img.png> <script src=${origin}/script.js></script> (AWS ${AWS_KEY}, token ${GITHUB_TOKEN})`;
  const path = join(home, FILE);
  await writeFile(path, (await readFile(path, 'utf8')).replaceAll('Fix it', hostile));
});

afterAll(async () => {
  server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('show --format html', () => {
  it('is one page with the metadata, every turn, tool calls and reasoning collapsible, markup from the session escaped', () => {
    const html = show('--format', 'html');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(html).toContain(`<dt>id</dt><dd>${SESSION}</dd>`);
    expect(html).toContain('<dt>cwd</dt><dd>/home/dev/src/shop-api</dd>');
    for (const [i, prompt] of PROMPTS.entries()) {
      expect(html).toContain(`<h2 id="turn-${i + 1}">Turn ${i + 1}</h2>`);
      expect(html).toContain(prompt);
    }
    expect(html).not.toContain('Turn 4');
    expect(html).toMatch(/<details class="tool-call"><summary>Tool call: Bash<\/summary>/);
    expect(html).toMatch(/<details class="tool-result"><summary>Tool output<\/summary><pre>7: {2}const amount = applyDiscount/);
    expect(html).toContain('<details class="reasoning"><summary>Reasoning</summary>');
    expect(html).toContain('&lt;img src=http://127.0.0.1:');
    expect(html).not.toMatch(/<(img|script|link|iframe|object|embed)\b/i);
    expect(html).toContain("default-src 'none'");
  });
});

describe('--redact', () => {
  it('masks the secrets in md, json and html (and they are there without it)', () => {
    for (const format of ['md', 'json', 'html', 'text']) {
      const plain = show('--format', format);
      expect(plain, format).toContain(AWS_KEY);
      expect(plain, format).toContain(GITHUB_TOKEN);
      const redacted = show('--format', format, '--redact');
      expect(redacted, format).not.toContain(AWS_KEY);
      expect(redacted, format).not.toContain(GITHUB_TOKEN);
      expect(redacted, format).toContain('[REDACTED aws-access-key-id]');
      expect(redacted, format).toContain('[REDACTED github-token]');
      expect(redacted, format).toContain(PROMPTS[2]);
    }
  });
});

describe('fork --to … --redact', () => {
  it('writes a hand-off whose prompts hold no secret (and one without --redact that does)', () => {
    const redacted = JSON.parse(sessions('fork', SESSION, '--to', 'codex', '--redact', '--json')) as { id: string; agent: string };
    expect(redacted.agent).toBe('codex');
    const written = sessions('show', redacted.id, '--json');
    expect(written).not.toContain(AWS_KEY);
    expect(written).not.toContain(GITHUB_TOKEN);
    expect(written).toContain('[REDACTED aws-access-key-id]');
    expect(written).toContain(PROMPTS[2]);
    const plain = JSON.parse(sessions('fork', SESSION, '--to', 'codex', '--json')) as { id: string };
    expect(sessions('show', plain.id, '--json')).toContain(AWS_KEY);
  });

  it('is refused for a fork of the same agent (its lines are copied as they are)', () => {
    expect(() => sessions('fork', SESSION, '--redact')).toThrow(/--redact masks what a hand-off writes/);
  });
});

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((bin) => {
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
if (!CHROMIUM) process.stderr.write('show-html: no headless Chromium (/usr/bin/chromium): the browser test is skipped\n');

/** The DOM Chromium built from a file, once it loaded (what a reader sees). */
function dumpDom(page: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      CHROMIUM!,
      ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${join(dir, 'chromium')}`, '--dump-dom', `file://${page}`],
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

describe.skipIf(!CHROMIUM)('the page in headless Chromium', () => {
  it('shows every turn and fetches nothing, where a page with the same markup unescaped does fetch', async () => {
    const page = join(dir, 'session.html');
    await writeFile(page, show('--format', 'html'));
    const dom = await dumpDom(page);
    for (const [i, prompt] of PROMPTS.entries()) {
      expect(dom).toContain(`Turn ${i + 1}</h2>`);
      expect(dom).toContain(prompt);
    }
    expect(dom).toContain('<details class="tool-call">');
    expect(fetched).toEqual([]);
    // The control: the same server is reached by a page that does load its markup.
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const control = join(dir, 'control.html');
    await writeFile(control, `<!DOCTYPE html><html><body><img src="${origin}/control.png"><p>control</p></body></html>`);
    await dumpDom(control);
    expect(fetched).toContain('/control.png');
  }, 120_000);
});
