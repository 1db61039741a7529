// The prefilter: which sessions can match a query's words (and how strongly), decided on the folded fields
// before fuse.js scores any of them.
import type { ParsedQuery, QueryTerm } from './search-query.js';
import { RANKED_PROMPTS, type SearchDoc } from './search-doc.js';
import { COMPACT, groupAnswer, HOLDS, isCompactSubsequence, NEAR, variantsOf, wordOf, type WordFacts } from './search-word.js';

export { isCompactSubsequence, isSubsequence } from './search-word.js';

/** What a run knows of one plain word (fuzzy or `'exact`) before the walk. */
export interface TermFacts {
  /** Where the word first occurs in each document's `folded`, by slot, or -1 (its sweep of the haystack: search-haystack.ts); null: ask each document. */
  readonly foldedAt: Int32Array | null;
  readonly word: WordFacts;
}

/** Added to a tier when fuse.js may still reject the candidate (see matchTier). */
export const UNSURE = 4;
/** Returned for a candidate fuse.js cannot keep: kept to narrow the next query, never ranked nor counted. */
export const NEVER = 8;

/**
 * How a document passes the prefilter, or -1: the weakest of its groups' tiers (a group: the best of its words),
 * or -1 when a group does not match or an excluded word does. fuse.js has the last word on the positive words;
 * excluded words are decided here (fuse.js would let one field without the word pass).
 *
 * Plus UNSURE when fuse.js may still reject it, or NEVER when it cannot keep it. A word found exactly in a field
 * fuse.js reads is a match fuse.js always keeps (an exact substring scores 0; `'word`, `^word`, `word$`,
 * `^word$` are exact tests of the same folded fields); a compact subsequence or a prompt's line start or end
 * (fuse.js tests whole prompts) may be rejected. fuse.js allows errors/length ≤ 0.3 (threshold, no location),
 * so a word of three letters or fewer matches exactly or not at all: its subsequences never match, nor do
 * prompts when fuse.js reads the short fields only (`broad`). Sure candidates are counted at once; the unsure
 * ones are decided by fuseKeeps (search-membership.ts) as the walk meets them.
 */
export function matchTier(doc: SearchDoc, query: ParsedQuery, broad: boolean, slot = -1, swept?: ReadonlyMap<QueryTerm, TermFacts>): number {
  for (const term of query.excluded) if (termTier(doc, term, slot, swept) >= 0) return -1;
  let tier = 0;
  let status = SURE_TERM;
  for (const group of query.groups) {
    let best = -1;
    let groupStatus = NEVER_TERM;
    for (const term of group) {
      const one = termTier(doc, term, slot, swept);
      if (one < 0) continue;
      if (best < 0 || one < best) best = one;
      let oneStatus = termStatus(one, term, broad);
      if (oneStatus === MAYBE_TERM && !broad && term.kind === 'fuzzy' && withinOneDeletion(doc, term)) oneStatus = SURE_TERM;
      groupStatus = Math.min(groupStatus, oneStatus);
      if (best === 0) break;
    }
    if (best < 0) return -1;
    tier = Math.max(tier, best);
    status = Math.max(status, groupStatus);
  }
  return status === SURE_TERM ? tier : status === MAYBE_TERM ? tier + UNSURE : tier + NEVER;
}

const SURE_TERM = 0;
const MAYBE_TERM = 1;
const NEVER_TERM = 2;

/** Whether fuse.js keeps a word matched at this tier (see matchTier). */
function termStatus(tier: number, term: QueryTerm, broad: boolean): number {
  if (tier <= 1) return SURE_TERM;
  const exactOnly = term.text.length <= 3;
  if (tier === 2) {
    if (broad) return exactOnly ? NEVER_TERM : MAYBE_TERM;
    return term.kind === 'fuzzy' || term.kind === 'include' ? SURE_TERM : MAYBE_TERM;
  }
  return exactOnly ? NEVER_TERM : MAYBE_TERM;
}

/**
 * Whether a fuzzy word of four letters or more, missing one of its letters, is found exactly in a field fuse.js
 * reads: one error in four or more letters is within fuse.js's threshold (errors / length ≤ 0.3, location
 * ignored), so fuse.js keeps the document whatever else it scores. A candidate that passes needs no bitap pass
 * (fuseKeeps): `plea` over 100k sessions had 67k such candidates (`ple`, `pla` are everywhere). Only when fuse.js reads every
 * prompt (see RANKED_PROMPTS); patterns longer than fuse.js's 32-letter chunks are left to fuse.js.
 */
