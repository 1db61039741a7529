// `list` text rows: one width per column, whatever the titles hold (wide CJK characters, combining marks, a ZWJ emoji,
// nothing at all) and however long the ids are; measured as the TUI measures (string-width, by grapheme cluster).
import { describe, expect, it } from 'vitest';
import type { CatalogSession } from '../../src/catalog/scan.js';
import { listHeader, listLine, listWidths, STREAM_WIDTHS } from '../../src/cli/output.js';
import { stringWidth } from '../../src/ui/display-width.js';

function row(id: string, title: string, cwd: string | null, extra: Partial<CatalogSession> = {}): CatalogSession {
  return {
    id,
    agent: 'codex',
    path: `/s/${id}.jsonl`,
    paths: [`/s/${id}.jsonl`],
    root: '/s',
    cwd,
    title,
    name: null,
    firstPrompt: title,
    lastPrompt: title,
    userTurns: 3,
    userTurnsExact: true,
    createdAt: '2026-11-22T01:44:46.000Z',
    updatedAt: '2026-11-22T01:44:46.000Z',
    forkedFrom: null,
    gitBranch: null,
    model: null,
    archived: false,
    usage: null,
    size: 1,
    mtimeMs: 1,
    ...extra,
  } as CatalogSession;
}

const ROWS = [
  row('01a200ed-60a4-7f10-a53c-15a9ecf122f3', 'run ls and explain the layout', '/w/a'),
  row('session-1775386842352-0', '请解释这个项目的结构', '/w/b'),
  row('ses_def8a5e01ffeSLpJoOndDIcP22', 'cafe\u0301 de\u0301ja\u0300 vu', '/w/c'),
  row('b035f648d5b549aa836ea01f6727ec62', '👩‍💻 pair on the parser', '/w/d', { forkedFrom: 'x' }),
  row('5a1999c3-3fef-4a8c-8969-b584a1892bda', '', null),
  row('77d4aa70-e81c-4025-9537-2c4526617f71', '日本語 '.repeat(20), '/w/e', { archived: true }),
];

/** The display column each row's last column (the cwd) starts at. */
function cwdColumns(lines: readonly string[], rows: readonly CatalogSession[]): number[] {
  return lines.map((line, i) => {
    const cwd = rows[i]!.cwd ?? '-';
    expect(line.endsWith(`  ${cwd}\n`), line).toBe(true);
    return stringWidth(line.slice(0, line.length - cwd.length - 1));
  });
}

describe('list text columns', () => {
  it('start every column at one place on every row: wide, combining and emoji titles, an empty title, ids of every length', () => {
    const widths = listWidths(ROWS);
    const lines = ROWS.map((one) => listLine(one, widths));
    expect(new Set(cwdColumns(lines, ROWS)).size).toBe(1);
    // The title column starts at one place too (after the longest id), and the header names the columns where they are.
    const titleAt = lines.map((line, i) => stringWidth(line.slice(0, line.indexOf(ROWS[i]!.title.slice(0, 2) || '  -'))));
    expect(new Set(titleAt.slice(0, 4)).size).toBe(1);
    const header = listHeader(widths);
    expect(header.indexOf('title')).toBe(titleAt[0]);
    expect(stringWidth(header.slice(0, header.indexOf('cwd')))).toBe(cwdColumns(lines, ROWS)[0]);
    // A long title is cut to the column, its marks kept.
    expect(lines[5]).toContain('… [archived]');
    expect(widths.title).toBe(60);
  });

  it('rows printed as they are found (grep) share the widths that hold any row', () => {
    const lines = ROWS.map((one) => listLine(one));
    expect(new Set(cwdColumns(lines, ROWS)).size).toBe(1);
    expect(stringWidth(listHeader().slice(0, listHeader().indexOf('cwd')))).toBe(cwdColumns(lines, ROWS)[0]);
    expect(STREAM_WIDTHS.id).toBeGreaterThanOrEqual(Math.max(...ROWS.map((one) => one.id.length)));
  });
});
