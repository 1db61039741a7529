// What the search indexes for one session (its folded fields) and how fuse.js reads them: shared by the index
// (search.ts), the prefilter (search-prefilter.ts) and a query's run (search-run.ts).
import Fuse, { type FuseIndex, type IFuseOptions } from 'fuse.js';
import type { CatalogSession } from './scan.js';

/** Inclusive [start, end] character ranges, as fuse.js reports them. */
export type MatchRanges = readonly (readonly [number, number])[];

export type SearchField = 'title' | 'name' | 'prompts' | 'cwd' | 'gitBranch' | 'id' | 'agent' | 'model';

export interface SearchHit {
  readonly key: string;
  /** The session object the index holds for the key (the catalog's, as of the index's last setSessions). */
  readonly session?: CatalogSession;
  /** fuse.js score: 0 is a perfect match. */
  readonly score: number;
  /** Matched characters per field (for prompts: the best-matching prompt's text and ranges). */
  readonly title?: MatchRanges;
  readonly name?: MatchRanges;
  readonly cwd?: MatchRanges;
  readonly gitBranch?: MatchRanges;
  readonly agent?: MatchRanges;
  readonly model?: MatchRanges;
  readonly id?: MatchRanges;
  readonly prompt?: { readonly text: string; readonly ranges: MatchRanges };
}

export interface SearchDoc {
  readonly key: string;
  /** fuse.js reads the fields from here (see FIELD_KEYS): the document holds no copies of them. */
  readonly session: CatalogSession;
  /**
   * The title (unless it is the first prompt) and the prompts, folded (lower case, no diacritics) and joined
   * by '\n': the prefilter's haystack for substrings. One copy of the long text per session, nothing more (once the
   * index's haystack is built, a slice of its text: search-haystack.ts).
   */
  folded: string;
  /** Where the title ends in `folded` (a first occurrence before it is a title match). */
  readonly titleEnd: number;
  /** Where the prompts start in `folded` (0 when the title is the first prompt). */
  readonly promptsStart: number;
  /** The short fields folded: shared between sessions (cwds and branches repeat), or the field itself when folding changes nothing. */
  readonly name: string;
  readonly cwd: string;
  readonly gitBranch: string;
  /** The agent's name (`qwen`) and the model, so `qwen`, `!codex`, `^claude` or `sonnet` find rows by them. */
  readonly agent: string;
  readonly model: string;
  readonly id: string;
  /**
   * Which characters the title, the name and the id hold (charsOf): a word none of whose subsequences and
   * substrings a field can hold (a character it lacks) is not looked for in it.
   */
  readonly titleChars: number;
  readonly nameChars: number;
  readonly idChars: number;
  /** The cwd, branch, agent and model as one group shared by every session that has the same four (see SharedFolds). */
  readonly group: number;
  /** Position in the catalog's order (newest first): breaks score ties. */
  order: number;
  /** Its hit while not ranked yet (see unrankedHit). */
  unranked?: SearchHit;
  /** The last setSessions that saw this session. */
  generation: number;
}

/**
 * A fuse.js key read from the document, folded (its name is what a match reports). fuse.js gets the text folded
 * once, when a record is made, instead of lowering and stripping every field for every word of every search;
 * match positions are the same (folding keeps a text's length where fuse.js's own normalising does).
 */
function fuseKey(name: SearchField, weight: number, get: (doc: SearchDoc) => string | readonly string[]) {
  return { name, weight, getFn: get };
}

export const SHORT_KEYS = [
  fuseKey('title', 3, (doc) => doc.folded.slice(0, doc.titleEnd)),
  fuseKey('name', 3, (doc) => doc.name),
  fuseKey('cwd', 1, (doc) => doc.cwd),
  fuseKey('gitBranch', 1, (doc) => doc.gitBranch),
  fuseKey('id', 1, (doc) => doc.id),
  fuseKey('agent', 1, (doc) => doc.agent),
  fuseKey('model', 1, (doc) => doc.model),
];

export const FUSE_OPTIONS: IFuseOptions<SearchDoc> = {
  keys: [...SHORT_KEYS, fuseKey('prompts', 1.5, (doc) => rankedPrompts(doc.session.prompts).map(fold))],
  includeMatches: true,
  includeScore: true,
  // Prompts are long: where in them a match sits must not matter.
  ignoreLocation: true,
  // The fields and the words are folded already (see fuseKey).
  isCaseSensitive: true,
  ignoreDiacritics: false,
  // Each word of a query is a leaf of a logical query (see toExpression): `'exact`, `^prefix`, `suffix$`.
  useExtendedSearch: true,
  threshold: 0.3,
  minMatchCharLength: 1,
  shouldSort: false,
};

