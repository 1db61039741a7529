// A title made of code points that are each a cluster (CJK, accented Latin, U+FFFD) is measured from the runs'
// table: neither string-width (whose first call compiles its Unicode patterns, ~50 ms of a `list` or `grep`) nor the
// grapheme segmenter is asked.
import { describe, expect, it, vi } from 'vitest';

const measured = vi.hoisted(() => ({ widths: [] as string[], segmented: 0 }));
vi.mock('../../src/ui/display-width.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/ui/display-width.js')>();
  return {
    ...real,
    stringWidth: (text: string): number => {
      measured.widths.push(text);
      return real.stringWidth(text);
    },
    graphemes: (): Intl.Segmenter => {
      measured.segmented++;
      return real.graphemes();
    },
  };
});

const { fit } = await import('../../src/ui/row-cells.js');

describe('measuring a title', () => {
  it('asks neither string-width nor the segmenter for text of the runs, and asks both for an emoji', () => {
    for (const title of ['请解释这个项目的结构', 'café crème', 'caf\ufffd cr\ufffdme \ufffd\ufffd', 'Ελληνικά и кириллица', '⌚ ⭐ → ✓', 'ｶﾀｶﾅ ＡＢＣ']) {
      for (const width of [4, 40]) {
        fit(title, width, 'end');
        fit(title, width, 'start');
      }
    }
    expect(measured).toEqual({ widths: [], segmented: 0 });
    expect(fit('fix 👩‍💻 now', 40).width).toBe(10);
    expect(measured.widths).toContain('👩‍💻');
    expect(measured.segmented).toBeGreaterThan(0);
  });
});
