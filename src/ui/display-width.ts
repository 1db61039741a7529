import { createRequire } from 'node:module';

/*
 * Terminal column widths of text that is not plain ASCII, measured by string-width as Ink measures it. Loaded on
 * the first such text, not with the module: its import (and an Intl.Segmenter) cost ~16 ms of every command's
 * start, and a command that prints no row (`grep` of a word found nowhere, `list --json`) never needs them.
 * (string-width is ESM; Node ≥ 20.19 loads it with require.)
 */
let measure: ((text: string) => number) | null = null;
let segmenter: Intl.Segmenter | null = null;

export function stringWidth(text: string): number {
  measure ??= (createRequire(import.meta.url)('string-width') as { readonly default: (text: string) => number }).default;
  return measure(text);
}

/** The grapheme segmenter (one, made on first use). */
export function graphemes(): Intl.Segmenter {
  return (segmenter ??= new Intl.Segmenter());
}
