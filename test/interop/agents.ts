import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type InteropAgent = 'codex' | 'claude' | 'copilot' | 'gemini' | 'qwen' | 'pi' | 'droid';
/**
 * The agents with a pinned release: opencode's, Kilo Code's and Auggie's round trips are suites of their own
 * (test/interop/opencode.test.ts, kilo.test.ts, auggie.test.ts), not a driver's.
 */
export type PinnedAgent = InteropAgent | 'opencode' | 'kilo' | 'auggie';

/** One agent release the interop suite runs against (a test file per target). */
export interface InteropTarget {
  /** The test file's key: `codex`, `claude` (the newest pinned Claude Code), `claude-2.1.197`. */
  readonly key: string;
  readonly agent: PinnedAgent;
  readonly packageName: string;
  readonly version: string;
  readonly bin: string;
  /** The binary inside the install prefix when the package links none into `node_modules/.bin` (a platform package). */
  readonly binPath?: string;
}

const PACKAGES: Readonly<Record<PinnedAgent, { readonly packageName: string; readonly bin: string; readonly binPath?: string }>> = {
  codex: { packageName: '@openai/codex', bin: 'codex' },
  claude: { packageName: '@anthropic-ai/claude-code', bin: 'claude' },
  copilot: { packageName: '@github/copilot', bin: 'copilot' },
  gemini: { packageName: '@google/gemini-cli', bin: 'gemini' },
  qwen: { packageName: '@qwen-code/qwen-code', bin: 'qwen' },
  opencode: { packageName: 'opencode-ai', bin: 'opencode' },
  pi: { packageName: '@earendil-works/pi-coding-agent', bin: 'pi' },
  // `@kilocode/cli` fails in its postinstall: the platform package itself, which declares no bin.
  kilo: { packageName: '@kilocode/cli-linux-x64', bin: 'kilo', binPath: join('node_modules', '@kilocode', 'cli-linux-x64', 'bin', 'kilo') },
  // The `@factory/cli` shim's pinned binary is not published: the platform package itself, which declares no bin.
  droid: { packageName: '@factory/cli-linux-x64', bin: 'droid', binPath: join('node_modules', '@factory', 'cli-linux-x64', 'bin', 'droid') },
  auggie: { packageName: '@augmentcode/auggie', bin: 'auggie' },
};

function target(key: string, agent: PinnedAgent, version: string): InteropTarget {
  return { key, agent, version, ...PACKAGES[agent] };
}

/** The agent releases the interop tests pin; docs/compatibility.md names the same versions. */
export const PINNED_TARGETS: readonly InteropTarget[] = [
  target('codex', 'codex', '0.169.0'),
  // Only for fork-with-code.test.ts: the last releases that record ghost commits (0.169.0's `undo` feature is removed).
  target('codex-0.58.0', 'codex', '0.58.0'),
  target('claude', 'claude', '2.1.330'),
  target('claude-2.1.197', 'claude', '2.1.197'),
  target('copilot', 'copilot', '1.0.102'),
  target('gemini', 'gemini', '0.61.0'),
  // Declares node >=22; runs on the Node 20 CI uses (npm warns EBADENGINE and installs it).
  target('qwen', 'qwen', '0.24.4'),
  // Its npm package installs a prebuilt binary for the platform (opencode-linux-x64).
  target('opencode', 'opencode', '1.18.33'),
  // The last release for Node 20: 0.87 and later (1.x) declare node >=22.19.
  target('pi', 'pi', '0.74.2'),
  // Kilo Code CLI, an opencode fork: one prebuilt binary for linux-x64 (prints the bare version).
  target('kilo', 'kilo', '7.7.9'),
  // Factory Droid: a single prebuilt binary for linux-x64 (prints the bare version).
  target('droid', 'droid', '0.225.2'),
  // Auggie (Augment Code): one bundled script, talking only to Augment's backend (the stand-in speaks it).
  target('auggie', 'auggie', '0.36.0'),
];

/**
 * The targets of this run: the pins, or with SESSIONS_INTEROP_VERSIONS="codex=X,claude=Y" (`npm run
 * interop:latest`) those releases instead; targets it does not name are left out of such a run.
 */
export function interopTargets(env: NodeJS.ProcessEnv = process.env): InteropTarget[] {
  const override = env.SESSIONS_INTEROP_VERSIONS?.trim();
  if (!override) return [...PINNED_TARGETS];
  const targets: InteropTarget[] = [];
  for (const pair of override.split(',')) {
    const [key, version] = pair.split('=').map((part) => part.trim());
    const pinned = PINNED_TARGETS.find((candidate) => candidate.key === key);
    if (pinned === undefined || !version || !/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error(`SESSIONS_INTEROP_VERSIONS: cannot read "${pair}"`);
    targets.push({ ...pinned, version });
  }
  return targets;
}

/** What `<bin> --version` prints for a release. */
function versionPattern(pin: InteropTarget): RegExp {
  const version = pin.version.replace(/[.+]/g, (char) => `\\${char}`);
  if (pin.agent === 'codex') return new RegExp(`codex-cli ${version}\\b`);
  if (pin.agent === 'claude') return new RegExp(`^${version} \\(Claude Code\\)`);
  if (pin.agent === 'copilot') return new RegExp(`^GitHub Copilot CLI ${version}\\.`);
  if (pin.agent === 'auggie') return new RegExp(`^${version} \\(commit [0-9a-f]+\\)$`);
  // Gemini CLI, Qwen Code and pi print the bare version.
  return new RegExp(`^${version}$`);
}

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Git-ignored (`.cache/` in .gitignore); one npm prefix per pinned package, reused across runs. */
export const AGENT_CACHE_DIR = process.env.SESSIONS_AGENT_CACHE ? resolve(process.env.SESSIONS_AGENT_CACHE) : join(PROJECT_ROOT, '.cache', 'agents');

const INSTALL_TIMEOUT_MS = 10 * 60_000;
const VERSION_TIMEOUT_MS = 30_000;

/** What the global setup hands each test file about one agent. */
export type AgentAvailability =
  | { readonly available: true; readonly bin: string; readonly version: string; readonly installedNow: boolean; readonly seconds: number }
  | { readonly available: false; readonly reason: string };

export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly ms: number;
}

