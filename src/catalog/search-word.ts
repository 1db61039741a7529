// What the prefilter asks of one word of a query in every document (search-prefilter.ts), and the answers it keeps
// with the word: the fields sessions share are asked once per group of them, not once per session.
import { charBit, charsOf, groupCount, type SearchDoc } from './search-doc.js';
import { fuseTest, fuzzyErrors } from './search-bitap.js';
import type { QueryTerm } from './search-query.js';

/** True when every character of `needle` appears in `haystack` in order (both folded). */
export function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (const char of needle) {
    at = haystack.indexOf(char, at);
    if (at < 0) return false;
    at += char.length;
  }
  return true;
}

/**
 * True when `needle` is a subsequence of `haystack` (of its first `end` characters) within a window of at most twice
 * its length (plus two): `apihlth` in `api-health`, but not `rate` strewn over a long path — fuse.js would not match
 * that either.
 */
export function isCompactSubsequence(needle: string, haystack: string, end = haystack.length): boolean {
  const maxSpan = needle.length * 2 + 2;
  const first = needle[0]!;
  for (let start = haystack.indexOf(first); start !== -1 && start < end; start = haystack.indexOf(first, start + 1)) {
    let at = start + 1;
    let ok = true;
    for (let i = 1; i < needle.length; i++) {
      at = haystack.indexOf(needle[i]!, at);
      if (at === -1 || at >= end) return false; // no later start can succeed either
      if (at - start >= maxSpan) {
        ok = false;
        break;
      }
      at++;
    }
    if (ok) return true;
  }
  return false;
}

/** What a query's word is asked about every document, kept with the word (a query's words are made per search). */
export interface WordFacts {
  readonly term: QueryTerm;
  readonly text: string;
  /** The word's characters (charsOf). */
  readonly chars: number;
  /** The word less one letter, each different one once (withinOneDeletion), made when first asked. */
  variants: readonly { readonly text: string; readonly chars: number }[] | null;
  /** Per group of shared fields (SearchDoc.group): which questions were asked of it, and the answers (two bits a question). */
  answers: Uint8Array;
}

const words = new WeakMap<QueryTerm, WordFacts>();

export function wordOf(term: QueryTerm): WordFacts {
  let word = words.get(term);
  if (word === undefined) {
    word = { term, text: term.text, chars: charsOf(term.text), variants: null, answers: new Uint8Array(groupCount()) };
    words.set(term, word);
  }
  return word;
}

/** Questions asked of a group of shared fields: whether one of them holds the word, as a compact subsequence, less one letter, as fuse.js tests it. */
export const HOLDS = 1;
export const COMPACT = 4;
export const NEAR = 16;
export const FUSE = 64;

/** The answer to `question` for the shared fields of `doc`, asked once a group. */
export function groupAnswer(word: WordFacts, doc: SearchDoc, question: number): boolean {
  const { group } = doc;
  if (group >= word.answers.length) {
    const grown = new Uint8Array(Math.max(group + 1, groupCount(), word.answers.length * 2));
    grown.set(word.answers);
    word.answers = grown;
  }
  const known = word.answers[group]!;
  if ((known & question) !== 0) return (known & (question << 1)) !== 0;
  const fields = [doc.cwd, doc.gitBranch, doc.agent, doc.model];
  let answer: boolean;
  if (question === HOLDS) answer = fields.some((field) => field.includes(word.text));
  else if (question === COMPACT) answer = fields.some((field) => isCompactSubsequence(word.text, field));
  else if (question === NEAR) answer = variantsOf(word).some((variant) => fields.some((field) => field.includes(variant.text)));
  else answer = fields.some((field) => field.trim().length > 0 && fuseTest(word.term)(field));
  word.answers[group] = known | question | (answer ? question << 1 : 0);
  return answer;
}

/**
 * Whether a field holding these characters (charsOf) may pass fuse.js's test of the word: every character of an exact
 * word (`'word`, `^word`, `word$`), and for a fuzzy one no more positions of a character it lacks than fuse.js allows
 * errors (each is an edit). A fuzzy word longer than one of fuse.js's chunks is always tested.
 */
export function mayMatch(word: WordFacts, fieldChars: number): boolean {
  const { chars, text } = word;
  if ((fieldChars & chars) === chars) return true;
  if (word.term.kind !== 'fuzzy') return false;
  const errors = fuzzyErrors(text.length);
  if (errors === null) return true;
  let missing = 0;
  for (let i = 0; i < text.length; i++) if ((fieldChars & charBit(text.charCodeAt(i))) === 0 && ++missing > errors) return false;
  return true;
}

/** The word less one letter, each different one once (a doubled letter gives one). */
export function variantsOf(word: WordFacts): readonly { readonly text: string; readonly chars: number }[] {
  if (word.variants === null) {
    const { text } = word;
    const variants: { text: string; chars: number }[] = [];
    for (let i = 0; i < text.length; i++) {
      if (i > 0 && text[i] === text[i - 1]) continue; // the same variant as the one before
      const variant = text.slice(0, i) + text.slice(i + 1);
      variants.push({ text: variant, chars: charsOf(variant) });
    }
    word.variants = variants;
  }
  return word.variants;
}
