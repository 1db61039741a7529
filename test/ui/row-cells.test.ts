// A list row's cells: what the age shows, how wide title and cwd are, and widths measured as Ink measures them.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/core/model.js';
import { listGeometry, rowColumns } from '../../src/ui/geometry.js';
import { fit, ONE_CLUSTER_ASTRAL_RUNS, ONE_CLUSTER_RUNS, sessionRowSegments, type RowInput } from '../../src/ui/row-cells.js';
import { themeFor } from '../../src/ui/theme.js';
import { hostStatusText } from '../../src/ui/components/Header.js';
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

  it("marks a host's row listed from its mirror while the host is down as stale (the header says as of when)", () => {
    const remote = { ...session, host: 'devbox', cwd: '/srv/app' };
    expect(row({ session: remote, columns: rowColumns(160) })).not.toContain('stale');
    expect(row({ session: { ...remote, stale: '2030-06-15T10:00:00.000Z' }, columns: rowColumns(160) })).toMatch(/devbox:\/srv\/app .* stale$/);
    expect(hostStatusText({ kind: 'unreachable', reason: 'Connection refused', stale: '2030-06-15T10:00:00.000Z' })).toMatch(/^unreachable: Connection refused · mirror as of 2030-06-1\d \d\d:00, stale$/);
    expect(hostStatusText({ kind: 'unreachable', reason: 'Connection refused' })).toBe('unreachable: Connection refused');
  });

  it('shows the line breaks of text that was JSON inside the JSON (a tool\'s output) as ⏎, never as \\n', () => {
    const content = { paths: [session.path], matches: 16, snippet: { before: 'rust/crates/compat-harness/src/', match: 'lib.rs', after: '\\n/home/dev/crates/main.rs\\r\\n\\tdone' } };
    const text = row({ session, content, columns: rowColumns(160) });
    expect(text).toContain('lib.rs⏎/home/dev/crates/main.rs⏎ done');
    expect(text).not.toContain('\\n');
    expect(text).not.toContain('\\t');
    // the match is still the part marked
    const segments = sessionRowSegments({ session, hit: null, content, selected: false, columns: rowColumns(160), now: NOW, homeDir: '/home/dev', theme, sort: 'updated' });
    expect(segments.filter((segment) => segment.underline).map((segment) => segment.text)).toEqual(['lib.rs']);
  });

  it("marks the agent's name where a query matched it", () => {
    const segments = sessionRowSegments({ session: { ...session, agent: 'qwen' }, hit: { key: 'qwen:a', score: 0, agent: [[0, 3]] }, selected: false, columns: rowColumns(100), now: NOW, homeDir: '/home/dev', theme, sort: 'updated' });
    expect(segments.filter((segment) => segment.underline).map((segment) => segment.text)).toEqual(['qwen']);
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

/** The cut a character at a time, as fit did for every text before plain ASCII took its own path. */
function reference(text: string, width: number, cutAt: 'end' | 'start'): { text: string; width: number; from: number; kept: number } {
  const chars = Array.from(new Intl.Segmenter().segment(text), (part) => part.segment);
  const widthOf = (char: string): number => (/^[\x20-\x7e]*$/.test(char) ? 1 : stringWidth(char));
  const full = chars.reduce((sum, char) => sum + widthOf(char), 0);
  if (full <= width) return { text, width: full, from: 0, kept: text.length };
  const room = width - 1;
  let used = 0;
  if (cutAt === 'end') {
    let end = 0;
    for (const char of chars) {
      if (used + widthOf(char) > room) break;
      used += widthOf(char);
      end += char.length;
    }
    return { text: `${text.slice(0, end)}…`, width: used + 1, from: 0, kept: end };
  }
  let start = text.length;
  for (let i = chars.length - 1; i >= 0; i--) {
    if (used + widthOf(chars[i]!) > room) break;
    used += widthOf(chars[i]!);
    start -= chars[i]!.length;
  }
  return { text: `…${text.slice(start)}`, width: used + 1, from: start, kept: text.length - start };
}

describe('fit (a cell cut to its columns)', () => {
  it('cuts plain ASCII, wide characters and emoji as a character-at-a-time cut does, at both ends', () => {
    const texts = ['', 'a', 'fix the flaky test', 'x'.repeat(300), '/home/dev/src/a-rather-long/project/path', '日本語のタイトルです', 'deploy 👩‍💻 to prod 🚀 now', `${'ab'.repeat(40)}é`];
    for (const text of texts) {
      for (const width of [1, 2, 3, 5, 10, 17, 40, 80, 400]) {
        for (const cutAt of ['end', 'start'] as const) {
          const got = fit(text, width, cutAt);
          expect({ text: got.text, width: got.width, from: got.from, kept: got.kept }, `${JSON.stringify(text)} ${width} ${cutAt}`).toEqual(reference(text, width, cutAt));
          expect(stringWidth(got.text)).toBeLessThanOrEqual(width);
        }
      }
    }
  });
});

describe('text whose code points are each a grapheme cluster (fit measures it without the segmenter)', () => {
  const RANGES = ONE_CLUSTER_RUNS;
  const segments = (text: string): string[] => Array.from(new Intl.Segmenter().segment(text), (part) => part.segment);

  it("takes no character that joins a neighbour, by Unicode's properties and by the segmenter itself", () => {
    let checked = 0;
    for (const [from, to] of RANGES) {
      for (let code = from; code <= to; code++) {
        const c = String.fromCharCode(code);
        expect(/\p{Grapheme_Extend}|\p{Mc}|\p{Script=Hangul}|\u200d/u.test(c), code.toString(16)).toBe(false);
        if (segments(`${c}${c}`).length !== 2 || segments(`a${c}a`).length !== 3 || segments(`${c}\u4e00${c}`).length !== 3) expect.fail(`U+${code.toString(16)} joins a neighbour`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30_000);
  });

  it("gives each of them string-width's width (the runs' columns)", () => {
    let previous = -1;
    for (const [first, last, columns] of RANGES) {
      expect(first, first.toString(16)).toBeGreaterThan(previous);
      expect(last).toBeGreaterThanOrEqual(first);
      previous = last;
      for (let code = first; code <= last; code++) {
        const c = String.fromCharCode(code);
        if (stringWidth(c) !== columns) expect.fail(`U+${code.toString(16)}: string-width says ${stringWidth(c)}, the runs ${columns}`);
        // Measured as a title: the width fit finds is the run's, alone and between others.
        expect(fit(c, 10).width, code.toString(16)).toBe(columns);
        expect(fit(`a${c}\u4e00`, 10).width, code.toString(16)).toBe(columns + 3);
      }
    }
    // Wide, zero-width and one-column code points are all among them (CJK, U+200B, U+FFFD).
    expect(fit('\u4e00\u200b\ufffd', 10).width).toBe(3);
  });

  it('takes code points past the BMP that join no neighbour, each measured as string-width measures it', () => {
    let checked = 0;
    let previous = 0xffff;
    for (const [first, last] of ONE_CLUSTER_ASTRAL_RUNS) {
      expect(first, first.toString(16)).toBeGreaterThan(previous);
      previous = last;
      for (let code = first; code <= last; code++) {
        const c = String.fromCodePoint(code);
        expect(/\p{Grapheme_Extend}|\p{Mc}|\p{Regional_Indicator}|\p{Emoji_Modifier}/u.test(c), code.toString(16)).toBe(false);
        if (segments(`${c}${c}`).length !== 2 || segments(`a${c}a`).length !== 3 || segments(`${c}\u4e00${c}`).length !== 3 || segments(`\u{1f642}${c}\u{1f642}`).length !== 3) {
          expect.fail(`U+${code.toString(16)} joins a neighbour`);
        }
        if (fit(`a${c}\u4e00`, 10).width !== stringWidth(c) + 3) expect.fail(`U+${code.toString(16)}: fit and string-width differ`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2_500);
    // The code points next to the runs do join (a skin tone, a flag's half): left to the segmenter.
    expect(segments('\u{1f44d}\u{1f3fd}')).toHaveLength(1);
    expect(segments('\u{1f1eb}\u{1f1f7}')).toHaveLength(1);
    expect(fit('\u{1f44d}\u{1f3fd}\u{1f642}', 10).width).toBe(stringWidth('\u{1f44d}\u{1f3fd}') + 2);
  });

  it('cuts mixed text of those ranges as the segmenter would, and text past them (emoji, combining marks) too', () => {
    let seed = 7;
    const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const pool = [...RANGES, ...ONE_CLUSTER_ASTRAL_RUNS].flatMap(([from, to]) => [from, to, from + ((to - from) >> 1)]).map((code) => String.fromCodePoint(code));
    const extra = ['e\u0301', '👩‍💻', '🇫🇷', '👍🏽', '❤️', '한국어', 'ｶﾞ', '\u200d', '\ud83d'];
    for (let i = 0; i < 400; i++) {
      const parts = Array.from({ length: 1 + random(40) }, () => (i % 4 === 0 && random(5) === 0 ? extra[random(extra.length)]! : pool[random(pool.length)]!));
      const text = parts.join('');
      for (const width of [1, 4, 12, 30]) {
        const cutAt = i % 2 === 0 ? 'end' : 'start';
        const got = fit(text, width, cutAt);
        expect({ text: got.text, width: got.width, from: got.from, kept: got.kept }, JSON.stringify(text)).toEqual(reference(text, width, cutAt));
      }
    }
  });
});
