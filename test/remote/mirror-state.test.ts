// The pieces a mirror's re-sync trusts: the files rsync says it copied, the lock one sync of a mirror holds at a
// time, the state a sync leaves, and which claw workspaces a host's sessions name beyond the search of its home.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mirrorTransfer, mirrorVariables, remoteHomes, workspacesOf } from '../../src/remote/mirror-layout.js';
import { clearMirrorState, copiedFiles, lockPath, readMirrorState, withMirrorLock, writeMirrorState } from '../../src/remote/mirror-state.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-mirror-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the files rsync copied (--out-format=%i %n)', () => {
  it('takes the files received, decodes rsync\'s escapes, and leaves folders and attribute changes out', () => {
    const out = [
      'cd+++++++++ home/me/.codex/sessions/2026/',
      '.d..t...... home/me/.codex/sessions/',
      '>f+++++++++ home/me/.codex/sessions/2026/11/22/rollout-a.jsonl',
      '>f.st...... home/me/.claude/projects/-home-me/b c.jsonl',
      '>f..t...... home/me/src/ünï/.claw/sessions/session-1-0.jsonl',
      '>f+++++++++ home/me/odd/nl\\#012x.jsonl',
      '>f+++++++++ home/me/odd/back\\#134#123.jsonl',
      '',
    ].join('\n');
    expect(copiedFiles(out, '/m')).toEqual([
      '/m/home/me/.codex/sessions/2026/11/22/rollout-a.jsonl',
      '/m/home/me/.claude/projects/-home-me/b c.jsonl',
      '/m/home/me/src/ünï/.claw/sessions/session-1-0.jsonl',
      '/m/home/me/odd/nl\nx.jsonl',
      '/m/home/me/odd/back\\#123.jsonl',
    ]);
    // High bytes escaped one by one (rsync in a C locale) are one UTF-8 name again.
    expect(copiedFiles('>f+++++++++ a/\\#303\\#274.jsonl\n', '/m')).toEqual(['/m/a/ü.jsonl']);
    expect(copiedFiles('', '/m')).toEqual([]);
  });

  it('says it cannot tell (null) when a name does not decode: the sync then looks at every file', () => {
    expect(copiedFiles('>f+++++++++ a/\\#9zz.jsonl\n', '/m')).toBe(null);
    expect(copiedFiles('>f+++++++++ a/\\#377.jsonl\n', '/m')).toBe(null);
  });
});

describe('a mirror\'s lock and state', () => {
  it('runs one sync at a time: a second waits until the first is done', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = withMirrorLock(join(dir, 'm'), async () => {
      order.push('first in');
      await held;
      order.push('first out');
    });
    // The first holds the lock once its file is there.
    while (!existsSync(lockPath(join(dir, 'm')))) await new Promise((resolve) => setImmediate(resolve));
    const second = withMirrorLock(join(dir, 'm'), async () => void order.push('second'));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second']);
    expect(existsSync(lockPath(join(dir, 'm')))).toBe(false);
  });

  it('takes over the lock of a process that is gone', async () => {
    // A pid no process has: past the kernel's highest.
    const max = Number((await readFile('/proc/sys/kernel/pid_max', 'utf8').catch(() => '4194304')).trim());
    await writeFile(lockPath(join(dir, 'm')), `${max + 1} ${hostname()}`);
    expect(await withMirrorLock(join(dir, 'm'), async () => 'ran')).toBe('ran');
  });

  it('keeps the state it wrote, and nothing that is not one', async () => {
    const mirror = join(dir, 'm');
    expect(await readMirrorState(mirror)).toBe(null);
    const state = { token: 'abc', cache: '/c/catalog.jsonl', workspaces: { claw: ['/srv/proj'] } };
    await writeMirrorState(mirror, state);
    expect(await readMirrorState(mirror)).toEqual(state);
    await writeFile(`${mirror}.state.json`, JSON.stringify({ version: 1, token: 'abc', cache: null, workspaces: { nobody: ['/x'] } }));
    expect(await readMirrorState(mirror)).toBe(null);
    await writeFile(`${mirror}.state.json`, JSON.stringify({ version: 1, token: 'abc', cache: null, workspaces: { claw: ['relative'] } }));
    expect(await readMirrorState(mirror)).toBe(null);
    await clearMirrorState(mirror);
    await clearMirrorState(mirror);
    expect(await readMirrorState(mirror)).toBe(null);
  });
});

describe('claw workspaces a host\'s sessions name', () => {
  const homes = remoteHomes(['/home/me', ...mirrorVariables().map(() => '')])!;

  it('are the other agents\' cwds the search of the home (4 levels, no hidden or skipped folders) does not reach', () => {
    const rows = [
      { agent: 'codex' as const, cwd: '/home/me/src/api' },
      { agent: 'codex' as const, cwd: '/home/me/a/b/c/d' },
      { agent: 'claude' as const, cwd: '/home/me/a/b/c/d/e' },
      { agent: 'claude' as const, cwd: '/home/me/.hidden/ws' },
      { agent: 'codex' as const, cwd: '/home/me/work/node_modules/pkg' },
      { agent: 'gemini' as const, cwd: '/srv/app' },
      { agent: 'codex' as const, cwd: '/srv/app/' },
      { agent: 'codex' as const, cwd: null },
      { agent: 'codex' as const, cwd: 'relative' },
      // A claw session's own cwd names no other workspace.
      { agent: 'claw' as const, cwd: '/opt/claw-only' },
    ];
    expect(workspacesOf(rows, homes)).toEqual({ claw: ['/home/me/.hidden/ws', '/home/me/a/b/c/d/e', '/home/me/work/node_modules/pkg', '/srv/app'] });
  });

  it('are copied with their session folders only, their rules before the home\'s', () => {
    const { sources, filter } = mirrorTransfer(homes, { claw: ['/home/me/.hidden/ws', '/srv/app'] });
    expect(sources).toContain('/srv/app/');
    expect(sources).toContain('/home/me/.hidden/ws/');
    expect(filter).toContain('--include=/srv/');
    expect(filter).toContain('--include=/home/me/.hidden/');
    expect(filter).toContain('--include=/srv/app/.claw/sessions/***');
    expect(filter).toContain('--include=/home/me/.hidden/ws/.port_sessions/***');
    // Nothing else of a workspace: no `*/` levels below it.
    expect(filter.filter((rule) => rule.startsWith('--include=/srv/app/'))).toEqual([
      '--include=/srv/app/',
      '--include=/srv/app/.claw/',
      '--include=/srv/app/.claw/sessions/***',
      '--include=/srv/app/.claude/',
      '--include=/srv/app/.claude/sessions/***',
      '--include=/srv/app/.port_sessions/***',
    ]);
    expect(filter.indexOf('--include=/home/me/.hidden/ws/.claw/sessions/***')).toBeLessThan(filter.indexOf('--exclude=/home/me/**/.*/'));
    expect(filter.at(-1)).toBe('--exclude=*');
  });
});
