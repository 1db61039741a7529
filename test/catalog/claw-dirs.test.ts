// Where claw sessions are found: `--claw-dir` may name a workspace or any of its session folders (the real
// layouts of ../shared/corpus-claw and a per-workspace hash folder), and workspaces below the current
// directory are found without it, as README says ("the current directory and below").
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanCatalog } from '../../src/catalog/scan.js';
import { clawWorkspaceOfSessionFolder } from '../../src/core/formats/claw/index.js';
import { noRoots } from '../../src/catalog/locations.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const HASH = 'd87be5ec94538b86';

let temp: string;
let demo: string;
let code: string;
let elsewhere: string;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'sessions-claw-dirs-'));
  demo = join(temp, 'work', 'demo');
  code = join(temp, 'work', 'claw-code');
  elsewhere = join(temp, 'elsewhere');
  await cp(join(FIXTURES, 'claw-synthetic', 'demo'), demo, { recursive: true });
  await cp(join(FIXTURES, 'home', 'src', 'claw-code'), code, { recursive: true });
  await mkdir(elsewhere);
});
afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function clawRows(clawDirs: string[], cwd = elsewhere): Promise<{ id: string; root: string }[]> {
  const { sessions } = await scanCatalog({ roots: { ...noRoots(), claw: clawDirs }, cwd, rootsFromCwds: false }, { agents: ['claw'], workers: 0 });
  return sessions.map((s) => ({ id: s.id, root: s.root })).sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe('--claw-dir', () => {
  it('names the workspace of each session folder it can be given, and nothing else', () => {
    expect(clawWorkspaceOfSessionFolder(join(demo, '.claw'))).toBe(demo);
    expect(clawWorkspaceOfSessionFolder(join(demo, '.claw', 'sessions'))).toBe(demo);
    expect(clawWorkspaceOfSessionFolder(join(demo, '.claw', 'sessions', HASH))).toBe(demo);
    expect(clawWorkspaceOfSessionFolder(join(code, '.claude', 'sessions'))).toBe(code);
    expect(clawWorkspaceOfSessionFolder(join(code, '.port_sessions'))).toBe(code);
    expect(clawWorkspaceOfSessionFolder(demo)).toBeNull();
    expect(clawWorkspaceOfSessionFolder(join(temp, 'sessions'))).toBeNull();
  });

  it('finds the same sessions whether it names the workspace, .claw, .claw/sessions or a hash folder', async () => {
    const whole = await clawRows([demo]);
    expect(whole.length).toBeGreaterThan(3);
    expect(whole.every((row) => row.root === demo)).toBe(true);
    for (const dir of [join(demo, '.claw'), join(demo, '.claw', 'sessions'), join(demo, '.claw', 'sessions', HASH)]) {
      expect(await clawRows([dir]), dir).toEqual(whole);
    }
  });

  it('finds a workspace by its .claude/sessions or .port_sessions folder', async () => {
    const own = (await clawRows([code])).filter((row) => row.root === code);
    // (session-1774998936453 holds no messages: not a conversation, not listed.)
    expect(own.map((row) => row.id)).toEqual(['b035f648d5b549aa836ea01f6727ec62', 'session-1775010002596']);
    expect(await clawRows([join(code, '.claude', 'sessions')])).toEqual(own);
    expect(await clawRows([join(code, '.port_sessions')])).toEqual(own);
  });
});

describe('the current directory', () => {
  it('finds claw workspaces in its subfolders without --claw-dir', async () => {
    const below = await clawRows([], join(temp, 'work'));
    // (rusty-claude-cli's only file is a header: a workspace with no conversation yet.)
    expect(new Set(below.map((row) => row.root))).toEqual(new Set([demo, code, join(code, 'rust')]));
    expect(below).toEqual(await clawRows([demo, code]));
    expect(await clawRows([], elsewhere)).toEqual([]);
  });

  it('leaves its subfolders to --claw-dir when one is given (an explicit location replaces the default)', async () => {
    const rows = await clawRows([join(demo, '.claw')], join(temp, 'work'));
    expect(new Set(rows.map((row) => row.root))).toEqual(new Set([demo]));
  });
});
