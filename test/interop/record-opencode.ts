/**
 * Records opencode sessions written by a real opencode release against the loopback model stand-in (a provider
 * whose `options.baseURL` is the stand-in, OpenAI Chat Completions), for fixtures (test/fixtures/opencode-1.18.33):
 * a multi-turn session with a tool call resumed twice (`-s`), opencode's own `--fork` of it with one more turn, and
 * a session in a folder with a non-ASCII name. opencode keeps them in one SQLite database
 * (`$XDG_DATA_HOME/opencode/opencode.db`); the recording also keeps `opencode export` of each session.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-opencode.ts --outfile=.cache/record-opencode.mjs
 *   node .cache/record-opencode.mjs <opencode bin> <out dir>
 *
 * The out dir gets `home/.local/share/opencode` (what the agent wrote), `export/<id>.json` and `runs.json`.
 * Nothing of the machine leaks in: HOME and the XDG folders are inside the out dir. opencode installs the provider
 * package it is configured with (@ai-sdk/openai-compatible) from the npm registry on first use.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';
import { opencodeSandboxEnv } from './opencode-config.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-opencode <opencode bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
const projects = join(home, 'src');
await mkdir(join(out, 'export'), { recursive: true });
const standIn = await startModelStandIn();

const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  ...opencodeSandboxEnv(home, standIn.origin),
};
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

/** The session id of `opencode run --format json`: every event line names it. */
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

async function opencode(label: string, cwd: string, args: string[]): Promise<string | null> {
  const argv = ['run', '--format', 'json', ...args];
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 180_000 });
  const sessionId = sessionIdOf(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

try {
  const api = join(projects, 'o-api-server');
  const cafe = join(projects, 'o-café ünïcode');
  for (const dir of [api, cafe]) await mkdir(dir, { recursive: true });

  const main = await opencode('main t1', api, ['[o] What does the api server do?']);
  await opencode('main t2 (tool)', api, ['-s', main!, `[o] ${TOOL_KEYWORD}: show me what the tool prints.`]);
  await opencode('main t3', api, ['-s', main!, '[o] Add a health check endpoint.']);
  const fork = await opencode('fork', api, ['-s', main!, '--fork', '[o] In the fork: write a test for the health check instead.']);
  const unicode = await opencode('unicode t1', cafe, ['[o] Ça marche? Grüße aus dem Café ☕']);
  await opencode('unicode t2', cafe, ['-s', unicode!, '[o] Und noch eine Frage: naïve résumé?']);

  for (const id of [main, fork, unicode]) {
    if (id === null) continue;
    const exported = await runProcess(bin!, ['export', id], { cwd: api, env, timeoutMs: 60_000 });
    if (exported.code !== 0) process.stderr.write(`${describeRun(`export ${id}`, exported)}\n`);
    await writeFile(join(out, 'export', `${id}.json`), exported.stdout);
  }
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
