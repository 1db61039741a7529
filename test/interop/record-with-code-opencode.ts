/**
 * Records an opencode session whose turns edit a file, written by the real opencode (1.18.33) against the loopback
 * model stand-in, for `fork --with-code`'s fixtures (test/fixtures/with-code/opencode): in a git repository whose
 * first commit holds `notes.txt`, turns 1, 2 and 3 each rewrite `notes.txt` (`version 1`..`version 3`) through
 * opencode's bash tool, turn 4 creates `added.txt`, and turn 5 only talks. opencode snapshots the working tree at
 * the start of every step into its own repository (`<data dir>/snapshot/<project id>/<worktree hash>`, a tree per
 * `step-start` part). Before each turn the files are copied to `saved/opencode/before-turn-N.<name>`.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-with-code-opencode.ts --outfile=.cache/record-with-code-opencode.mjs
 *   node .cache/record-with-code-opencode.mjs <opencode bin> <out dir>
 *
 * The out dir gets `home/.local/share/opencode` (the database and the snapshot repository), the repository under
 * `home/src/opencode-notes`, `saved/opencode/` and `runs.json`.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { startModelStandIn } from './model-stand-in.js';
import { opencodeSandboxEnv } from './opencode-config.js';
import { editPrompt, editScript, gitEnv, makeRepository } from './with-code.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-with-code-opencode <opencode bin> <out dir>\n');
  process.exit(2);
}
const out = resolve(outArg);
const home = join(out, 'home');
const standIn = await startModelStandIn({ script: editScript });
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C.UTF-8', NO_COLOR: '1', ...gitEnv(home), ...opencodeSandboxEnv(home, standIn.origin) };
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

async function saveBefore(repo: string, turn: number): Promise<void> {
  const saved = join(out, 'saved', 'opencode');
  await mkdir(saved, { recursive: true });
  for (const name of ['notes.txt', 'added.txt']) {
    if (existsSync(join(repo, name))) await copyFile(join(repo, name), join(saved, `before-turn-${turn}.${name}`));
  }
}

try {
  await mkdir(home, { recursive: true });
  await writeFile(join(home, '.gitconfig'), '');
  const repo = await makeRepository(join(home, 'src', 'opencode-notes'), env);
  let id: string | null = null;
  for (let turn = 1; turn <= 5; turn++) {
    await saveBefore(repo, turn);
    const argv = ['run', '--format', 'json', ...(id === null ? [] : ['-s', id]), editPrompt(repo, turn)];
    // PWD as a shell sets it: opencode (Bun) records PWD as the session's directory.
    const result = await runProcess(bin, argv, { cwd: repo, env: { ...env, PWD: repo }, timeoutMs: 180_000 });
    id = sessionIdOf(result.stdout) ?? id;
    runs.push({ label: `opencode t${turn}`, argv, sessionId: id, code: result.code });
    if (result.code !== 0) process.stderr.write(`${describeRun(`opencode t${turn}`, result)}\n`);
    process.stderr.write(`opencode t${turn}: ${id} (exit ${result.code}, ${result.ms} ms)\n`);
  }
  await saveBefore(repo, 6);
} finally {
  await standIn.close();
  await writeFile(join(out, 'runs.json'), `${JSON.stringify(runs, null, 2)}\n`);
}
