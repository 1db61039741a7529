// A search query as fzf reads it: space-separated words, each matched on its own, in any order, in any field.
import type { Expression } from 'fuse.js';

/**
 * How one word matches a field: `fuzzy` (plain word), `include` (`'word`: the exact substring), `prefix`
 * (`^word`), `suffix` (`word$`), `equal` (`^word$`: the whole field).
 */
export type TermKind = 'fuzzy' | 'include' | 'prefix' | 'suffix' | 'equal';

export interface QueryTerm {
  readonly kind: TermKind;
  /** The word without its operators, folded (lower case, no diacritics): what the prefilter looks for. */
  readonly text: string;
  /** The word as a fuse.js extended-search pattern (quoted, so fuse.js reads no operator of its own in it). */
  readonly pattern: string;
  /** `\n` + text and text + `\n`: a prompt's start and end inside the joined prompts (made once per query, not per session). */
  readonly lineStart: string;
  readonly lineEnd: string;
}

export interface ParsedQuery {
  /** Every group must match; a group matches when one of its terms does (`a | b`). */
  readonly groups: readonly (readonly QueryTerm[])[];
  /** No field may match any of these (`!word`, `!^word`, `!word$`). */
  readonly excluded: readonly QueryTerm[];
  /** The positive words' length: one or two letters match most of a catalog. */
  readonly positiveLength: number;
}

/**
 * Parse fzf's extended search syntax: `word` fuzzy, `'word` exact substring, `^word` prefix, `word$` suffix,
 * `^word$` whole field, `!word` / `!^word` / `!word$` none of the fields, `a | b` either. A word that is only
 * operators (`'`, `!`, `^`) is nothing yet (the user is still typing it).
 */
export function parseQuery(query: string, fold: (text: string) => string): ParsedQuery {
  const groups: QueryTerm[][] = [];
  const excluded: QueryTerm[] = [];
  let orNext = false;
  let positiveLength = 0;
  for (const word of query.trim().split(/\s+/)) {
    if (word === '') continue;
    if (word === '|') {
      orNext = groups.length > 0;
      continue;
    }
    const negated = word.startsWith('!') && word.length > 1;
    const term = termOf(negated ? word.slice(1) : word, negated, fold);
    if (term === null) continue;
    if (negated) {
      excluded.push(term);
      continue;
    }
    positiveLength += term.text.length;
    if (orNext) groups[groups.length - 1]!.push(term);
    else groups.push([term]);
    orNext = false;
  }
  return { groups, excluded, positiveLength };
}

function termOf(word: string, negated: boolean, fold: (text: string) => string): QueryTerm | null {
  let kind: TermKind = negated ? 'include' : 'fuzzy';
  let raw = word;
  if (raw.startsWith("'") && !negated) {
    kind = 'include';
    raw = raw.slice(1);
  } else if (raw.startsWith('^') && raw.endsWith('$') && raw.length > 2 && !negated) {
    kind = 'equal';
    raw = raw.slice(1, -1);
  } else if (raw.startsWith('^')) {
    kind = 'prefix';
    raw = raw.slice(1);
  } else if (raw.endsWith('$') && raw.length > 1) {
    kind = 'suffix';
    raw = raw.slice(0, -1);
  }
  const text = fold(raw);
  if (text === '') return null;
  return { kind, text, pattern: fusePattern(kind, text), lineStart: `\n${text}`, lineEnd: `${text}\n` };
}

/** fuse.js's own spelling of a term: quoted (its quoted forms take the text literally) and `|` escaped. */
function fusePattern(kind: TermKind, raw: string): string {
  const quoted = `"${raw.replaceAll('|', '\\|')}"`;
  switch (kind) {
    case 'fuzzy':
      return quoted;
    case 'include':
      return `'${quoted}`;
    case 'prefix':
      return `^${quoted}`;
    case 'suffix':
      return `${quoted}$`;
    case 'equal':
      return `=${quoted}`;
  }
}

/**
 * The fuse.js logical query of the positive groups: every group, each word matched against every field
 * (a string leaf is searched in all keys), so `request server` finds a title with one and a prompt with the other.
 */
export function toExpression(query: ParsedQuery): Expression {
  return { $and: query.groups.map((group): Expression => (group.length === 1 ? group[0]!.pattern : { $or: group.map((term) => term.pattern) })) };
}

/**
 * True when every session matching `next` also matches `previous`, so `previous`'s candidates can be narrowed
 * rather than the catalog walked again: `next` extends it, adds no `|`, and does not lengthen a `!` word (a
 * longer excluded word excludes less), a `word$` (`foo$` then `foo$x` is another word), or a fuzzy word to three
 * letters or more (`fold`: how the words are compared).
 */
export function narrows(previous: string, next: string, fold: (text: string) => string = (text) => text): boolean {
  if (!next.startsWith(previous)) return false;
  const before = previous.trim().split(/\s+/);
  const last = before[before.length - 1] ?? '';
  if (previous.trim() === '' || last.startsWith('!') || last.endsWith('$') || /(^|\s)\|(\s|$)/.test(next)) return false;
  // A fuzzy word of one or two letters is looked for as a substring only, one of three or more as a subsequence of a
  // short field too (search-prefilter.ts), within a window that a letter more widens, and fuse.js allows a longer
  // word more errors: `dp` then `dpl`, or `dep` then `depl`, may find sessions the shorter word did not.
  if (!/\s$/.test(previous) && !/^['^]/.test(last)) {
    const grown = next.slice(previous.length - last.length).split(/\s/)[0]!;
    if (!grown.endsWith('$') && grown !== last && fold(grown).length > 2) return false;
  }
  // The previous query must have had a word (a bare `'` or `^` matched nothing, which narrows nothing).
  return before.some((word) => word.replace(/^[!'^]+|\$$/g, '') !== '' && word !== '|');
}
