// The app layer's use cases, each given where the session lives: this machine, a host whose own `sessions` does the
// work, or a host mirrored here. A "host" is a folder of this machine reached through a stand-in for ssh that runs the
// remote line with `sh` (its HOME the host's, the checkout's `sessions` first on its PATH): the remote lines, their
// quoting and what they write are real; only the network is not.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkSession } from '../../src/app/fork.js';
import type * as AppGrep from '../../src/app/grep.js';
import type { Here, Place } from '../../src/app/place.js';
import { readTranscript } from '../../src/app/read.js';
import { planCommand, planResume } from '../../src/app/resume.js';
import { scanCatalog, type CatalogSession, type ScanContext } from '../../src/catalog/scan.js';
import { noRoots, type Locations } from '../../src/catalog/locations.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import { type Mirror } from '../../src/remote/host-source.js';
import { mirrorLocations, mirrorRow, mirrorVariables, remoteHomes } from '../../src/remote/mirror-layout.js';
import { HostActionError } from '../../src/remote/host-sessions.js';
import type { SshSettings } from '../../src/remote/ssh.js';
import { sha256File } from '../helpers/files.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
const FIXTURE_HOME = join(ROOT, 'test', 'fixtures', 'home');
/** Seven user turns. */
const CODEX_ID = '01a200ed-60a4-7f10-a53c-15a9ecf122f3';
/** Four user turns. */
const CLAUDE_ID = '5a1999c3-3fef-4a8c-8969-b584a1892bda';

let dir: string;
/** The host's home (a host path is a path of this machine here). */
let hostHome: string;
let settings: SshSettings;

/** The files under a folder, recursively, relative to it. */
async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(root.length + 1));
  return out.sort();
}

function hereFor(locations: Locations, context: ScanContext): Here {
  return { locations, context: () => Promise.resolve(context), defaultHomes: {}, templates: { resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES } };
}

/** For a session on a host: this machine's side is never read. */
const AWAY: Here = {
  locations: { roots: noRoots(), cwd: '/' },
  context: () => Promise.reject(new Error('this machine is not read for a host session')),
  defaultHomes: {},
  templates: { resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES },
};

/** This machine's fixture home, scanned. */
async function localHome(): Promise<{ home: string; locations: Locations; rows: readonly CatalogSession[]; here: Here }> {
  const home = await mkdtemp(join(dir, 'local-'));
  await cp(FIXTURE_HOME, home, { recursive: true, preserveTimestamps: true });
  const locations: Locations = { roots: { ...mirrorLocations('/', remoteHomes([home, ...mirrorVariables().map(() => '')])!).roots }, cwd: home, rootsFromCwds: false };
  const scanned = await scanCatalog(locations);
  return { home, locations, rows: scanned.sessions, here: hereFor(locations, scanned.context) };
}

