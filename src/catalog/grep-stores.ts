// grep in stores of many conversations (opencode's database): each conversation's text, as its adapter reads it out of
// the store, searched for the literal text as the files are.
import { describeError } from '../core/errors.js';
import { ADAPTERS } from '../core/formats/index.js';
import type { ConversationText, Problem, SessionFileGroup } from '../core/formats/types.js';
import { stripControl } from '../core/text.js';
import type { GrepFound } from './grep-pool-events.js';
import type { ScanContext } from './scan.js';

/** The conversations of stores of many (opencode's database) searched in the text their adapter reads out of each. */
export async function searchStores(
  stores: readonly SessionFileGroup[],
  text: string,
  options: { readonly ignoreCase?: boolean; readonly count?: boolean; readonly context?: number; readonly signal?: AbortSignal; readonly onProblem?: (problem: Problem) => void },
  context: ScanContext,
  onMatch: (group: SessionFileGroup, what: GrepFound) => void,
): Promise<void> {
  const search = textSearch(text, options.ignoreCase ?? false);
  for (const store of stores) {
    if (options.signal?.aborted) return;
    let texts: readonly ConversationText[];
    try {
      texts = await ADAPTERS[store.agent].store!.texts(store, context);
    } catch (error) {
      options.onProblem?.({ path: store.paths[0]!, message: describeError(error) });
      continue;
    }
    for (const conversation of texts) {
      const what = search(conversation.text, options.count ?? false, options.context ?? null);
      if (what === null) continue;
      const group: SessionFileGroup = { ...store, idHint: conversation.id };
      context.register(group, conversation.id);
      onMatch(group, what);
    }
  }
}

/**
 * A literal search in decoded text (a store's conversations): ASCII letters folded when ignoring case, as the file
 * search does. Null when the text is not there; else the count (with `count`) and a snippet around the first.
 */
function textSearch(needle: string, ignoreCase: boolean): (text: string, count: boolean, context: number | null) => GrepFound | null {
  const fold = (value: string): string => (ignoreCase ? value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : value);
  const wanted = fold(needle);
  return (text, count, context) => {
    if (wanted === '') return null;
    const haystack = fold(text);
    const first = haystack.indexOf(wanted);
    if (first === -1) return null;
    let matches = 0;
    if (count) for (let at = first; at !== -1; at = haystack.indexOf(wanted, at + wanted.length)) matches++;
    const oneLine = (value: string): string => stripControl(value).replace(/\s+/g, ' ');
    const snippet =
      context === null
        ? null
        : {
            before: oneLine(text.slice(Math.max(0, first - context), first)),
            match: oneLine(text.slice(first, first + wanted.length)),
            after: oneLine(text.slice(first + wanted.length, first + wanted.length + context)),
          };
    return { matches, snippet };
  };
}
