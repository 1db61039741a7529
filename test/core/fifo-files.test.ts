// Files a command reads besides sessions (markers, indexes, configs) that are a FIFO or a device: opened
// blocking, a FIFO hangs the command until a writer comes, and /dev/zero is read until memory runs out. Each is
// refused (regular files only, opened O_NONBLOCK) and read up to a bound.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/core/formats/index.js';
import type { AdapterContext } from '../../src/core/formats/types.js';
import { geminiProjectFolder } from '../../src/core/formats/gemini/handoff.js';
import { FileTooLargeError, readRegularBytesSync, readRegularFile, readRegularFileSync } from '../../src/core/io/regular.js';
import { withReadOnly } from '../../src/core/io/sqlite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-fifo-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a hand-off to Gemini CLI with a FIFO as projects.json and as a project folder\'s .project_root picks a folder of its own', async () => {
  const gemini = join(dir, '.gemini');
  await mkdir(join(gemini, 'tmp', 'app'), { recursive: true });
  execFileSync('mkfifo', [join(gemini, 'projects.json')]);
  execFileSync('mkfifo', [join(gemini, 'tmp', 'app', '.project_root')]);
  // The folder named for the project is not its (its marker is no file): the next slug is claimed.
  expect(await geminiProjectFolder(gemini, '/work/app')).toBe('app-1');
  expect(await readFile(join(gemini, 'tmp', 'app-1', '.project_root'), 'utf8')).toBe('/work/app');
});

it('reads a small file whole and refuses one past its bound, reading no more than the bound', async () => {
  const path = join(dir, 'marker');
  await writeFile(path, 'x'.repeat(100));
  expect((await readRegularFile(path, 100)).toString()).toBe('x'.repeat(100));
  expect(readRegularFileSync(path, 100)).toBe('x'.repeat(100));
  await expect(readRegularFile(path, 99)).rejects.toBeInstanceOf(FileTooLargeError);
  expect(() => readRegularFileSync(path, 99)).toThrow(FileTooLargeError);
  // A file whose size stat does not tell (0 in /proc) is bounded by what is read; a device is not read (/dev/zero as
  // Gemini CLI's projects.json was read for 620 MB).
  await expect(readRegularFile('/proc/self/maps', 16)).rejects.toMatchObject({ code: 'EFBIG' });
  await expect(readRegularFile('/dev/zero', 16)).rejects.toMatchObject({ code: 'EFTYPE' });
  expect(() => readRegularFileSync('/proc/self/maps', 16)).toThrow(FileTooLargeError);
});

it('reads a file whole synchronously whatever its size says: empty, megabytes of multi-byte text, a /proc file stat calls empty', async () => {
  const empty = join(dir, 'empty');
  await writeFile(empty, '');
  expect(readRegularFileSync(empty)).toBe('');
  const big = join(dir, 'big');
  const text = 'é🙂 line\n'.repeat(300_000);
  await writeFile(big, text);
  expect(readRegularFileSync(big)).toBe(text);
  expect(readRegularBytesSync(big).equals(Buffer.from(text))).toBe(true);
  expect(readRegularFileSync(big, Buffer.byteLength(text))).toBe(text);
  expect(() => readRegularBytesSync(big, Buffer.byteLength(text) - 1)).toThrow(FileTooLargeError);
  expect(() => readRegularBytesSync('/dev/zero')).toThrow(expect.objectContaining({ code: 'EFTYPE' }));
  expect(() => readRegularFileSync(big, Buffer.byteLength(text) - 1)).toThrow(FileTooLargeError);
  // Size 0 by stat, bytes when read: the buffer grows to hold them.
  expect(statSync('/proc/self/cmdline').size).toBe(0);
  expect(readRegularFileSync('/proc/self/cmdline')).toBe(readFileSync('/proc/self/cmdline', 'utf8'));
  expect(readRegularBytesSync('/proc/self/cmdline').equals(readFileSync('/proc/self/cmdline'))).toBe(true);
});

it('a FIFO as a database (opencode.db) is refused, not opened by SQLite (which opens blocking)', () => {
  const path = join(dir, 'opencode.db');
  execFileSync('mkfifo', [path]);
  expect(() => withReadOnly(path, (db) => db.prepare('SELECT 1').get())).toThrow(expect.objectContaining({ code: 'EFTYPE' }));
});

it('a FIFO as a Gemini CLI project\'s .project_root: the sessions are listed and read (it hung list, show and a Codex fork)', async () => {
  const gemini = join(dir, '.gemini');
  await cp(join(import.meta.dirname, '..', 'fixtures', 'gemini-0.61.0', '.gemini'), gemini, { recursive: true });
  const marker = join(gemini, 'tmp', 'g-api-server', '.project_root');
  const before = await readFile(marker, 'utf8');
  await rm(marker);
  execFileSync('mkfifo', [marker]);
  const context: AdapterContext = { report: () => undefined, lookup: () => undefined, names: () => new Map() };
  const groups = (await ADAPTERS.gemini.discover(gemini, () => undefined)).filter((group) => group.paths[0]!.includes('g-api-server'));
  let rows = 0;
  for (const group of groups) {
    const row = await ADAPTERS.gemini.readSummary(group, context);
    if (row === null) continue; // not a conversation of its own
    rows++;
    // The marker is not read: the cwd comes from the session context Gemini CLI wrote, as in older releases.
    expect(row.cwd).toBe(before.trim());
    expect((await ADAPTERS.gemini.readSession(group, context)).messages.length).toBeGreaterThan(0);
  }
  expect(rows).toBeGreaterThan(0);
});
