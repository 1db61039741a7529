// Every `Examples:` line of every command's --help runs on the bundled sample home (a copy of examples/home) and
// exits 0 with output: an example that names an ambiguous prefix or a session the sample lacks fails here.
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');

/** The `sessions …` lines under `Examples:` in a help text (a description after two spaces and a pipe or redirect dropped). */
function exampleLines(help: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => line.trim() === 'Examples:');
  if (start === -1) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const command = line.trim().split(/ {2,}/)[0]!;
    if (command.startsWith('sessions')) out.push(command);
  }
  return out;
}

/** A command line's words as sh would split them (quotes, a leading `~`), up to a pipe or a redirect. */
function words(line: string, home: string): string[] {
  const out: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const bare = match[3];
    if (bare === '|' || bare === '>') break;
    out.push(match[1] ?? match[2] ?? (bare!.startsWith('~/') ? join(home, bare!.slice(2)) : bare!));
  }
  return out;
}

/** A help text from the built CLI, as a user sees it (the addHelpText parts included). */
const help = (...args: string[]): string => execFileSync(process.execPath, [BIN, ...args, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
const ROOT_HELP = help();
/** The commands the root help lists (`help` itself has no examples of its own). */
const COMMANDS = ROOT_HELP.slice(ROOT_HELP.indexOf('Commands:')).split('\n\n')[0]!;
const NAMES = [...COMMANDS.matchAll(/^ {2}([a-z]+) /gm)].map((match) => match[1]!).filter((name) => name !== 'help');
const HELPS: ReadonlyArray<readonly [string, string]> = [['sessions', ROOT_HELP], ...NAMES.map((name) => [`sessions ${name}`, help(name)] as const)];
const EXAMPLES = HELPS.flatMap(([label, help]) => exampleLines(help).map((line) => ({ label, line })));

let temp: string;
let home: string;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-help-examples-'));
  home = join(temp, 'home');
  await cp(join(ROOT, 'examples', 'home'), home, { recursive: true });
  // ssh without the machine's own config: `--host devbox` is an unreachable host, warned about, never a real one.
  await mkdir(join(temp, 'config', 'sessions'), { recursive: true });
  await writeFile(join(temp, 'config', 'sessions', 'config.json'), JSON.stringify({ ssh: ['ssh', '-F', '/dev/null'], connectTimeout: 5 }));
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      // The sample's claw workspace is "this directory", so `list` and `resume --last` have sessions to show.
      { cwd: join(home, 'src', 'claw-code', 'rust'), maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(temp, 'cache'), XDG_CONFIG_HOME: join(temp, 'config') } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(); // `list --watch --json` runs until its stdin ends
  });
}

describe('the --help examples', () => {
  it('are found in every command', () => {
    expect(NAMES).toEqual(expect.arrayContaining(['list', 'grep', 'show', 'fork', 'resume']));
    expect(new Set(NAMES).size).toBe(NAMES.length);
    for (const name of ['sessions', ...NAMES.map((name) => `sessions ${name}`)]) expect(EXAMPLES.some((example) => example.label === name), name).toBe(true);
  });

  for (const { label, line } of EXAMPLES) {
    const tui = line.trim() === 'sessions' || line.startsWith('sessions -');
    // The browser needs a terminal: test/e2e drives it in tmux.
    (tui ? it.skip : it)(`${label}: ${line}${tui ? ' (the TUI: test/e2e runs it in tmux)' : ''}`, async () => {
      const args = words(line, home).slice(1);
      // Resume would start the agent: its --dry-run prints the same plan.
      if (args[0] === 'resume' && !args.includes('--dry-run')) args.splice(1, 0, '--dry-run');
      // The sample home, through the location options the command takes (restore reads only a home's trash).
      const options = HELPS.find(([name]) => name === `sessions ${args[0]}`)?.[1] ?? ROOT_HELP;
      if (args[0] !== 'help') args.splice(1, 0, '--home', home, ...(options.includes('--claw-dir') ? ['--claw-dir', join(home, 'src')] : []));
      const result = await run(args);
      expect(result.stderr).not.toMatch(/matches \d+ sessions|no session/);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).not.toBe('');
    });
  }
});