/**
 * Run a program with an argv array (never a shell), in its own process group, and kill the whole group
 * (the agents spawn shells and helpers) when it outlives `timeoutMs`.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs: number; readonly input?: string },
): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    if (options.input !== undefined) child.stdin?.end(options.input);
    let timedOut = false;
    const killGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 2000).unref();
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Leave no helper behind (a tool call's shell, a stuck grandchild) even after a clean exit.
      killGroup('SIGKILL');
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
        ms: Date.now() - started,
      });
    });
  });
}

/** A one-paragraph account of a finished process, for assertion messages. */
export function describeRun(label: string, result: ProcessResult): string {
  const how = result.timedOut ? `timed out after ${result.ms} ms (killed)` : `exited with ${result.code ?? result.signal}`;
  const tail = (text: string): string => (text.length > 4000 ? `…${text.slice(-4000)}` : text);
  return `${label} ${how}\n--- stdout ---\n${tail(result.stdout)}\n--- stderr ---\n${tail(result.stderr)}`;
}

export function agentPrefix(pin: InteropTarget): string {
  return join(AGENT_CACHE_DIR, `${pin.bin}-${pin.version}`);
}

export function agentBinPath(pin: InteropTarget): string {
  return binUnder(agentPrefix(pin), pin);
}

function binUnder(prefix: string, pin: InteropTarget): string {
  return join(prefix, pin.binPath ?? join('node_modules', '.bin', pin.bin));
}

/** `<bin> --version` of a cached install, or an error message. */
async function checkVersion(pin: InteropTarget, bin: string): Promise<{ ok: true; version: string } | { ok: false; message: string }> {
  if (!existsSync(bin)) return { ok: false, message: `${bin} does not exist` };
  try {
    // A scratch HOME: Gemini CLI writes `~/.gemini/projects.json` even for --version; no agent home of the machine's is touched.
    const scratch = join(AGENT_CACHE_DIR, '.version-home');
    await mkdir(scratch, { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: scratch, NO_COLOR: '1' };
    for (const key of ['FACTORY_HOME_OVERRIDE', 'GEMINI_CLI_HOME', 'QWEN_HOME', 'QWEN_RUNTIME_DIR', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR']) delete env[key];
    const result = await runProcess(bin, ['--version'], { cwd: AGENT_CACHE_DIR, env, timeoutMs: VERSION_TIMEOUT_MS });
    // pi prints its version on stderr.
    const version = result.stdout.trim() || (pin.agent === 'pi' ? result.stderr.trim() : '');
    if (result.code === 0 && versionPattern(pin).test(version)) return { ok: true, version };
    return { ok: false, message: describeRun(`${bin} --version`, result) };
  } catch (error) {
    return { ok: false, message: `${bin} --version: ${(error as Error).message}` };
  }
}

/**
 * Make the pinned agent available under the cache folder: reuse a working cached install, else `npm install`
 * it into a fresh prefix (never the project's node_modules) and move it into place only once it works.
 */
export async function ensureAgent(pin: InteropTarget, log: (line: string) => void): Promise<AgentAvailability> {
  const started = Date.now();
  const prefix = agentPrefix(pin);
  const bin = agentBinPath(pin);
  const cached = await checkVersion(pin, bin);
  if (cached.ok) return { available: true, bin, version: cached.version, installedNow: false, seconds: (Date.now() - started) / 1000 };

  await mkdir(AGENT_CACHE_DIR, { recursive: true });
  const staging = `${prefix}.installing-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  // Its own package.json keeps npm from walking up to the project's and touching its dependencies.
  await writeFile(join(staging, 'package.json'), `${JSON.stringify({ name: `interop-${pin.bin}`, private: true }, null, 2)}\n`);
  const spec = `${pin.packageName}@${pin.version}`;
  log(`installing ${spec} into ${prefix} …`);
  let install: ProcessResult;
  try {
    install = await runProcess(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--loglevel=error', '--prefix', staging, spec],
      { cwd: staging, env: { ...process.env, npm_config_update_notifier: 'false' }, timeoutMs: INSTALL_TIMEOUT_MS },
    );
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    return { available: false, reason: `npm install ${spec} could not start: ${(error as Error).message}` };
  }
  if (install.code !== 0) {
    await rm(staging, { recursive: true, force: true });
    return { available: false, reason: describeRun(`npm install ${spec}`, install) };
  }
  const staged = await checkVersion(pin, binUnder(staging, pin));
  if (!staged.ok) {
    await rm(staging, { recursive: true, force: true });
    return { available: false, reason: `npm installed ${spec} but its binary does not run: ${staged.message}` };
  }
  await rm(prefix, { recursive: true, force: true });
  await rename(staging, prefix);
  // The wrappers resolve their native binary relative to themselves; check again from the final place.
  const final = await checkVersion(pin, bin);
  if (!final.ok) return { available: false, reason: `${spec} stopped working after moving into ${prefix}: ${final.message}` };
  return { available: true, bin, version: final.version, installedNow: true, seconds: (Date.now() - started) / 1000 };
}