/**
 * fuse.js ranks by a session's first and last prompts only: a session of 30,000 turns would otherwise cost it
 * a bitap pass over every prompt for every word (hundreds of milliseconds for one candidate). A word found
 * exactly in a prompt it does not read still matches (see SearchRun.rank): it is ranked after fuse.js's hits.
 */
export const RANKED_PROMPTS = { first: 48, last: 16 };

export function rankedPrompts(prompts: readonly string[]): readonly string[] {
  const { first, last } = RANKED_PROMPTS;
  return prompts.length <= first + last ? prompts : [...prompts.slice(0, first), ...prompts.slice(-last)];
}

/** For a query that still matches most of the catalog (one or two letters), fuse.js reads the short fields only. */
export const SHORT_OPTIONS: IFuseOptions<SearchDoc> = { ...FUSE_OPTIONS, keys: SHORT_KEYS };

export type FuseRecord = FuseIndex<SearchDoc>['records'][number];

/** Lower case without diacritics: what the prefilter compares and what fuse.js reads (see fuseKey). */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export function recordFor(options: IFuseOptions<SearchDoc>, doc: SearchDoc, slot: number): FuseRecord {
  const record = Fuse.createIndex(options.keys ?? [], [doc]).records[0]!;
  record.i = slot;
  return record;
}

/** Groups numbered across every SharedFolds of the process: a word's answers kept by group number never mix two indexes'. */
let groupsMade = 0;

/**
 * The short fields sessions share, folded once: cwds, branches, agents and models repeat, and each four of them is
 * one group (a word is looked for in a group's fields once, not once per session: search-prefilter.ts).
 */
export class SharedFolds {
  private readonly folds = new Map<string, string>();
  private readonly groups = new Map<string, number>();

  fold(text: string | null): string {
    if (!text) return '';
    let folded = this.folds.get(text);
    if (folded === undefined) {
      folded = foldOrSame(text);
      this.folds.set(text, folded);
    }
    return folded;
  }

  /** The group of these four folded fields (none holds a NUL: `\0` joins them). */
  groupOf(cwd: string, gitBranch: string, agent: string, model: string): number {
    const key = `${cwd}\0${gitBranch}\0${agent}\0${model}`;
    let group = this.groups.get(key);
    if (group === undefined) {
      group = groupsMade++;
      this.groups.set(key, group);
    }
    return group;
  }
}

/** How many groups were ever made (a group's number is below it). */
export function groupCount(): number {
  return groupsMade;
}

/**
 * Which characters a text (its first `end`) holds, as bits: one per letter a–z, one for the digits, and every
 * other character one of three bits by its code. A text that holds a word (or any subsequence of it) has every one
 * of the word's bits: a text lacking one cannot, and is not looked at (30 bits: a small integer).
 */
export function charsOf(text: string, end = text.length): number {
  let chars = 0;
  for (let i = 0; i < end; i++) chars |= charBit(text.charCodeAt(i));
  return chars;
}

export function charBit(code: number): number {
  return code >= 97 && code <= 122 ? 1 << (code - 97) : code >= 48 && code <= 57 ? 1 << 26 : 1 << (27 + (code % 3));
}

export function toDoc(session: CatalogSession, key: string, order: number, shared: SharedFolds): SearchDoc {
  const { title, prompts } = session;
  // A title that is the first prompt (most are) is not stored twice: it is the start of the folded prompts.
  const titleIsPrompt = prompts.length > 0 && prompts[0] === title;
  const foldedPrompts = fold(prompts.join('\n'));
  const titleEnd = titleIsPrompt ? fold(title).length : 0;
  const folded = titleIsPrompt ? foldedPrompts : `${fold(title)}\n${foldedPrompts}`;
  const name = session.name ? foldOrSame(session.name) : '';
  const id = foldOrSame(session.id);
  // Another machine's rows are found by its name too (`devbox`), as the row shows it: host:cwd.
  const cwd = shared.fold(session.host === undefined ? session.cwd : `${session.host}:${session.cwd ?? ''}`);
  const gitBranch = shared.fold(session.gitBranch);
  const agent = shared.fold(session.agent);
  const model = shared.fold(session.model);
  const end = titleIsPrompt ? titleEnd : folded.length - foldedPrompts.length - 1;
  return {
    key,
    session,
    folded,
    titleEnd: end,
    promptsStart: titleIsPrompt ? 0 : folded.length - foldedPrompts.length,
    name,
    cwd,
    gitBranch,
    agent,
    model,
    id,
    titleChars: charsOf(folded, end),
    nameChars: charsOf(name),
    idChars: charsOf(id),
    group: shared.groupOf(cwd, gitBranch, agent, model),
    order,
    generation: 0,
  };
}

/** `fold(text)`, or `text` itself when folding does not change it (no second copy of an id that is already lower case). */
function foldOrSame(text: string): string {
  const folded = fold(text);
  return folded === text ? text : folded;
}
