// grep's last step: forks that hold their early turns in the parent's file (FormatAdapter.inheritedHistory) match by
// the text of those turns. Only the forks of sessions that matched are searched, in the part of the parent's files
// they inherit, once the search of every file is done.
import { closeSync, readSync } from 'node:fs';
import { describeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import { INHERITED_HEAD_BYTES, type InheritedBase, type InheritedHistory, type Problem, type SessionFileGroup } from '../core/formats/types.js';
import { compileTextSearch, fileMatchesSync, searchBuffer } from '../core/io/contains.js';
import { openRegularSync } from '../core/io/regular.js';
import { firstSnippet, type Snippet } from '../core/io/snippet.js';
import { localSessionKey } from '../core/model.js';
import type { CatalogCache } from './cache.js';
import type { GrepFound } from './grep-pool-events.js';
import { idHintOf } from './grep-rows.js';

export interface InheritedSearch {
  readonly text: string;
  readonly ignoreCase: boolean;
  readonly count: boolean;
  readonly context: number | null;
  /** The adapters' `notConversation` patterns, joined (a snippet prefers conversation text). */
  readonly notConversation: RegExp | null;
}

/**
 * The groups that match only by what they inherit: for each, the matches and snippet of the inherited part (the
 * parent's, and the grandparent's for a fork of a fork). `matched` holds every group that matched in its own files.
 */
export async function inheritedMatches(
  groups: readonly SessionFileGroup[],
  matched: ReadonlyMap<number, GrepFound>,
  search: InheritedSearch,
  loadCache: (() => Promise<CatalogCache | undefined>) | undefined,
  report: (problem: Problem) => void,
  /** A group's inherited part, when the caller knows it (the browser's catalog): then no head or cache is looked at. */
  knownBase?: (index: number) => InheritedBase | null,
): Promise<{ readonly index: number; readonly found: GrepFound }[]> {
  const capable = (group: SessionFileGroup): InheritedHistory | undefined => ADAPTERS[group.agent].inheritedHistory;
  if (![...matched.keys()].some((index) => capable(groups[index]!) !== undefined)) return [];
  const cache = loadCache === undefined ? undefined : await loadCache().catch(() => undefined);
  // The groups by the id their file names suggest, made once a fork asks for its parent (a common word's forks at 100k
  // sessions are often none: 100k groups were indexed for them, ~0.18 s at load 9).
  let byId: Map<string, number> | null = null;
  const parentOf = (agent: SessionFileGroup['agent'], id: string): number | undefined => {
    if (byId === null) {
      const made = new Map<string, number>();
      groups.forEach((group, index) => {
        const hint = capable(group) === undefined ? null : idHintOf(group);
        if (hint !== null && !made.has(localSessionKey(group.agent, hint))) made.set(localSessionKey(group.agent, hint), index);
      });
      byId = made;
    }
    return byId.get(localSessionKey(agent, id));
  };
  const compiled = compileTextSearch(search.text, { ignoreCase: search.ignoreCase });
  const buffer = searchBuffer(compiled);

  const bases = new Map<number, InheritedBase | null>();
  /** A group's inherited part: a cached row that is no fork has none; else its head and header say. */
  const baseOf = (index: number): InheritedBase | null => {
    if (bases.has(index)) return bases.get(index)!;
    const group = groups[index]!;
    const history = capable(group);
    let base: InheritedBase | null = null;
    try {
      if (knownBase !== undefined) {
        base = knownBase(index);
        bases.set(index, base);
        return base;
      }
      const cached = cache?.lookupUnchanged(group.paths);
      const mayBeFork = cached !== undefined ? (cached.session?.forkedFrom ?? null) !== null : history !== undefined && history.mayInherit(headOf(group.paths[0]!));
      if (history !== undefined && mayBeFork) base = history.base(group);
    } catch (error) {
      report({ path: group.paths[0] ?? group.root, message: describeError(error) });
    }
    bases.set(index, base);
    return base;
  };

  /** What a group inherits of the text, null when nothing (memoised; a cycle of bases inherits nothing). */
  const inheritedOf = new Map<number, GrepFound | null>();
  const inherited = (index: number, visiting: Set<number>): GrepFound | null => {
    if (inheritedOf.has(index)) return inheritedOf.get(index)!;
    if (visiting.has(index)) return null;
    visiting.add(index);
    const base = baseOf(index);
    const group = groups[index]!;
    const parent = base === null ? undefined : parentOf(group.agent, base.parentId);
    let found: GrepFound | null = null;
    if (base !== null && parent !== undefined) {
      // The parent's own part (only where its files matched at all), after what the parent itself inherits.
      const before = inherited(parent, visiting);
      const own = matched.has(parent) ? searchPart(groups[parent]!, base.endByteOffset) : null;
      found = combine(before, own);
    }
    visiting.delete(index);
    inheritedOf.set(index, found);
    return found;
  };

  const searchPart = (parent: SessionFileGroup, end: number): GrepFound | null => {
    const skip = ADAPTERS[parent.agent].isNonConversationLine?.bind(ADAPTERS[parent.agent]);
    let matches = 0;
    let snippet: Snippet | null = null;
    for (const [at, path] of parent.paths.entries()) {
      try {
        const part = fileMatchesSync(path, compiled, buffer, undefined, skip, at === parent.paths.length - 1 ? end : Infinity);
        matches += part.count;
        if (snippet === null && search.context !== null && part.places.length > 0) snippet = firstSnippet(path, part.places, search.context, search.notConversation);
        if (part.count > 0 && !search.count && search.context === null) break;
      } catch (error) {
        report({ path, message: describeError(error) });
      }
    }
    return matches === 0 ? null : { matches: search.count ? matches : 0, snippet, inherited: true };
  };

  const out: { index: number; found: GrepFound }[] = [];
  groups.forEach((group, index) => {
    if (matched.has(index) || capable(group) === undefined) return;
    const found = inherited(index, new Set());
    if (found !== null) out.push({ index, found });
  });
  return out;
}

function combine(first: GrepFound | null, second: GrepFound | null): GrepFound | null {
  if (first === null) return second;
  if (second === null) return first;
  return { matches: first.matches + second.matches, snippet: first.snippet ?? second.snippet, inherited: true };
}

function headOf(path: string): Buffer {
  const head = Buffer.alloc(INHERITED_HEAD_BYTES);
  const fd = openRegularSync(path);
  try {
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}
