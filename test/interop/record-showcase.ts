/**
 * Records the sample home's showcase sessions (examples/home, `npm run screenshots`): real files written by the real
 * Claude Code 2.1.330 and Codex CLI 0.169.0 against the loopback model stand-in, with scripted answers that read
 * like the work people do with them, and a whole Claude Code conversation handed off to Codex by `sessions fork
 * --to codex` and continued there by the real Codex. The tool calls run for real, on the small projects made here.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-showcase.ts --outfile=.cache/record-showcase.mjs
 *   node .cache/record-showcase.mjs <claude bin> <codex bin> <out dir>
 *
 * The out dir gets `home/.claude`, `home/.codex` (what the agents wrote) and `runs.json` (each run's argv and id);
 * test/fixtures/import-showcase-recording.py copies the sessions into examples/home with the home made /home/dev.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRun, runProcess } from './agents.js';
import { codexDriver } from './drivers.js';
import { startModelStandIn, type StandInScript } from './model-stand-in.js';

const [claudeBin, codexBin, outArg] = process.argv.slice(2);
if (claudeBin === undefined || codexBin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-showcase <claude bin> <codex bin> <out dir>\n');
  process.exit(2);
}
const SESSIONS = fileURLToPath(new URL('../bin/sessions.js', import.meta.url));
const out = resolve(outArg);
const home = join(out, 'home');
const claudeDir = join(home, '.claude');
const codexHome = join(home, '.codex');
const shop = join(home, 'src', 'shop-api');
const dashboard = join(home, 'src', 'web-dashboard');

const CHECKOUT = `import { chargeCard } from './payments.js';
import { findDiscount } from './discounts.js';

export async function checkout(cart, customer) {
  const discount = cart.code ? await findDiscount(cart.code) : null;
  // BUG: the discount is applied before the totals exist
  const amount = applyDiscount(cart.subtotal, discount);
  cart.subtotal = cart.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  return chargeCard(customer, Math.round(amount * 100));
}

function applyDiscount(subtotal, discount) {
  if (!discount) return subtotal;
  return subtotal - subtotal * discount.percent / 100;
}
`;
const SETTINGS = `import { useEffect, useState } from 'react';

export function Settings() {
  const [theme, setTheme] = useState('light');
  useEffect(() => {
    setTheme(localStorage.getItem('theme') ?? 'light');
  }, []);
  return <label><input type="checkbox" checked={theme === 'dark'} onChange={(e) => setTheme(e.target.checked ? 'dark' : 'light')} /> Dark mode</label>;
}
`;

/** Each prompt of the showcase, and what the stand-in answers to it. */
const TURNS: readonly { readonly prompt: string; readonly command?: string; readonly reasoning?: string; readonly answer: string }[] = [
  {
    prompt: 'Checkout returns a 500 when the cart has a discount code. Can you find out why?',
    command: 'grep -n "subtotal" src/checkout.js',
    answer: [
      'Found it. In `src/checkout.js`, `applyDiscount(cart.subtotal, discount)` runs on line 7, but `cart.subtotal` is',
      'only computed on line 8. For a cart with a code, `subtotal` is still `undefined`, so the amount is `NaN` and',
      '`chargeCard` rejects it, which surfaces as the 500.',
      '',
      'Fix: compute the subtotal first, then apply the discount. I would also reject an unknown or expired code with a',
      '400 before calling the payment provider.',
    ].join('\n'),
  },
  {
    prompt: 'Fix it and add a regression test for a cart with a 10% code.',
    reasoning: 'Move the subtotal above the discount; the test should go through checkout() with a stubbed chargeCard.',
    answer: [
      'Done:',
      '- `checkout()` now computes `cart.subtotal` before `applyDiscount`, and `applyDiscount` throws on a non-finite',
      '  subtotal instead of returning `NaN`.',
      '- `test/checkout.test.js`: a cart of two items (40.00 and 10.00) with `SAVE10` charges 4500 cents; a cart',
      '  without a code charges 5000.',
      '',
      'Both tests pass, as do the other 38 in the suite.',
    ].join('\n'),
  },
  {
    prompt: 'An expired code should give a 400 with a message the shop can show, not a 500.',
    reasoning: 'findDiscount knows validUntil; an HttpError(400) reaches the error middleware as is.',
    answer: [
      '`findDiscount` now returns `{ expired: true }` for a code past its `validUntil`, and `checkout` throws',
      '`new HttpError(400, "This discount code expired on 2026-10-31.")`. The error middleware already turns an',
      '`HttpError` into `{ error: message }` with its status, so the storefront can show the text as is.',
      'Added a test for it next to the other two.',
    ].join('\n'),
  },
  {
    prompt: 'Continue from here: write the CHANGELOG entry for these checkout fixes.',
    reasoning: 'Two user-visible changes: the 500 on discounted carts, and the 400 for expired codes.',
    answer: [
      'Added to `CHANGELOG.md` under "Unreleased":',
      '',
      '### Fixed',
      '- Checkout no longer fails with a 500 when the cart has a discount code: the subtotal is computed before the',
      '  discount is applied.',
      '- An expired discount code is refused with a 400 and a message the storefront can show.',
    ].join('\n'),
  },
  {
    prompt: "Add a dark mode toggle to the settings page and keep the user's choice.",
    command: 'cat src/components/Settings.jsx',
    answer: [
      '`Settings.jsx` already has a checkbox, but the choice is never saved and nothing applies it. I changed it to:',
      '- write `localStorage.theme` whenever the toggle changes;',
      '- set `document.documentElement.dataset.theme`, which `theme.css` now uses for the dark palette;',
      "- default to the system's `prefers-color-scheme` when nothing is saved.",
    ].join('\n'),
  },
  {
    prompt: 'The page flashes white before going dark on reload. Why?',
    reasoning: 'The theme is read in useEffect, which runs after the first paint.',
    answer: [
      'The saved theme is read in a `useEffect`, which runs after React has painted the first frame in the light',
      'theme. Reading it before React starts fixes that: a five-line inline script in `index.html` that sets',
      '`data-theme` from `localStorage` (or the system preference), and `useState` initialised from that attribute',
      'instead of `"light"`. I added both; reloading in dark mode no longer flashes.',
    ].join('\n'),
  },
];

