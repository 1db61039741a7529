// The watcher's folder watches (catalog/folder-watch.ts): wanted folders only, folders made later, symlinked folders.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchFolders, type FolderWatch } from '../../src/catalog/folder-watch.js';

let sandbox: string;
let watch: FolderWatch | null = null;

beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'sessions-folder-watch-'));
});

afterEach(async () => {
  watch?.close();
  watch = null;
  await rm(sandbox, { recursive: true, force: true });
});

async function waitFor(test: () => boolean, what: () => string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !test(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error(`waited in vain: ${what()}`);
  }
}

function start(root: string, seen: string[]): FolderWatch {
  return watchFolders({
    roots: [root],
    depth: 2,
    wanted: (parts) => parts[0] === 'sessions',
    isFile: (path) => path.endsWith('.jsonl'),
    onFile: (_root, path) => seen.push(path),
  });
}

describe('watchFolders', () => {
  it('reports files of wanted folders, of folders made later (with what they held), never of unwanted ones', async () => {
    const root = join(sandbox, 'home');
    await mkdir(join(root, 'sessions', 'a'), { recursive: true });
    await mkdir(join(root, 'other'), { recursive: true });
    const seen: string[] = [];
    watch = start(root, seen);
    await watch.ready;
    await writeFile(join(root, 'other', 'x.jsonl'), '{}\n');
    await writeFile(join(root, 'sessions', 'a', 'one.jsonl'), '{}\n');
    await waitFor(() => seen.includes(join(root, 'sessions', 'a', 'one.jsonl')), () => seen.join(', '));
    // A folder made after the walk, with a file written at once.
    await mkdir(join(root, 'sessions', 'b'));
    await writeFile(join(root, 'sessions', 'b', 'two.jsonl'), '{}\n');
    await waitFor(() => seen.includes(join(root, 'sessions', 'b', 'two.jsonl')), () => seen.join(', '));
    expect(seen.some((path) => path.includes(`${join(root, 'other')}`))).toBe(false);
  });

  it('watches a wanted folder reached through a symlink', async () => {
    const root = join(sandbox, 'home');
    const elsewhere = join(sandbox, 'elsewhere');
    await mkdir(join(root, 'sessions'), { recursive: true });
    await mkdir(elsewhere);
    await symlink(elsewhere, join(root, 'sessions', 'linked'));
    const seen: string[] = [];
    watch = start(root, seen);
    await watch.ready;
    await writeFile(join(elsewhere, 'three.jsonl'), '{}\n');
    await waitFor(() => seen.includes(join(root, 'sessions', 'linked', 'three.jsonl')), () => seen.join(', '));
  });
});
