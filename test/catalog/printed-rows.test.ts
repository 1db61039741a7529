// The lines grep printed, kept beside its walk memo (PrintedRows): told back for exactly the stamps and name they were
// made for, ignored when of another home, format or run, and written again only when more than a few rows are new.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileStamp } from '../../src/catalog/cache-entry.js';
import { PrintedRows, printedRowsPath, type PrintedRow } from '../../src/catalog/printed-rows.js';

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessions-printed-rows-'));
  path = printedRowsPath(join(dir, 'grep-walk.json'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stampOf = (n: number, size = 100 + n): FileStamp[] => [[join(dir, `s${n}.jsonl`), size, 1_700_000_000_000 + n, `40:${n.toString(16).padStart(8, '0')}`]];
const rowOf = (n: number, title = `session ${n}`): PrintedRow => ({ agent: 'codex', id: `id-${n}`, cwd: n % 2 === 0 ? null : `/src/p${n}`, updatedAt: `2026-01-01T00:00:0${n % 10}.000Z`, lineage: n % 3 === 0 ? `root-${n}` : undefined, line: `codex  ${title}\n` });
const noName = (): null => null;
const files = (count: number): Set<string> => new Set(Array.from({ length: count }, (_, n) => stampOf(n)[0]![0]));
const open = (home = '/home/a', format = 'list-line 1', key = 'run'): PrintedRows => new PrintedRows(path, key, home, format);

describe('the lines grep printed', () => {
  it('are told back for the same stamps and name only, and not for another home, format or run', async () => {
    const first = open();
    expect(first.wanted(1)).toBe(true);
    for (let n = 0; n < 10; n++) first.note(stampOf(n), rowOf(n), n === 4 ? 'a name' : null);
    first.save(() => files(10));

    const later = open();
    expect(later.wanted(10)).toBe(true);
    expect(later.told(stampOf(3), noName)).toEqual(rowOf(3));
    expect(later.told(stampOf(3, 999), noName)).toBeUndefined();
    // Made for the name 'a name': not when its root names it otherwise now.
    expect(later.told(stampOf(4), () => 'a name')).toEqual(rowOf(4));
    expect(later.told(stampOf(4), noName)).toBeUndefined();
    for (const other of [open('/home/b'), open('/home/a', 'list-line 2'), open('/home/a', 'list-line 1', 'other run')]) {
      expect(other.wanted(10)).toBe(true);
      expect(other.told(stampOf(3), noName)).toBeUndefined();
    }
    await writeFile(path, (await readFile(path, 'utf8')).slice(0, 200));
    const cut = open();
    expect(cut.wanted(10)).toBe(true);
    expect(cut.told(stampOf(3), noName)).toBeUndefined();
  });

  it('decodes only the rows asked for: a row line cut or damaged is none, the others are told; paths of any bytes', async () => {
    const odd = (n: number): FileStamp[] => [[join(dir, `ü "quoted" \\ 项目 ${n}.jsonl`), n, n, 'f']];
    const first = open();
    first.wanted(1);
    for (let n = 0; n < 6; n++) first.note(n % 2 === 0 ? stampOf(n) : odd(n), rowOf(n), null);
    first.save(() => new Set());
    const text = await readFile(path, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    // The row of stampOf(2) damaged, the last one (odd(5)) cut.
    await writeFile(path, [...lines.slice(0, 3), `${lines[3]!.slice(0, 40)}x${lines[3]!.slice(41)}`, ...lines.slice(4, 6), lines[6]!.slice(0, 60)].join('\n'));
    const later = open();
    expect(later.wanted(6)).toBe(true);
    expect(later.told(stampOf(0), noName)).toEqual(rowOf(0));
    expect(later.told(odd(1), noName)).toEqual(rowOf(1));
    expect(later.told(odd(3), noName)).toEqual(rowOf(3));
    expect(later.told(stampOf(4), noName)).toEqual(rowOf(4));
    expect(later.told(stampOf(2), noName)).toBeUndefined();
    expect(later.told(odd(5), noName)).toBeUndefined();
  });

  it('tells a file kept as holding no conversation as null, for its stamps only', async () => {
    const first = open();
    first.wanted(1);
    first.note(stampOf(1), rowOf(1), null);
    first.noteNone(stampOf(2));
    first.save(() => files(3));
    const later = open();
    expect(later.wanted(2)).toBe(true);
    expect(later.told(stampOf(1), noName)).toEqual(rowOf(1));
    expect(later.told(stampOf(2), noName)).toBeNull();
    expect(later.told(stampOf(2, 999), noName)).toBeUndefined();
    // Told the same again: nothing new, the file is not written again.
    const written = await readFile(path, 'utf8');
    later.noteNone(stampOf(2));
    later.note(stampOf(1), rowOf(1), null);
    later.save(() => files(3));
    expect(await readFile(path, 'utf8')).toBe(written);
  });

  it('is read only for a search that expects more than a few of its rows', () => {
    const first = open();
    first.wanted(1);
    for (let n = 0; n < 200; n++) first.note(stampOf(n), rowOf(n), null);
    first.save(() => files(200));
    const rare = open();
    expect(rare.wanted(1)).toBe(false);
    expect(rare.told(stampOf(3), noName)).toBeUndefined();
    expect(rare.wanted(200)).toBe(true);
    expect(rare.told(stampOf(3), noName)).toEqual(rowOf(3));
  });

  it('is written again when more than one row in 64 is new, with the rows of files still found', async () => {
    const first = open();
    first.wanted(1);
    for (let n = 0; n < 200; n++) first.note(stampOf(n), rowOf(n), null);
    first.save(() => files(200));
    const written = await readFile(path, 'utf8');

    // One row of 200 changed (and the others made again as they were): not worth writing again.
    const few = open();
    few.wanted(200);
    for (let n = 0; n < 200; n++) few.note(stampOf(n), rowOf(n, n === 7 ? 'grown' : undefined), null);
    few.save(() => files(200));
    expect(await readFile(path, 'utf8')).toBe(written);

    // Four new rows, and the files past 150 gone: written, the gone ones' rows dropped.
    const more = open();
    more.wanted(200);
    for (let n = 0; n < 4; n++) more.note(stampOf(n), rowOf(n, 'grown'), null);
    more.save(() => files(150));
    const again = open();
    again.wanted(200);
    expect(again.told(stampOf(2), noName)).toEqual(rowOf(2, 'grown'));
    expect(again.told(stampOf(100), noName)).toEqual(rowOf(100));
    expect(again.told(stampOf(170), noName)).toBeUndefined();
  });
});