/** A mirror of the host's home, synced (a copy, as rsync would leave it) and indexed. */
async function mirrorOfHost(): Promise<{ place: Place & { kind: 'mirror' }; rows: CatalogSession[]; mirror: Mirror }> {
  const mirrorDir = await mkdtemp(join(dir, 'mirror-'));
  await cp(hostHome, join(mirrorDir, hostHome), { recursive: true, preserveTimestamps: true });
  const remote = remoteHomes([hostHome, ...mirrorVariables().map(() => '')])!;
  const locations = mirrorLocations(mirrorDir, remote);
  const scanned = await scanCatalog(locations);
  const mirror: Mirror = { dir: mirrorDir, remote, locations, context: scanned.context, workspaces: {}, indexed: null };
  return { place: { kind: 'mirror', host: 'box', settings, mirror }, rows: scanned.sessions.map((row) => mirrorRow(row, 'box', mirrorDir)), mirror };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-app-'));
  hostHome = join(dir, 'host', 'home', 'me');
  await mkdir(hostHome, { recursive: true });
  await cp(FIXTURE_HOME, hostHome, { recursive: true, preserveTimestamps: true });
  // The host's `sessions`: this checkout's, with the host's own cache and config.
  const hostBin = join(dir, 'host', 'bin');
  await mkdir(hostBin, { recursive: true });
  await writeFile(join(hostBin, 'sessions'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  await chmod(join(hostBin, 'sessions'), 0o755);
  // ssh's stand-in: options up to `--`, the destination, then the remote line, run by the host's shell in its home.
  const ssh = join(dir, 'ssh');
  await writeFile(
    ssh,
    `#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift 2\ncd ${JSON.stringify(hostHome)} || exit 255\nexec env HOME=${JSON.stringify(hostHome)} XDG_CACHE_HOME=${JSON.stringify(join(dir, 'host', 'cache'))} XDG_CONFIG_HOME=${JSON.stringify(join(dir, 'host', 'config'))} PATH=${JSON.stringify(`${hostBin}:${process.env.PATH ?? ''}`)} sh -c "$1"\n`,
  );
  await chmod(ssh, 0o755);
  settings = { ssh: [ssh], connectTimeout: 5 };
  // The stand-in works: the host's `sessions` answers through it.
  const { stdout } = await exec(ssh, ['-T', '--', 'box', 'sessions list --all --json']);
  expect((JSON.parse(stdout) as { id: string }[]).map((row) => row.id)).toContain(CODEX_ID);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('fork, where the session lives', () => {
  it('this machine: the adapter forks beside the original; the row is read back linked to its parent; resumed here', async () => {
    const { rows, here, home } = await localHome();
    const session = rows.find((row) => row.id === CODEX_ID)!;
    const before = await sha256File(session.path);
    const forked = await forkSession(session, { kind: 'local' }, here, { atTurn: 3 });
    expect(forked.host).toBe(null);
    expect(forked.result).toMatchObject({ agent: 'codex', parentId: CODEX_ID, keptUserTurns: 2 });
    expect(forked.result.path.startsWith(join(home, '.codex', 'sessions'))).toBe(true);
    expect(forked.row).toMatchObject({ id: forked.result.id, path: forked.result.path, forkedFrom: CODEX_ID, userTurns: 2, cwd: session.cwd });
    expect(planCommand(forked.resume)).toEqual({ argv: ['codex', 'resume', forked.result.id], cwd: session.cwd, env: { CODEX_HOME: join(home, '.codex') } });
    expect(await sha256File(session.path)).toBe(before);
  });

  it('this machine, to another agent: a hand-off into that agent\'s home, its row read back, resumed in the session\'s cwd', async () => {
    const { rows, here, home } = await localHome();
    const session = rows.find((row) => row.id === CLAUDE_ID)!;
    const forked = await forkSession(session, { kind: 'local' }, here, { atTurn: 3, to: 'codex' });
    expect(forked.result).toMatchObject({ agent: 'codex', parentId: CLAUDE_ID, keptUserTurns: 2 });
    expect(forked.row).toMatchObject({ agent: 'codex', id: forked.result.id, root: join(home, '.codex'), userTurns: 2 });
    const command = planCommand(forked.resume);
    expect(command.argv).toEqual(['codex', 'resume', forked.result.id]);
    expect(command.cwd).toBe(session.cwd);
  });

  it('a host with sessions: its own `sessions fork` writes it there; the row and the resume are the host\'s', async () => {
    const before = await filesUnder(join(hostHome, '.codex'));
    const session = { ...(await localHome()).rows.find((row) => row.id === CODEX_ID)!, host: 'box' };
    const forked = await forkSession(session, { kind: 'host', host: 'box', settings }, AWAY, { atTurn: 3 });
    expect(forked.host).toBe('box');
    expect(forked.result).toMatchObject({ agent: 'codex', parentId: CODEX_ID, keptUserTurns: 2 });
    expect(forked.result.path.startsWith(join(hostHome, '.codex', 'sessions'))).toBe(true);
    const after = await filesUnder(join(hostHome, '.codex'));
    expect(after.filter((path) => !before.includes(path))).toEqual([forked.result.path.slice(join(hostHome, '.codex').length + 1)]);
    expect(forked.row).toMatchObject({ host: 'box', id: forked.result.id, path: forked.result.path, forkedFrom: CODEX_ID, userTurns: 2 });
    expect(forked.resume.kind).toBe('remote');
    const line = forked.resume.kind === 'remote' ? forked.resume.launch.remoteLine : '';
    expect(line).toContain(forked.result.id);
    expect(planCommand(forked.resume).argv.slice(0, 2)).toEqual([settings.ssh[0], '-t']);
    // The whole conversation: the host's own end (`--at end` there).
    const whole = await forkSession(session, { kind: 'host', host: 'box', settings }, AWAY, { atTurn: 'end' });
    expect(whole.result).toMatchObject({ agent: 'codex', parentId: CODEX_ID, keptUserTurns: 7 });
    // A turn the row does not have is refused before ssh.
    await expect(forkSession(session, { kind: 'host', host: 'box', settings }, AWAY, { atTurn: 9 })).rejects.toThrow('valid turns are 1..8');
  });

  it('a mirrored host: the adapter forks into the mirror, the file is placed on the host byte for byte; resumed there by the agent\'s command', async () => {
    const { place, rows, mirror } = await mirrorOfHost();
    const session = rows.find((row) => row.id === CODEX_ID)!;
    expect(session.path.startsWith(mirror.dir)).toBe(true);
    const forked = await forkSession(session, place, AWAY, { atTurn: 3 });
    expect(forked.host).toBe('box');
    // The result names the host's file; the row the mirror's copy (rows of a mirror are read here).
    expect(forked.result.path.startsWith(join(hostHome, '.codex', 'sessions'))).toBe(true);
    expect(forked.row.path).toBe(join(mirror.dir, forked.result.path));
    expect(await readFile(forked.result.path)).toEqual(await readFile(forked.row.path));
    expect(forked.resume.kind === 'remote' && forked.resume.launch.remoteLine).toContain(`codex resume ${forked.result.id}`);
    const whole = await forkSession(session, place, AWAY, { atTurn: 'end' });
    expect(whole.result.keptUserTurns).toBe(7);
    expect(await readFile(whole.result.path)).toEqual(await readFile(whole.row.path));
  });

  it('a mirrored host: a name that would go into a names file every session shares is refused, nothing written', async () => {
    const { place, rows, mirror } = await mirrorOfHost();
    const before = await filesUnder(hostHome);
    const mirrored = await filesUnder(mirror.dir);
    const codex = rows.find((row) => row.id === CODEX_ID)!;
    await expect(forkSession(codex, place, AWAY, { atTurn: 3, branchName: 'try' })).rejects.toThrow(HostActionError);
    await expect(forkSession(codex, place, AWAY, { atTurn: 3, branchName: 'try' })).rejects.toThrow(/session_index\.jsonl/);
    const claude = rows.find((row) => row.id === CLAUDE_ID)!;
    await expect(forkSession(claude, place, AWAY, { atTurn: 3, to: 'codex', branchName: 'try' })).rejects.toThrow(/session_index\.jsonl/);
    expect(await filesUnder(hostHome)).toEqual(before);
    expect(await filesUnder(mirror.dir)).toEqual(mirrored);
  });

  it('a mirrored host, to another agent: the hand-off is written into the mirror and placed on the host', async () => {
    const { place, rows, mirror } = await mirrorOfHost();
    const session = rows.find((row) => row.id === CLAUDE_ID)!;
    const forked = await forkSession(session, place, AWAY, { atTurn: 3, to: 'codex' });
    expect(forked.result.agent).toBe('codex');
    expect(forked.result.path.startsWith(join(hostHome, '.codex', 'sessions'))).toBe(true);
    expect(await readFile(forked.result.path)).toEqual(await readFile(join(mirror.dir, forked.result.path)));
    expect(forked.resume.kind === 'remote' && forked.resume.launch.remoteLine).toContain(`codex resume ${forked.result.id}`);
  });
});

describe('resume, read and grep, where the session lives', () => {
  it('plans a resume here (or in another directory), by the host\'s sessions, or by the agent\'s command on a mirrored host', async () => {
    const { rows, here } = await localHome();
    const session = rows.find((row) => row.id === CODEX_ID)!;
    expect(planCommand(planResume(session, { kind: 'local' }, here, { here: '/elsewhere' })).cwd).toBe('/elsewhere');
    const local = planResume(session, { kind: 'local' }, here, { prompt: 'go on', extraArgs: ['--model', 'o3'] });
    expect(planCommand(local).argv).toEqual(['codex', 'exec', '--model', 'o3', 'resume', CODEX_ID, 'go on']);
    const host = planResume({ ...session, host: 'box' }, { kind: 'host', host: 'box', settings }, here);
    expect(host.kind === 'remote' && host.launch.remoteLine).toBe(`sessions resume ${CODEX_ID}`);
    expect(() => planResume({ ...session, host: 'box' }, { kind: 'host', host: 'box', settings }, here, { here: '/x' })).toThrow(HostActionError);
    const { place, rows: mirrored } = await mirrorOfHost();
    const plan = planResume(mirrored.find((row) => row.id === CODEX_ID)!, place, here);
    // The host's paths: the agent's home on the host, not the mirror's copy of it.
    expect(plan.kind === 'remote' && plan.launch.remoteLine).toContain(`codex resume ${CODEX_ID}`);
    expect(plan.kind === 'remote' && plan.launch.remoteLine).not.toContain(place.mirror.dir);
  });

  it('reads a transcript here, from a mirror (naming the host\'s files), and from a host\'s own sessions: the same messages', async () => {
    const { rows, here } = await localHome();
    const session = rows.find((row) => row.id === CODEX_ID)!;
    const local = await readTranscript(session, { kind: 'local' }, here);
    const { place, rows: mirrored } = await mirrorOfHost();
    const fromMirror = await readTranscript(mirrored.find((row) => row.id === CODEX_ID)!, place, here);
    expect(fromMirror.path.startsWith(`${hostHome}/`)).toBe(true);
    // Each message names the file it came from: the mirror's copy of the host's, here.
    const words = (read: typeof local) => read.messages.map(({ source: _, ...message }) => message);
    expect(words(fromMirror)).toEqual(words(local));
    const fromHost = await readTranscript({ ...session, host: 'box' }, { kind: 'host', host: 'box', settings }, here);
    expect(fromHost.path.startsWith(`${hostHome}/`)).toBe(true);
    expect(words(fromHost)).toEqual(words(local));
  });

  it('greps a mirror here and a host by its own sessions: the same sessions, rows of the host', async () => {
    // The built module: its search workers are the built grep-worker.js.
    const { grepPlace } = (await import(join(ROOT, 'dist', 'app', 'grep.js'))) as typeof AppGrep;
    const { place } = await mirrorOfHost();
    const request = { ignoreCase: false, count: true, context: 10, engine: grepEngineOption().engine ?? ('native' as const) };
    const fromMirror: CatalogSession[] = [];
    const mirrorDone = await grepPlace(place, 'health check', { ...request, onRow: (row) => fromMirror.push(row) });
    const fromHost: CatalogSession[] = [];
    const hostDone = await grepPlace({ kind: 'host', host: 'box', settings }, 'health check', { ...request, onRow: (row) => fromHost.push(row) });
    expect(mirrorDone.error).toBe(null);
    expect(hostDone.error).toBe(null);
    expect(fromMirror.length).toBeGreaterThan(0);
    expect(mirrorDone.matched).toBe(fromMirror.length);
    for (const row of [...fromMirror, ...fromHost]) expect(row.host).toBe('box');
    expect(fromHost.map((row) => row.id).sort()).toEqual(fromMirror.map((row) => row.id).sort());
    // Filters apply to the host's rows as to this machine's.
    const claude: CatalogSession[] = [];
    await grepPlace({ kind: 'host', host: 'box', settings }, 'health check', { ...request, agents: ['claude'], onRow: (row) => claude.push(row) });
    expect(claude.every((row) => row.agent === 'claude')).toBe(true);
    expect(claude.length).toBeLessThan(fromHost.length);
  });
});
