/**
 * Records Kilo Code CLI sessions written by the real release against the loopback model stand-in (a provider whose
 * `options.baseURL` is the stand-in, OpenAI Chat Completions), for fixtures (test/fixtures/kilo-7.7.9): a one-turn
 * session, four turns with a tool call (turns 2-4 through `kilo run -s ID`, a resume), Kilo's own `--fork` of it
 * with one more turn, and two turns in a folder with a non-ASCII name. Kilo keeps them in one SQLite database,
 * `$XDG_DATA_HOME/kilo/kilo.db` (opencode's schema: Kilo Code CLI is an opencode fork).
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-kilo.ts --outfile=.cache/record-kilo.mjs
 *   node .cache/record-kilo.mjs <kilo bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.local/share/kilo` (what Kilo wrote), the project folders under
 * `src/` and `runs-kilo.json` (each run's argv and the session id Kilo reported). HOME and every XDG folder are that
 * home from the first call; every network feature of Kilo's is switched off (kilo-config.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { kiloSandboxEnv } from './kilo-config.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-kilo <kilo bin> <home>\n');
  process.exit(2);
}
const home = resolve(outArg);
const projects = join(home, 'src');
const standIn = await startModelStandIn();

const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C.UTF-8', NO_COLOR: '1', ...kiloSandboxEnv(home, standIn.origin) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

/** The session id of `kilo run --format json`: every event line names it. */
function sessionIdOf(stdout: string): string | null {
  for (const line of stdout.split('\n')) {
    try {
      const event = JSON.parse(line) as { sessionID?: unknown };
      if (typeof event.sessionID === 'string') return event.sessionID;
    } catch {
      // not an event line
    }
  }
  return null;
}

async function kilo(label: string, cwd: string, args: string[]): Promise<string | null> {
  const argv = ['run', '--format', 'json', ...args];
  // PWD as a shell sets it: Kilo (Bun, as opencode) records PWD as the session's directory.
  const result = await runProcess(bin!, argv, { cwd, env: { ...env, PWD: cwd }, timeoutMs: 240_000 });
  const sessionId = sessionIdOf(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const notes = join(projects, 'k-notes');
  const api = join(projects, 'k-api-server');
  const cafe = join(projects, 'k-café ünïcode');
  for (const dir of [notes, api, cafe]) await mkdir(dir, { recursive: true });

  await kilo('notes t1', notes, ['[k] Summarise the notes folder in one line.']);
  const main = await kilo('main t1', api, ['[k] What does the api server do?']);
  await kilo('main t2 (tool)', api, ['-s', main!, `[k] ${TOOL_KEYWORD}: show me what the tool prints.`]);
  await kilo('main t3', api, ['-s', main!, '[k] Add a health check endpoint.']);
  await kilo('main t4', api, ['-s', main!, '[k] Now document the endpoint.']);
  await kilo('fork', api, ['-s', main!, '--fork', '[k] In the fork: write a test for the health check instead.']);
  const unicode = await kilo('unicode t1', cafe, ['[k] Ça marche? Grüße aus dem Café ☕']);
  await kilo('unicode t2', cafe, ['-s', unicode!, '[k] Und noch eine Frage: naïve résumé?']);
} finally {
  await standIn.close();
  await writeFile(join(home, 'runs-kilo.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