const script: StandInScript = {
  turn: (prompt) => TURNS.find((turn) => prompt.includes(turn.prompt)),
};

const standIn = await startModelStandIn({ script });
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];
const baseEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  CLAUDE_CONFIG_DIR: claudeDir,
  CODEX_HOME: codexHome,
  ANTHROPIC_BASE_URL: standIn.origin,
  ANTHROPIC_API_KEY: 'stand-in-key',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
};

async function run(label: string, bin: string, argv: string[], cwd: string, env: NodeJS.ProcessEnv, idOf: (stdout: string) => string | null): Promise<string> {
  const result = await runProcess(bin, argv, { cwd, env, timeoutMs: 120_000 });
  const sessionId = result.code === 0 ? idOf(result.stdout) : null;
  runs.push({ label, argv, sessionId, code: result.code });
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  if (result.code !== 0 || sessionId === null) throw new Error(describeRun(label, result));
  return sessionId;
}

const claudeId = (stdout: string): string | null => {
  try {
    return (JSON.parse(stdout.trim()) as { session_id?: string }).session_id ?? null;
  } catch {
    return null;
  }
};

try {
  await mkdir(join(shop, 'src'), { recursive: true });
  await mkdir(join(dashboard, 'src', 'components'), { recursive: true });
  await mkdir(claudeDir, { recursive: true });
  await mkdir(codexHome, { recursive: true });
  await writeFile(join(shop, 'src', 'checkout.js'), CHECKOUT);
  await writeFile(join(dashboard, 'src', 'components', 'Settings.jsx'), SETTINGS);
  const sandbox = { root: out, home, codexHome, claudeDir, copilotHome: join(home, '.copilot'), projects: join(home, 'src'), sessionsConfig: join(out, 'config.json'), env: baseEnv };
  const codexEnv = { ...baseEnv, ...(await codexDriver.prepare(sandbox, standIn.origin)) };

  const claude = (label: string, args: string[]): Promise<string> =>
    run(label, claudeBin, ['-p', '--output-format', 'json', '--allowedTools=Bash', ...args], shop, baseEnv, claudeId);
  const main = await claude('claude t1 (tool)', [TURNS[0]!.prompt]);
  await claude('claude t2', ['--resume', main, TURNS[1]!.prompt]);
  await claude('claude t3', ['--resume', main, TURNS[2]!.prompt]);

  // The whole conversation to Codex, then the real Codex continues it.
  const handoff = await run(
    'sessions fork --to codex',
    process.execPath,
    [SESSIONS, 'fork', main, '--to', 'codex', '--json', '--claude-dir', claudeDir, '--codex-home', codexHome, '--no-cache'],
    shop,
    baseEnv,
    (stdout) => (JSON.parse(stdout) as { id?: string }).id ?? null,
  );
  await run('codex resume of the hand-off', codexBin, codexDriver.resumeArgs(handoff, TURNS[3]!.prompt), shop, codexEnv, () => handoff);

  const codex = await run('codex t1 (tool)', codexBin, codexDriver.newSessionArgs(TURNS[4]!.prompt), dashboard, codexEnv, (stdout) => codexDriver.reportedSessionId(stdout));
  await run('codex t2', codexBin, codexDriver.resumeArgs(codex, TURNS[5]!.prompt), dashboard, codexEnv, () => codex);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
