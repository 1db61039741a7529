// bin/sessions.js lets its own Node start without NODE_EXTRA_CA_CERTS (Node 20 reads the whole bundle before any
// script runs; sessions opens no TLS connection) and src/start.ts gives the variable back to what sessions starts.
// The bin is run as a user runs it: as an executable, through its `#!/bin/sh` line.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { giveBackHeld, HELD_CA_CERTS } from '../../src/start.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sessions.js');
/** What Node 20 prints as it starts when NODE_EXTRA_CA_CERTS names a file that holds no certificate. */
const NODE_WARNING = 'Ignoring extra certs';

let sandbox: string;
let home: string;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-held-certs-'));
  home = join(sandbox, 'home');
  await cp(join(ROOT, 'test', 'fixtures', 'claw-synthetic', 'demo'), join(home, 'src', 'demo'), { recursive: true });
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

function run(file: string, args: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      file,
      args,
      { cwd: sandbox, env: { PATH: process.env.PATH, HOME: sandbox, XDG_CACHE_HOME: join(sandbox, 'cache'), XDG_CONFIG_HOME: join(sandbox, 'config'), ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** A bundle whose one certificate Node cannot load: it warns as it starts, which tells whether that Node read it. */
async function notABundle(): Promise<string> {
  const path = join(sandbox, 'broken-bundle.pem');
  await writeFile(path, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  return path;
}

/** Resume the claw demo session with a stand-in agent that writes down the two variables as it sees them. */
async function resumeWithStandIn(env: Record<string, string>): Promise<{ code: number; stderr: string; seen: string[] }> {
  const bin = join(sandbox, 'bin');
  await mkdir(bin, { recursive: true });
  const seenFile = join(sandbox, 'seen.txt');
  await writeFile(join(bin, 'agent'), `#!/bin/sh\nprintf '%s\\n' "\${NODE_EXTRA_CA_CERTS-unset}" "\${${HELD_CA_CERTS}-unset}" > "${seenFile}"\n`);
  await chmod(join(bin, 'agent'), 0o755);
  await mkdir(join(sandbox, 'config', 'sessions'), { recursive: true });
  await writeFile(join(sandbox, 'config', 'sessions', 'config.json'), JSON.stringify({ resume: { claw: [join(bin, 'agent'), 'resume', '{path}'] } }));
  const listed = await run(BIN, ['list', '--json', '--home', home, '--claw-dir', join(home, 'src')], env);
  const id = (JSON.parse(listed.stdout) as { id: string; agent: string }[]).find((row) => row.agent === 'claw')!.id;
  const result = await run(BIN, ['resume', id, '--here', '--home', home, '--claw-dir', join(home, 'src')], env);
  return { code: result.code, stderr: result.stderr, seen: (await readFile(seenFile, 'utf8')).split('\n').slice(0, 2) };
}

describe('NODE_EXTRA_CA_CERTS', () => {
  it("is not read by the bin's own Node (Node run on the script directly reads it)", async () => {
    const bundle = await notABundle();
    const direct = await run(process.execPath, [BIN, '--version'], { NODE_EXTRA_CA_CERTS: bundle });
    expect(direct.stderr).toContain(NODE_WARNING);
    const asUsersRunIt = await run(BIN, ['--version'], { NODE_EXTRA_CA_CERTS: bundle });
    expect(asUsersRunIt.code).toBe(0);
    expect(asUsersRunIt.stdout).toBe(direct.stdout);
    expect(asUsersRunIt.stderr).toBe('');
  });

  it('is given back, as the user set it, to the agent sessions starts', async () => {
    const bundle = await notABundle();
    const { code, stderr, seen } = await resumeWithStandIn({ NODE_EXTRA_CA_CERTS: bundle });
    expect(stderr).not.toContain(NODE_WARNING);
    expect(code).toBe(0);
    expect(seen).toEqual([bundle, 'unset']);
  });

  it('stays unset for the agent when the user never set it', async () => {
    const { code, seen } = await resumeWithStandIn({});
    expect(code).toBe(0);
    expect(seen).toEqual(['unset', 'unset']);
  });

  it('giveBackHeld: the held value back under its own name, the held name gone; a value set since is kept', () => {
    const env: Record<string, string | undefined> = { [HELD_CA_CERTS]: '/certs.pem', OTHER: 'x' };
    giveBackHeld(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/certs.pem', OTHER: 'x' });
    const both: Record<string, string | undefined> = { [HELD_CA_CERTS]: '/held.pem', NODE_EXTRA_CA_CERTS: '/own.pem' };
    giveBackHeld(both);
    expect(both).toEqual({ NODE_EXTRA_CA_CERTS: '/own.pem' });
    const none: Record<string, string | undefined> = { OTHER: 'x' };
    giveBackHeld(none);
    expect(none).toEqual({ OTHER: 'x' });
  });
});
