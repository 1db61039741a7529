import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogCache } from '../../src/catalog/cache.js';
import { appendLines, createFileAtomic, removeStaleTemps, STALE_TEMP_MS } from '../../src/core/io/atomic.js';
import { readRegularFile, readRegularFileSync } from '../../src/core/io/regular.js';
import { startCodexLikeAppender } from '../hostile/home.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-append-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('appendLines with another process appending', () => {
  it('keeps every line of both writers whole: O_APPEND, one write per line', async () => {
    const index = join(dir, 'session_index.jsonl');
    await writeFile(index, '');
    const stop = await startCodexLikeAppender(index, 100);
    const ours = Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `fork-${i}`, thread_name: `fork name ${i}`, updated_at: '2026-11-22T02:00:00Z' }));
    // In parallel, as 60 concurrent `fork --name` runs would: each reads the size, then writes.
    await Promise.all(ours.map((line, i) => (i % 3 === 0 ? appendLines(index, [line, line.replace('fork-', 'twin-')]) : appendLines(index, [line]))));
    const appended = await stop();
    const lines = (await readFile(index, 'utf8')).split('\n').filter((line) => line !== '');
    const parsed = lines.map((line) => JSON.parse(line) as { id: string });
    expect(parsed).toHaveLength(appended + 60 + 20);
    const ids = new Set(parsed.map((value) => value.id));
    for (let i = 0; i < appended; i++) expect(ids.has(`agent-${i}`)).toBe(true);
    for (let i = 0; i < 60; i++) expect(ids.has(`fork-${i}`)).toBe(true);
  });

  it('puts a newline before its line when the file ends in a cut line', async () => {
    const path = join(dir, 'cut.jsonl');
    await writeFile(path, '{"a":1}\n{"b":');
    await appendLines(path, ['{"c":3}']);
    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n{"b":\n{"c":3}\n');
  });
});

describe('FIFOs are never opened blocking', () => {
  it('appendLines, readRegularFile and readRegularFileSync refuse a FIFO at once', async () => {
    const fifo = join(dir, 'session_index.jsonl');
    execFileSync('mkfifo', [fifo]);
    await expect(appendLines(fifo, ['{"x":1}'])).rejects.toMatchObject({ code: 'EFTYPE' });
    await expect(readRegularFile(fifo)).rejects.toMatchObject({ code: 'EFTYPE' });
    expect(() => readRegularFileSync(fifo)).toThrow(/not a regular file \(a FIFO\)/);
  });
});

describe('stale temp files', () => {
  it('removes only our own temp names, older than an hour, whose PID is gone, on the next write there', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const old = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
    const names = {
      stale: `.rollout-x.jsonl.tmp-${dead}-0123456789ab`,
      young: `.rollout-y.jsonl.tmp-${dead}-0123456789ab`,
      live: `.rollout-z.jsonl.tmp-${process.ppid}-0123456789ab`,
      other: `rollout-x.jsonl.tmp-${dead}-0123456789ab`,
      agent: `.rollout-x.jsonl.tmp-${dead}`,
    };
    // Times set from the process clock (the one the code compares with), not left to the kernel's.
    const young = Date.now() / 1000;
    for (const [key, name] of Object.entries(names)) {
      await writeFile(join(dir, name), 'partial');
      const time = key === 'young' ? young : old;
      await utimes(join(dir, name), time, time);
    }
    await createFileAtomic(join(dir, 'new.jsonl'), 'x\n');
    const left = new Set(await readdir(dir));
    expect(left.has(names.stale)).toBe(false);
    for (const name of [names.young, names.live, names.other, names.agent, 'new.jsonl']) expect(left.has(name)).toBe(true);
    expect(await removeStaleTemps(dir)).toEqual([]);
  });
});

describe('stale cache temp files', () => {
  it('are removed when the cache is saved: a dead PID, over an hour old', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const old = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
    const stale = join(dir, `catalog-v2.jsonl.tmp-${dead}`);
    const young = join(dir, `catalog-v2.head.json.tmp-${dead}`);
    await writeFile(stale, 'partial');
    await utimes(stale, old, old);
    await writeFile(young, 'partial');
    // Dated by the process clock (the one save() compares with), not left to the kernel's.
    await utimes(young, Date.now() / 1000, Date.now() / 1000);
    await new CatalogCache(join(dir, 'catalog-v2.jsonl')).save();
    const left = await readdir(dir);
    expect(left).not.toContain(`catalog-v2.jsonl.tmp-${dead}`);
    expect(left).toContain(`catalog-v2.head.json.tmp-${dead}`);
  });
});
