// One conversation in many files (claw workspaces copied whole: the same session id in each .claw/sessions): every file
// matches, and grep's row is `list`'s one row, merged once for the conversation, not once per matching file (at 100k
// sessions, 700-file conversations merged 700 times each were most of a common word's grep). Runs the built modules.
import { copyFile, mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Grep from '../../src/catalog/grep.js';
import { noRoots, type Locations } from '../../src/catalog/locations.js';
import type * as MergeRows from '../../src/catalog/merge-rows.js';
import type * as Scan from '../../src/catalog/scan.js';
import { importBuilt } from '../helpers/built-dist.js';
import { grepEngineOption } from '../helpers/grep-engine.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/claw-synthetic/demo/.claw/sessions/session-1776300000000-0.jsonl', import.meta.url));
const COPIES = 120;

describe('grep of a conversation kept in many files', () => {
  let home: string;
  let grep: typeof Grep;
  let scan: typeof Scan;
  let mergeRows: typeof MergeRows;
  const locations = (): Locations => ({ roots: { ...noRoots(), claw: [join(home, 'src')] }, cwd: home, rootsFromCwds: false });

  beforeAll(async () => {
    grep = await importBuilt<typeof Grep>('catalog', 'grep.js');
    scan = await importBuilt<typeof Scan>('catalog', 'scan.js');
    mergeRows = await importBuilt<typeof MergeRows>('catalog', 'merge-rows.js');
    home = await mkdtemp(join(tmpdir(), 'sessions-grep-many-files-'));
    for (let i = 0; i < COPIES; i++) {
      const dir = join(home, 'src', `w${i}`, '.claw', 'sessions');
      await mkdir(dir, { recursive: true });
      const path = join(dir, 'session-1776300000000-0.jsonl');
      await copyFile(FIXTURE, path);
      await utimes(path, 1_700_000_000 + i, 1_700_000_000 + i);
    }
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('gives list\'s one row with every file, merging the conversation once', async () => {
    const { sessions } = await scan.scanCatalog(locations());
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.paths).toHaveLength(COPIES);
    const merged = vi.spyOn(mergeRows, 'conversations');
    try {
      const rows: Scan.CatalogSession[] = [];
      // A word of every copy's first prompt.
      const word = sessions[0]!.firstPrompt!.split(/\s+/).find((w) => w.length >= 4)!;
      const { matched } = await grep.grepLocations(locations(), word, { ...grepEngineOption(), workers: 1, onMatch: (row) => rows.push(row) });
      expect(matched).toBe(1);
      expect(rows).toEqual(sessions);
      // Sessions handed to the row merge over the whole search: the conversation's files once (was COPIES × COPIES).
      const handed = merged.mock.calls.reduce((sum, [input]) => sum + input.length, 0);
      expect(handed).toBeLessThanOrEqual(2 * COPIES);
    } finally {
      merged.mockRestore();
    }
  });
});