function withinOneDeletion(doc: SearchDoc, term: QueryTerm): boolean {
  const token = term.text;
  if (token.length < 4 || token.length > 32) return false;
  if (doc.session.prompts.length > RANKED_PROMPTS.first + RANKED_PROMPTS.last) return false;
  const word = wordOf(term);
  for (const { text, chars } of variantsOf(word)) {
    if (doc.folded.includes(text) || ((doc.nameChars & chars) === chars && doc.name.includes(text)) || ((doc.idChars & chars) === chars && doc.id.includes(text))) return true;
  }
  return groupAnswer(word, doc, NEAR);
}

/**
 * How one word matches: 0 in the title or name, 1 in another short field, 2 in the prompts, 3 (fuzzy words
 * only) as a compact subsequence of a short field; -1 not at all. Where the word is (or is not) found, `swept`
 * may know already for `slot` (the haystack's answer for the whole catalog: search-haystack.ts).
 */
function termTier(doc: SearchDoc, term: QueryTerm, slot: number, swept: ReadonlyMap<QueryTerm, TermFacts> | undefined): number {
  if (term.kind === 'fuzzy' || term.kind === 'include') {
    const token = term.text;
    const facts = swept?.get(term);
    const word = facts?.word ?? wordOf(term);
    const { chars } = word;
    // `folded` is the title then the prompts: where the first occurrence falls tells which.
    const at = facts?.foldedAt ? facts.foldedAt[slot]! : doc.folded.indexOf(token);
    if (at !== -1 && at < doc.titleEnd) return 0;
    // A field lacking one of the word's characters holds neither it nor any subsequence of it: not asked.
    if ((doc.nameChars & chars) === chars && doc.name.includes(token)) return 0;
    if (((doc.idChars & chars) === chars && doc.id.includes(token)) || groupAnswer(word, doc, HOLDS)) return 1;
    if (at !== -1) return 2;
    // Gaps in a one- or two-letter token find nearly anything: only longer tokens may be subsequences.
    if (term.kind === 'fuzzy' && token.length > 2 && inShortField(doc, word)) return 3;
    return -1;
  }
  const short = (field: string): boolean => field !== '' && fieldMatches(term, field);
  if (titleMatches(doc, term) || short(doc.name)) return 0;
  if (short(doc.cwd) || short(doc.gitBranch) || short(doc.id) || short(doc.agent) || short(doc.model)) return 1;
  return promptsMatch(doc, term) ? 2 : -1;
}

function fieldMatches(term: QueryTerm, field: string): boolean {
  switch (term.kind) {
    case 'prefix':
      return field.startsWith(term.text);
    case 'suffix':
      return field.endsWith(term.text);
    case 'equal':
      return field === term.text;
    default:
      return field.includes(term.text);
  }
}

/** The title is `folded`'s first `titleEnd` characters. */
function titleMatches(doc: SearchDoc, term: QueryTerm): boolean {
  const { folded, titleEnd } = doc;
  const { text } = term;
  if (text.length > titleEnd) return false;
  if (term.kind === 'prefix') return folded.startsWith(text);
  if (term.kind === 'suffix') return folded.startsWith(text, titleEnd - text.length);
  return titleEnd === text.length && folded.startsWith(text);
}

/**
 * A prompt starts or ends with the word (or is it): the prompts are joined by `\n` in `folded`. A prompt's own
 * line breaks count as starts and ends too: more candidates than fuse.js keeps, never fewer.
 */
function promptsMatch(doc: SearchDoc, term: QueryTerm): boolean {
  const { folded, promptsStart } = doc;
  if (promptsStart >= folded.length) return false;
  const starts = (): boolean => folded.startsWith(term.text, promptsStart) || folded.indexOf(term.lineStart, promptsStart) !== -1;
  const ends = (): boolean => folded.endsWith(term.text) || folded.indexOf(term.lineEnd, promptsStart) !== -1;
  if (term.kind === 'prefix') return starts();
  if (term.kind === 'suffix') return ends();
  return starts() && ends();
}

/**
 * A compact subsequence of one of the short fields, folded (the title: `folded`'s first `titleEnd` characters). The
 * fields sessions share (cwd, branch, agent, model: one group for all who have the same four) are asked once a group.
 */
function inShortField(doc: SearchDoc, word: WordFacts): boolean {
  const { text, chars } = word;
  return (
    ((doc.titleChars & chars) === chars && isCompactSubsequence(text, doc.folded, doc.titleEnd)) ||
    ((doc.nameChars & chars) === chars && isCompactSubsequence(text, doc.name)) ||
    ((doc.idChars & chars) === chars && isCompactSubsequence(text, doc.id)) ||
    groupAnswer(word, doc, COMPACT)
  );
}

