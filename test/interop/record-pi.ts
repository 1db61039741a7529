/**
 * Records pi sessions written by the real CLI against the loopback model stand-in (test/fixtures/pi-0.74.2): one
 * turn; four turns with a tool call (the later turns through `--session ID`, a resume); a session named with pi's
 * own `set_session_name` and one compacted with its `compact` (both through `--mode rpc`, pi's headless protocol);
 * a tree: a session taken back to its second prompt by pi's `navigateTree` (what `/tree` runs, here from a
 * one-command extension), which writes a `branch_summary`, then given another second prompt; pi's own `--fork`;
 * and a session in a folder with a non-ASCII name.
 *
 *   npx esbuild --bundle --platform=node --format=esm --packages=external test/interop/record-pi.ts --outfile=.cache/record-pi.mjs
 *   node .cache/record-pi.mjs <pi bin> <home>
 *
 * The home (the fixtures used /home/dev) gets `.pi/agent` (what pi wrote, with models.json and settings.json), the
 * project folders under `src/` and `runs-pi.json` (each run's argv and reported id). HOME is that folder from the
 * first call: pi creates `~/.pi/agent` even for `--help`.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeRun, runProcess } from './agents.js';
import { piAgentDir, piDriver } from './drivers.js';
import { startModelStandIn, TOOL_KEYWORD } from './model-stand-in.js';

const [bin, outArg] = process.argv.slice(2);
if (bin === undefined || outArg === undefined) {
  process.stderr.write('usage: record-pi <pi bin> <home>\n');
  process.exit(2);
}
const home = resolve(outArg);
const projects = join(home, 'src');
const standIn = await startModelStandIn();
const sandbox = { root: home, home, codexHome: join(home, '.codex'), claudeDir: join(home, '.claude'), copilotHome: join(home, '.copilot'), projects, sessionsConfig: join(home, 'sessions-config.json'), env: {} };
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...(await piDriver.prepare(sandbox, standIn.origin)) };
const runs: { label: string; argv: string[]; sessionId: string | null; code: number | null }[] = [];

async function run(label: string, cwd: string, argv: string[]): Promise<string | null> {
  const result = await runProcess(bin!, argv, { cwd, env, timeoutMs: 90_000 });
  const sessionId = piDriver.reportedSessionId(result.stdout);
  runs.push({ label, argv, sessionId, code: result.code });
  if (result.code !== 0) process.stderr.write(`${describeRun(label, result)}\n`);
  process.stderr.write(`${label}: ${sessionId} (exit ${result.code}, ${result.ms} ms)\n`);
  return sessionId;
}

/** `pi --mode rpc --session ID`: each command sent once the previous one's response came, then stdin closed. */
async function rpc(label: string, cwd: string, id: string, commands: readonly Record<string, unknown>[]): Promise<void> {
  const argv = ['--mode', 'rpc', '--session', id];
  const child = spawn(bin!, argv, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let buffered = '';
  const waiting = new Map<string, (response: { success?: boolean; error?: string }) => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      try {
        const event = JSON.parse(line) as { type?: string; id?: string; success?: boolean; error?: string };
        if (event.type === 'response' && event.id !== undefined) waiting.get(event.id)?.(event);
      } catch {
        // not a record
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  for (const [index, command] of commands.entries()) {
    const key = `${label}-${index}`;
    const response = new Promise<{ success?: boolean; error?: string }>((done) => waiting.set(key, done));
    child.stdin.write(`${JSON.stringify({ ...command, id: key })}\n`);
    const answer = await response;
    process.stderr.write(`${label} ${String(command.type)}: ${answer.success === true ? 'ok' : `failed: ${answer.error}`}\n`);
  }
  child.stdin.end();
  const code = await exited;
  runs.push({ label, argv: [...argv, ...commands.map((command) => JSON.stringify(command))], sessionId: id, code });
  if (code !== 0) process.stderr.write(`${label}: exit ${code}\n${stderr}\n`);
}

// `/tree` in a command: back to the user prompt holding the marker (its parent becomes the leaf, as when /tree
// picks a prompt), with a summary of the branch left behind (pi asks the model for it).
const treeExtension = `export default function (pi) {
  pi.registerCommand('tree-to', {
    description: 'navigate the session tree to the prompt holding the argument',
    handler: async (args, ctx) => {
      const target = ctx.sessionManager.getEntries().find((entry) => entry.type === 'message' && entry.message.role === 'user' && JSON.stringify(entry.message.content).includes(args.trim()));
      if (!target) throw new Error('no prompt holds ' + args);
      await ctx.navigateTree(target.id, { summarize: true });
    },
  });
}
`;

try {
  const api = join(projects, 'p-api-server');
  const notes = join(projects, 'p-notes');
  const tree = join(projects, 'p-tree');
  const accents = join(projects, 'p-café-日本');
  for (const dir of [api, notes, tree, accents]) await mkdir(dir, { recursive: true });
  const extension = join(home, 'tree-to.js');
  await writeFile(extension, treeExtension);

  await run('single t1', notes, piDriver.newSessionArgs('[p] Hello from pi, one turn only.'));

  const main = await run('main t1', api, piDriver.newSessionArgs('[p] What does the api server do?'));
  await run('main t2 (tool)', api, piDriver.resumeArgs(main!, `[p] ${TOOL_KEYWORD}: show me what the tool prints.`));
  await run('main t3', api, piDriver.resumeArgs(main!, '[p] Add a health check endpoint.'));
  await run('main t4', api, piDriver.resumeArgs(main!, '[p] Now write a test for it.'));

  const named = await run('named t1', api, piDriver.newSessionArgs('[p] Explain the routing table.'));
  await run('named t2', api, piDriver.resumeArgs(named!, '[p] Which routes are public?'));
  await rpc('named rename', api, named!, [{ type: 'set_session_name', name: 'pi routes review' }]);

  const compacted = await run('compacted t1', notes, piDriver.newSessionArgs('[p] Summarise the meeting notes.'));
  await run('compacted t2 (tool)', notes, piDriver.resumeArgs(compacted!, `[p] ${TOOL_KEYWORD}: list the notes.`));
  await run('compacted t3', notes, piDriver.resumeArgs(compacted!, '[p] Pick the three action items.'));
  // Keep only the newest few tokens out of the summary, so the compaction's firstKeptEntryId is past the first prompts.
  await mkdir(join(notes, '.pi'), { recursive: true });
  await writeFile(join(notes, '.pi', 'settings.json'), `${JSON.stringify({ compaction: { keepRecentTokens: 40 } })}\n`);
  await rpc('compacted compact', notes, compacted!, [{ type: 'compact' }]);
  await run('compacted t4', notes, piDriver.resumeArgs(compacted!, '[p] Draft the follow-up email.'));

  const branched = await run('tree t1', tree, piDriver.newSessionArgs('[p] tree-t1 Plan the migration.'));
  await run('tree t2', tree, piDriver.resumeArgs(branched!, '[p] tree-t2 Use a blue-green deploy.'));
  await run('tree t3', tree, piDriver.resumeArgs(branched!, '[p] tree-t3 Write the runbook.'));
  await run('tree back to t2, then t2b', tree, ['--mode', 'json', '-e', extension, '--session', branched!, '-p', '/tree-to tree-t2', '[p] tree-t2b Use a canary deploy instead.']);

  await run('pi --fork of main', api, piDriver.agentForkArgs!(main!, '[p] Take another direction: add metrics.'));

  const other = await run('accents t1', accents, piDriver.newSessionArgs('[p] Résumé of the café menu, 日本語 please.'));
  await run('accents t2', accents, piDriver.resumeArgs(other!, '[p] Merci, ça suffit.'));
} finally {
  await standIn.close();
  await writeFile(join(home, 'runs-pi.json'), `${JSON.stringify(runs, null, 2)}\n`);
  await writeFile(join(home, 'pi-requests.jsonl'), `${standIn.requests.map((request) => JSON.stringify({ seq: request.seq, path: request.path, reply: request.reply, body: request.body })).join('\n')}\n`);
  process.stderr.write(`agent dir: ${piAgentDir(sandbox)}\n`);
}
