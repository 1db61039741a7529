// `sessions`' first module (bin/sessions.js runs it). The commands that never open the browser or the MCP server run
// from a CommonJS bundle of the CLI (dist/bundle/cli-commands.cjs) compiled with V8's code cache, kept in the user's
// cache folder: compiling the CLI's ~470 KB of code was 34-50 ms of each command's start, and Node 20 caches no ES
// module's code. The browser and `mcp` load the ES module bundle (cli.js and its chunks; yoga's top-level await in
// the TUI's chunk cannot be CommonJS), as does everything when the CommonJS bundle is missing (tsc's dist/).
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { constants, Script } from 'node:vm';
import { readRegularBytesSync } from './core/io/regular.js';
import { SESSIONS_VERSION } from './version.js';

type Cli = typeof import('./cli.js');

/** The words (after `sessions`) of the commands that never load the TUI's or the MCP server's code. */
export const COMMANDS_WITHOUT_TUI: ReadonlySet<string> = new Set(['list', 'grep', 'show', 'fork', 'resume', 'hosts', 'rename', 'rm', 'restore']);

/** The CommonJS bundle is ~0.5 MB and a code cache about as big: anything far larger is not ours. */
const MAX_BYTES = 64 << 20;

/** What a load found: a code cache V8 used, one it rejected, or none (missing, unreadable, made for something else). */
export type CodeCacheUse = 'used' | 'rejected' | 'none';

/** Run `sessions` with `argv` (process.argv: node, the script, then the user's words). */
export async function start(argv: readonly string[], env: Record<string, string | undefined> = process.env): Promise<void> {
  giveBackHeld(env);
  const word = argv[2];
  if (word !== undefined && COMMANDS_WITHOUT_TUI.has(word)) {
    // --no-cache: the user asked for nothing to be read from or written to the cache folder.
    const cacheFile = argv.includes('--no-cache') ? null : codeCachePath(env, homedir(), word);
    const loaded = loadCommonJs(fileURLToPath(new URL('./cli-commands.cjs', import.meta.url)), cacheFile);
    if (loaded !== null) return (loaded.exports as Cli).main(argv);
  }
  const cli = (await import(new URL('./cli.js', import.meta.url).href)) as Cli;
  return cli.main(argv);
}

/** The variable bin/sessions.js holds back from sessions' own Node, under this name. */
export const HELD_CA_CERTS = 'SESSIONS_HELD_NODE_EXTRA_CA_CERTS';

/**
 * NODE_EXTRA_CA_CERTS as the user set it, back in `env` (the one every process sessions starts inherits: an agent, ssh,
 * an editor), once bin/sessions.js let this process's Node start without it. Node reads it only as it starts.
 */
export function giveBackHeld(env: Record<string, string | undefined>): void {
  const held = env[HELD_CA_CERTS];
  if (held === undefined) return;
  delete env[HELD_CA_CERTS];
  env.NODE_EXTRA_CA_CERTS ??= held;
}

/**
 * Where the code cache of `sessions <word>` lives: beside the catalog cache (defaultCachePath's folder). One file per
 * command, each made by that command's first run: it holds the functions that run compiled too (a cache made by
 * `list` left `show` ~17 ms slower than its own).
 */
export function codeCachePath(env: Readonly<Record<string, string | undefined>>, homeDir: string, word: string): string {
  return join(env.XDG_CACHE_HOME || join(homeDir, '.cache'), 'sessions', 'code-cache', `${word}.bin`);
}

/**
 * Load and run the CommonJS module at `path` (its exports returned) with V8's code cache from `cacheFile`: a cache
 * made for other bytes, another version of `sessions` or another V8 (the key), or one V8 rejects, is not used, and a
 * new one is written as the process exits (then it holds the code compiled while the command ran). Null when `path`
 * cannot be read.
 */
export function loadCommonJs(path: string, cacheFile: string | null): { readonly exports: unknown; readonly cache: CodeCacheUse } | null {
  let source: Buffer;
  try {
    source = readRegularBytesSync(path, MAX_BYTES);
  } catch {
    return null;
  }
  // The key is the bundle's bytes themselves (compared at memcmp's speed), not a digest of them: a digest would load
  // node:crypto (~5 ms of each start) for every command, most of which never use it.
  const key = { head: Buffer.from(`${SESSIONS_VERSION}\0${process.versions.v8}\0`), source };
  const cachedData = cacheFile === null ? undefined : readCodeCache(cacheFile, key);
  // V8 trusts a code cache's bytes past its header: a damaged one (the disk, another program) aborted every start of
  // the command that reads it ("Check failed" in the deserializer) until it was deleted. With this flag V8 writes a
  // checksum of the data and rejects a cache whose bytes do not match it (one made without it is rejected once, then
  // written again); ~1 ms for a 1 MB cache.
  if (cacheFile !== null) setFlagsFromString('--verify-snapshot-checksum');
  const script = new Script(Module.wrap(source.toString('utf8')), {
    filename: path,
    cachedData,
    // The bundle holds no import() of its own (esbuild made them require()); a dependency's would load as Node's would.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cache: CodeCacheUse = cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used';
  if (cache !== 'used' && cacheFile !== null) process.once('exit', () => writeCodeCache(cacheFile, key, script));
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(path), module, path, dirname(path));
  return { exports: module.exports, cache };
}

/** What a cache file is made for (it starts with these bytes): the version of `sessions` and V8's, then the bundle. */
interface CodeCacheKey {
  readonly head: Buffer;
  readonly source: Buffer;
}

/** The V8 data of `file` when it was made for `key`; undefined when it is missing, unreadable or for something else. */
function readCodeCache(file: string, key: CodeCacheKey): Buffer | undefined {
  try {
    const bytes = readRegularBytesSync(file, 2 * MAX_BYTES);
    const end = key.head.length + key.source.length;
    const made = bytes.length > end && key.head.equals(bytes.subarray(0, key.head.length)) && key.source.equals(bytes.subarray(key.head.length, end));
    return made ? bytes.subarray(end) : undefined;
  } catch {
    return undefined;
  }
}

/** Write `script`'s code cache to `file` (temp + rename, mode 0600); nothing when its folder cannot be made or written. */
function writeCodeCache(file: string, key: CodeCacheKey, script: Script): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // 'wx': never through a file (or symlink) already at the temp name.
    writeFileSync(temp, Buffer.concat([key.head, key.source, script.createCachedData()]), { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
  }
}
