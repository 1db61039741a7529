// A fork or hand-off whose write fails (a full disk, simulated: writes to a chosen path reject with ENOSPC) leaves
// nothing behind: README says a failed command writes nothing, and an empty dated folder is something.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createFileAtomic } from '../../src/core/io/atomic.js';

/** Writes to a path `full` matches fail with ENOSPC, after `meanwhile` (what another program does as it fails). */
const disk = vi.hoisted(() => ({ full: null as RegExp | null, meanwhile: async (): Promise<void> => undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof real.open = async (...args) => {
    const handle = await real.open(...args);
    if (disk.full?.test(String(args[0]))) {
      handle.write = (async () => {
        await disk.meanwhile();
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }) as typeof handle.write;
    }
    return handle;
  };
  return { ...real, open, default: { ...real, open } };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-full-disk-'));
  disk.full = null;
  disk.meanwhile = async () => undefined;
});
afterEach(async () => {
  disk.full = null;
  await rm(dir, { recursive: true, force: true });
});

async function tree(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).map(String).sort();
}

it('createFileAtomic on a full disk: the error comes through, the folders it made are gone, those that were there stay', async () => {
  disk.full = /\.tmp-/;
  await mkdir(join(dir, 'sessions', '2026'), { recursive: true });
  await writeFile(join(dir, 'sessions', '2026', 'other.jsonl'), 'x\n');
  const target = join(dir, 'sessions', '2026', '11', '28', 'rollout.jsonl');
  await expect(createFileAtomic(target, 'line\n')).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await tree(dir)).toEqual(['sessions', join('sessions', '2026'), join('sessions', '2026', 'other.jsonl')]);
  // with room again, the same write makes the folders and the file
  disk.full = null;
  await createFileAtomic(target, 'line\n');
  expect(await tree(join(dir, 'sessions', '2026', '11'))).toEqual(['28', join('28', 'rollout.jsonl')]);
});

it('a folder something else wrote into meanwhile is kept', async () => {
  disk.full = /\.tmp-/;
  disk.meanwhile = () => writeFile(join(dir, 'a', 'theirs'), 'y');
  await expect(createFileAtomic(join(dir, 'a', 'b', 'file.jsonl'), 'line\n')).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await tree(dir)).toEqual(['a', join('a', 'theirs')]);
});

const handoff = (cwd: string) => ({
  source: { agent: 'codex' as const, id: '01a200ed-500e-74e1-88bc-7c2f05604fd8', atTurn: 2 },
  cwd,
  gitBranch: null,
  model: null,
  note: 'handed off',
  now: new Date('2026-11-28T10:00:00Z'),
});

it('a Gemini CLI hand-off on a full disk leaves no project folder, marker or tmp/ folder behind; an existing project folder stays', async () => {
  const { writeGeminiHandoff } = await import('../../src/core/formats/gemini/handoff.js');
  const gemini = join(dir, '.gemini');
  await mkdir(gemini);
  disk.full = /chats.*\.tmp-/;
  const conversation = { items: [{ kind: 'user' as const, blocks: [{ type: 'text' as const, text: 'hello' }] }], keptUserTurns: 1 };
  await expect(writeGeminiHandoff(conversation as never, handoff(join(dir, 'shop-api')), gemini)).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await tree(gemini)).toEqual([]);
  // A project folder Gemini CLI made before (its marker names the cwd) is the user's: kept as it was.
  await mkdir(join(gemini, 'tmp', 'shop-api'), { recursive: true });
  await writeFile(join(gemini, 'tmp', 'shop-api', '.project_root'), join(dir, 'shop-api'));
  await expect(writeGeminiHandoff(conversation as never, handoff(join(dir, 'shop-api')), gemini)).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await tree(gemini)).toEqual(['tmp', join('tmp', 'shop-api'), join('tmp', 'shop-api', '.project_root')]);
});

it('a Copilot CLI session written on a full disk leaves no session folder nor the session-state folder it made', async () => {
  const { writeCopilotSession } = await import('../../src/core/formats/copilot/fork.js');
  const copilot = join(dir, '.copilot');
  await mkdir(copilot);
  disk.full = /events\.jsonl\.tmp-/;
  const folder = join(copilot, 'session-state', '0199c0de-0000-7000-8000-000000000001');
  const workspace = { id: '0199c0de-0000-7000-8000-000000000001', cwd: dir, name: null, createdAt: '2026-11-28T10:00:00Z' };
  await expect(writeCopilotSession(folder, [{ type: 'session.start' }], workspace)).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await tree(copilot)).toEqual([]);
});

it('a Droid fork whose settings cannot be written leaves neither its session file nor the settings behind', async () => {
  const { droidAdapter } = await import('../../src/core/formats/droid/index.js');
  const { cp } = await import('node:fs/promises');
  const root = join(dir, '.factory');
  await cp(join(import.meta.dirname, '..', 'fixtures', 'droid-0.225.2', '.factory'), root, { recursive: true });
  const before = await tree(root);
  disk.full = /\.settings\.json\.tmp-/;
  const path = join(root, 'sessions', '-home-dev-src-d-api-server', 'ea64e05b-c101-4a66-a855-13c5b0dfbc39.jsonl');
  const group = { agent: 'droid' as const, paths: [path], idHint: null, root, archived: false };
  await expect(droidAdapter.fork(group, { atTurn: 3 }, { report: () => undefined, lookup: () => undefined, names: () => new Map() })).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await tree(root)).toEqual(before);
});
