import { mkdtemp, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentDefaultHomes, resolveLocations, selfAndAncestors, type LocationOptions } from '../../src/catalog/locations.js';
import { configPath, DEFAULT_HOST_SETTINGS, loadConfig } from '../../src/config.js';
import { ADAPTER_LIST } from '../../src/core/formats/index.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES } from '../../src/core/resume.js';
import { checkLaunch, findExecutable, formatCommand, shellQuote } from '../../src/launch.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-cfg-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveLocations', () => {
  const base = { homeDir: '/home/me', cwd: '/work/proj' };
  it.each([
    [{}, {}, ['/home/me/.codex'], ['/home/me/.claude']],
    [{}, { CODEX_HOME: '/c', CLAUDE_CONFIG_DIR: 'rel' }, ['/c'], ['/work/proj/rel']],
    [{ home: '/sample' }, { CODEX_HOME: '/c' }, ['/sample/.codex'], ['/sample/.claude']],
    [{ home: '/sample', roots: { codex: ['/x', '/y'] } }, {}, ['/x', '/y'], ['/sample/.claude']],
    [{ roots: { claude: ['a', 'a'] } }, {}, ['/home/me/.codex'], ['/work/proj/a']],
  ])('%j %j', (options: LocationOptions, env, codexHomes, claudeDirs) => {
    const locations = resolveLocations(options, { ...base, env });
    expect(locations.roots.codex).toEqual(codexHomes);
    expect(locations.roots.claude).toEqual(claudeDirs);
    expect(locations.roots.claw).toEqual([]);
    expect(locations.cwd).toBe('/work/proj');
  });

  it('knows the homes the agents use by themselves: their variables, else ~', () => {
    // Every agent with a home folder has one (claw keeps sessions in the workspace: none), under ~ by default.
    const withHome = ADAPTER_LIST.filter((adapter) => adapter.locations.homeFolder !== null);
    expect(agentDefaultHomes({ ...base, env: {} })).toEqual(Object.fromEntries(withHome.map((adapter) => [adapter.agent, join('/home/me', adapter.locations.homeFolder!)])));
    expect(agentDefaultHomes({ ...base, env: {} })).toMatchObject({ codex: '/home/me/.codex', opencode: '/home/me/.local/share/opencode' });
    const moved = agentDefaultHomes({ ...base, env: { CODEX_HOME: '/c', CLAUDE_CONFIG_DIR: '/d', COPILOT_HOME: 'rel', GEMINI_CLI_HOME: '/g', QWEN_HOME: '/q', XDG_DATA_HOME: '/x' } });
    expect(Object.keys(moved).sort()).toEqual(withHome.map((adapter) => adapter.agent).sort());
    expect(moved).toMatchObject({ codex: '/c', claude: '/d', copilot: '/work/proj/rel', gemini: '/g/.gemini', qwen: '/q', opencode: '/x/opencode' });
  });

  it('lists a directory and its ancestors', () => {
    expect(selfAndAncestors('/a/b/c')).toEqual(['/a/b/c', '/a/b', '/a', '/']);
  });
});

describe('config', () => {
  it('finds the file under XDG_CONFIG_HOME, SESSIONS_CONFIG first', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/x/sessions/config.json');
    expect(configPath({}, '/home/me')).toBe('/home/me/.config/sessions/config.json');
    expect(configPath({ SESSIONS_CONFIG: '/c.json', XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/c.json');
  });

  it('uses the defaults when there is no file', () => {
    expect(loadConfig(join(dir, 'none.json'))).toEqual({ resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES, ...DEFAULT_HOST_SETTINGS, source: null });
  });

  it('overrides one agent and keeps the others', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify({ resume: { codex: ['/opt/codex', 'resume', '{id}'] } }));
    const config = loadConfig(path);
    expect(config.resume.codex).toEqual(['/opt/codex', 'resume', '{id}']);
    expect(config.resume.claude).toEqual(DEFAULT_RESUME_TEMPLATES.claude);
    expect(config.source).toBe(path);
  });

  it.each([
    ['{not json', 'not valid JSON'],
    ['[]', 'must be a JSON object'],
    ['{"resume": {"nosuchagent": ["g"]}}', 'unknown agent "nosuchagent"'],
    ['{"resume": {"codex": "codex resume"}}', 'non-empty array of strings'],
  ])('rejects %s', async (text, message) => {
    const path = join(dir, 'bad.json');
    await writeFile(path, text);
    expect(() => loadConfig(path)).toThrow(message);
  });
});

describe('launch checks', () => {
  it('finds an executable on PATH and refuses a non-executable file', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'agent'), '#!/bin/sh\n');
    await chmod(join(bin, 'agent'), 0o755);
    await writeFile(join(bin, 'plain'), '');
    expect(findExecutable('agent', { PATH: `/nonexistent:${bin}` }, dir)).toBe(join(bin, 'agent'));
    expect(findExecutable('plain', { PATH: bin }, dir)).toBeNull();
    expect(findExecutable('./bin/agent', { PATH: '' }, dir)).toBe(join(bin, 'agent'));
  });

  it('explains a missing agent with the command to copy, and a missing cwd', async () => {
    const command = { argv: ['codex', 'resume', 'abc'], cwd: dir };
    const missing = checkLaunch(command, { PATH: '' }, null);
    expect(missing).toMatchObject({ ok: false, reason: 'not-found' });
    expect(!missing.ok && missing.message).toContain(`cd ${dir} && codex resume abc`);
    expect(checkLaunch({ ...command, cwd: join(dir, 'gone') }, { PATH: '' }, null)).toMatchObject({ ok: false, reason: 'cwd-missing' });
    expect(checkLaunch({ ...command, cwd: null }, { PATH: '' }, null)).toMatchObject({ ok: false, reason: 'no-cwd' });
  });

  it('quotes for a POSIX shell', () => {
    expect(shellQuote('plain-arg_1.0')).toBe('plain-arg_1.0');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
    expect(formatCommand({ argv: ['claude', '--resume', 'x y'], cwd: '/a b' })).toBe(`cd '/a b' && claude --resume 'x y'`);
    expect(formatCommand({ argv: ['codex', 'resume', 'id'], cwd: '/src', env: { CODEX_HOME: '/h o/.codex' } })).toBe(`cd /src && CODEX_HOME='/h o/.codex' codex resume id`);
  });
});
