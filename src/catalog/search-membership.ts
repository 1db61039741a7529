// Whether fuse.js keeps a document for a query, decided without fuse.js: the same tests on the same folded fields,
// and for a fuzzy word fuse.js's own bitap recurrence, asked only "is there a match" (no score, no match ranges).
// The prefilter's unsure candidates are decided here as the catalog is walked, so the number of matches is known
// when the walk is over, however many of them fuse.js has yet to rank.
import { fold, RANKED_PROMPTS, rankedPrompts, type SearchDoc } from './search-doc.js';
import { fuseTest } from './search-bitap.js';
import type { ParsedQuery, QueryTerm } from './search-query.js';
import { FUSE, groupAnswer, mayMatch, wordOf, type WordFacts } from './search-word.js';

export { fuzzyTest } from './search-bitap.js';
/**
 * True when fuse.js, reading the fields FUSE_OPTIONS (or SHORT_OPTIONS when `broad`) gives it, keeps `doc` for the
 * query's positive words: every group has a word that matches some field (fuse.js's $and of $or leaves, each leaf
 * tried in every key; blank fields are not indexed). Excluded words are the prefilter's to decide.
 */
export function fuseKeeps(doc: SearchDoc, query: ParsedQuery, broad: boolean): boolean {
  let prompts: string[] | null = null;
  for (const group of query.groups) {
    let kept = false;
    for (const term of group) {
      const word = wordOf(term);
      if (shortFieldsKeep(doc, word)) {
        kept = true;
        break;
      }
      if (broad || !promptsMayKeep(doc, term)) continue;
      const test = fuseTest(term);
      prompts ??= rankedPrompts(doc.session.prompts).map(fold);
      if (prompts.some((prompt) => !isBlank(prompt) && test(prompt))) {
        kept = true;
        break;
      }
    }
    if (!kept) return false;
  }
  return true;
}

/**
 * Whether fuse.js's test of the word keeps one of the short fields (SHORT_KEYS' values). A field lacking more of the
 * word's characters than fuse.js allows errors is not tested; the shared fields are tested once a group.
 */
function shortFieldsKeep(doc: SearchDoc, word: WordFacts): boolean {
  const test = fuseTest(word.term);
  return (
    (mayMatch(word, doc.titleChars) && keeps(test, doc.folded.slice(0, doc.titleEnd))) ||
    (mayMatch(word, doc.nameChars) && keeps(test, doc.name)) ||
    (mayMatch(word, doc.idChars) && keeps(test, doc.id)) ||
    groupAnswer(word, doc, FUSE)
  );
}

function keeps(test: (text: string) => boolean, field: string): boolean {
  return !isBlank(field) && test(field);
}

/**
 * False when no prompt fuse.js reads can match the word, told from the joined prompts without folding each: they
 * are `folded` from `promptsStart`, each folded alike (folding never reaches across the line break between two), so
 * a prompt that holds the word makes the joined text hold it, and a fuzzy match in a prompt is one in any text
 * around it (bitap's registers only gain bits from more text). Only when fuse.js reads every prompt (RANKED_PROMPTS)
 * is a fuzzy word tested so: one pass over a 30,000-turn session's text would cost more than its 64 prompts.
 */
function promptsMayKeep(doc: SearchDoc, term: QueryTerm): boolean {
  const { folded, promptsStart } = doc;
  if (term.kind !== 'fuzzy') return folded.indexOf(term.text, promptsStart) !== -1;
  if (doc.session.prompts.length > RANKED_PROMPTS.first + RANKED_PROMPTS.last) return true;
  return fuseTest(term)(folded.slice(promptsStart));
}

/** fuse.js indexes no blank string (createIndex skips them). */
function isBlank(text: string): boolean {
  return text.trim().length === 0;
}
