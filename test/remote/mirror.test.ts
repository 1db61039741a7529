// What a mirror of a host copies, from each adapter's `mirror` spec: the rsync filter run by the real rsync (local
// paths stand for the host's), the files it brings, and the rows the mirror gives (the same as the home's own).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locations } from '../../src/catalog/locations.js';
import { scanCatalog } from '../../src/catalog/scan.js';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';
import { AGENTS } from '../../src/core/model.js';
import { PROBE_LINE } from '../../src/remote/host-source.js';
import { mirrorLocations, mirrorRow, mirrorTransfer, mirrorVariables, remoteHomes } from '../../src/remote/mirror-layout.js';
import { fillEveryAgentHome, NOT_SESSIONS, OPENCODE_IN_WAL } from './every-agent-home.js';

const exec = promisify(execFile);

describe('where a host keeps its sessions', () => {
  it('every agent\'s roots, from $HOME and the variables its adapter reads, as sessions on the host would', () => {
    const variables = mirrorVariables();
    expect(variables).toEqual(['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'COPILOT_HOME', 'GEMINI_CLI_HOME', 'QWEN_RUNTIME_DIR', 'QWEN_HOME', 'XDG_DATA_HOME', 'FACTORY_HOME_OVERRIDE', 'PI_CODING_AGENT_DIR']);
    // The probe prints each of them, unset as an empty line.
    for (const name of variables) expect(PROBE_LINE).toContain(`"\${${name}-}"`);
    const values: Record<string, string> = { CLAUDE_CONFIG_DIR: 'cfg/claude', GEMINI_CLI_HOME: '/srv/g', QWEN_HOME: '/srv/qwen', XDG_DATA_HOME: 'data', FACTORY_HOME_OVERRIDE: '/srv/f', PI_CODING_AGENT_DIR: '/srv/pi' };
    const homes = remoteHomes(['/home/me', ...variables.map((name) => values[name] ?? '')])!;
    expect(homes.home).toBe('/home/me');
    expect(homes.roots).toEqual({
      codex: ['/home/me/.codex'],
      claude: ['/home/me/cfg/claude'],
      claw: ['/home/me'],
      copilot: ['/home/me/.copilot'],
      gemini: ['/srv/g/.gemini'],
      qwen: ['/srv/qwen'],
      opencode: ['/home/me/data/opencode'],
      droid: ['/srv/f/.factory'],
      pi: ['/srv/pi'],
      kilo: ['/home/me/data/kilo'],
      auggie: ['/home/me/.augment'],
    });
    expect(remoteHomes(['relative'])).toBe(null);
    expect(remoteHomes([])).toBe(null);
  });

  it('every adapter says what of its files a mirror copies', () => {
    for (const adapter of ADAPTER_LIST) {
      expect(adapter.mirror.filter.length, adapter.agent).toBeGreaterThan(0);
      for (const rule of adapter.mirror.filter) expect(rule, adapter.agent).toMatch(/^[+-] \S/);
    }
  });

  it('rules are anchored at their root, a deeper root first; roots are followed through symlinks; the rest is left out', () => {
    const homes = remoteHomes(['/home/me', ...mirrorVariables().map(() => '')])!;
    const { sources, filter } = mirrorTransfer(homes);
    expect(sources).toEqual(['/home/me/.local/share/opencode/', '/home/me/.local/share/kilo/', '/home/me/.pi/agent/', '/home/me/.codex/', '/home/me/.claude/', '/home/me/.copilot/', '/home/me/.gemini/', '/home/me/.qwen/', '/home/me/.factory/', '/home/me/.augment/', '/home/me/']);
    expect(filter).toContain('--include=/home/me/.local/share/opencode/opencode.db-wal');
    expect(filter).toContain('--include=/home/me/.local/share/kilo/kilo.db-wal');
    expect(filter).toContain('--include=/home/me/.codex/sessions/***');
    expect(filter.indexOf('--include=/home/me/.qwen/projects/')).toBeLessThan(filter.indexOf('--exclude=/home/me/.*/'));
    expect(filter).toContain('--include=/home/me/.factory/sessions/-*/*.jsonl');
    expect(filter).toContain('--include=/home/me/.augment/sessions/*.json');
    expect(filter.at(-1)).toBe('--exclude=*');
    // A root's own wildcard characters are matched literally.
    const odd = mirrorTransfer({ home: '/h', roots: { ...homes.roots, claw: [], codex: ['/h/a*b [c]'] } });
    expect(odd.filter).toContain('--include=/h/a\\*b \\[c]/sessions/***');
    expect(odd.filter).toContain('--include=/h/a\\*b \\[c]/');
    expect(mirrorTransfer({ home: '/h', roots: { ...homes.roots, claw: [], codex: ['/h/back\\slash'] } }).filter).toContain('--include=/h/back\\slash/');
  });
});

const describeRsync = existsSync('/usr/bin/rsync') || process.env.SESSIONS_ALLOW_NO_SSH !== '1' ? describe : describe.skip;

describeRsync('a mirror of a home with sessions of every agent (real rsync)', () => {
  let dir: string;
  let home: string;
  let mirror: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sessions-mirror-'));
    home = join(dir, 'host', 'home', 'me');
    mirror = join(dir, 'mirror');
    await fillEveryAgentHome(home);
  }, 30_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function sync(): Promise<string> {
    const homes = remoteHomes([home, ...mirrorVariables().map(() => '')])!;
    const { sources, filter } = mirrorTransfer(homes);
    const { stdout } = await exec('rsync', ['-rt', '-m', '--relative', '--ignore-missing-args', '--itemize-changes', ...filter, '--', ...sources, `${mirror}/`]);
    return stdout;
  }

  it('copies the sessions of every agent and nothing else; the mirror lists what the home lists', async () => {
    await sync();
    const copied = (await walk(join(mirror, home))).map((path) => relative(join(mirror, home), path));
    for (const path of NOT_SESSIONS) expect(copied, path).not.toContain(path);
    const homes = remoteHomes([home, ...mirrorVariables().map(() => '')])!;
    const own: Locations = { roots: homes.roots, cwd: home, rootsFromCwds: false, within: home };
    const [original, mirrored] = await Promise.all([scanCatalog(own), scanCatalog(mirrorLocations(mirror, homes))]);
    const agents = new Set(mirrored.sessions.map((row) => row.agent));
    expect([...agents].sort()).toEqual([...AGENTS].sort());
    const strip = (rows: typeof original.sessions, prefix: string) =>
      rows.map((row) => ({ ...row, path: row.path.slice(prefix.length), paths: row.paths.map((path) => path.slice(prefix.length)), root: row.root.slice(prefix.length), size: 0, mtimeMs: 0 }));
    expect(strip(mirrored.sessions.map((row) => mirrorRow(row, 'h', mirror)), mirror)).toEqual(strip(original.sessions.map((row) => ({ ...row, host: 'h', mirror })), ''));
    expect(mirrored.sessions.length).toBeGreaterThanOrEqual(20);
    // opencode's newest change is only in the database's write-ahead log: the mirror has it.
    expect(mirrored.sessions.find((row) => row.id === OPENCODE_IN_WAL.id)?.title).toBe(OPENCODE_IN_WAL.title);
    // Every file a row is read from was copied; nothing that is not read was.
    const read = new Set(original.sessions.flatMap((row) => row.paths.map((path) => relative(home, path))));
    for (const path of read) expect(copied, path).toContain(path);
  });

  it('a second sync with nothing changed copies nothing', async () => {
    await sync();
    const again = await sync();
    expect(again.split('\n').filter((line) => /^[<>ch]f/.test(line))).toEqual([]);
  });
});

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else out.push(path);
  }
  return out.sort();
}
