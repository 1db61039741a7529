// A list row's cells: what the age shows, how wide title and cwd are, and widths measured as Ink measures them.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/core/model.js';
import { listGeometry, rowColumns } from '../../src/ui/geometry.js';
import { sessionRowSegments, type RowInput } from '../../src/ui/row-cells.js';
import { themeFor } from '../../src/ui/theme.js';
import { catalogSession } from './helpers.js';

const NOW = Date.parse('2030-06-15T12:00:00.000Z');
const theme = themeFor({ NO_COLOR: '1' });

function row(input: Partial<RowInput> & Pick<RowInput, 'session'>): string {
  const columns = input.columns ?? rowColumns(100);
  return sessionRowSegments({ hit: null, selected: false, columns, now: NOW, homeDir: '/home/dev', theme, sort: 'updated', ...input })
    .map((segment) => segment.text)
    .join('');
}

describe('list row cells', () => {
  const session = catalogSession({ id: 'a', createdAt: '2030-05-15T12:00:00.000Z', updatedAt: '2030-06-15T09:00:00.000Z' });

  it('shows the age of the time the list is sorted by', () => {
    expect(row({ session, sort: 'updated' })).toMatch(/^ {2}codex {4}3h /);
    expect(row({ session, sort: 'created' })).toMatch(/^ {2}codex {4}4w /);
  });

  it('keeps a space between every agent name and the age, the longest name included', () => {
    for (const agent of AGENTS) expect(row({ session: { ...session, agent } })).toMatch(new RegExp(`^ {2}${agent} +3h `));
    // "copilot" (7 letters) once filled the 7-column badge and ran into the age: "copilot3h"; "opencode" is 8.
    expect(row({ session: { ...session, agent: 'opencode' } })).toMatch(/^ {2}opencode 3h /);
  });

  it('shows a five-digit turn count whole (exact counts of long sessions reach tens of thousands)', () => {
    expect(row({ session: { ...session, userTurns: 28734 } })).toMatch(/ 28734 /);
  });

  it('keeps the cwd column in place after a cut title holding ZWJ emoji (one grapheme, two columns each)', () => {
    // 102: the title column as wide as at 100 before the agent badge grew two columns (the cut lands after a space).
    const columns = rowColumns(102);
    const plain = row({ session: { ...session, title: 'x'.repeat(200) }, columns });
    const emoji = row({ session: { ...session, title: `${'👩‍💻 '.repeat(40)}end`, cwd: '/home/dev/src/api' }, columns });
    expect(stringWidth(emoji)).toBe(stringWidth(plain));
    const cwdAt = (text: string): number => stringWidth(text.slice(0, text.indexOf('~/src/api')));
    expect(cwdAt(emoji)).toBe(cwdAt(plain));
    expect(emoji).toContain('👩‍💻 …');
  });

  it('gives titles and cwds more room on a wide screen than on a narrower one with the side preview', () => {
    const at = (columns: number) => rowColumns(listGeometry({ columns, rows: 40 }).listWidth);
    expect(at(200).title).toBeGreaterThan(at(150).title);
    expect(at(200).cwd).toBeGreaterThan(at(150).cwd);
    const wide = row({
      session: { ...session, title: '[a] codex 0.100.0: please run ls and summarise the project', cwd: '/home/dev/src/a-codex-0.100.0' },
      columns: at(200),
    });
    expect(wide).toContain('[a] codex 0.100.0: please run ls and summarise the project ');
    expect(wide).toContain(' ~/src/a-codex-0.100.0 ');
  });
});
