import { useEffect, useRef, useState, type Dispatch } from 'react';
import type { Snippet } from '../../core/io/snippet.js';
import { sessionKey } from '../../core/model.js';
import { listGeometry, noticeRows } from '../geometry.js';
import type { Action } from '../reducer.js';
import type { TuiServices } from '../services.js';
import { contentQuery, type BrowserState } from '../state.js';

/** Snippets read for the rows on screen are handed to the reducer together, at most this often (each hand-over is a frame: while a search runs, ten frames cost its UI thread ~150 ms at 10k sessions). */
const SNIPPET_BATCH_MS = 100;

/**
 * While the engine searches, no snippet is read unless the list moves or the search runs this long: the reader's worker
 * thread boots a Node realm (~0.3 s of CPU) and reads on the two cores the engine and the UI thread share (a 10k
 * search took 2.4–3.3× rg with it booting meanwhile). Its rows are listed at once; their snippets follow when it ends.
 */
export const SNIPPETS_DURING_SEARCH_AFTER_MS = 2000;

type Reader = ReturnType<NonNullable<TuiServices['contentSnippets']>>;

/**
 * Content search lists the sessions the native engine finds without reading their snippets (a common word matches
 * thousands): the snippets of the rows on screen are read here, as rows come into view, and handed over as
 * `contentSnippets` actions. One reader per searched text, closed when the text changes.
 */
export function useContentSnippets(services: TuiServices, state: BrowserState, dispatch: Dispatch<Action>): void {
  const text = contentQuery(state.query);
  const reader = useRef<{ readonly text: string; readonly reader: Reader; readonly asked: Set<string> } | null>(null);

  useEffect(
    () => () => {
      reader.current?.reader.close();
      reader.current = null;
    },
    [text],
  );

  const { content, rows, listTop, selected, size, notice } = state;
  /** Where the list stood when this search's first sessions came, and whether it has moved since or the wait is over. */
  const waiting = useRef<{ readonly listTop: number; readonly selected: number; ready: boolean } | null>(null);
  const [, wake] = useState(0);
  const searching = content !== null && content.query === text && !content.done;
  if (searching && waiting.current === null) waiting.current = { listTop, selected, ready: false };
  if (!searching) waiting.current = null;
  const wait = waiting.current;
  if (wait && (wait.listTop !== listTop || wait.selected !== selected)) wait.ready = true;
  const holding = wait !== null && !wait.ready;
  useEffect(() => {
    if (!holding || !wait) return;
    const timer = setTimeout(() => {
      wait.ready = true;
      wake((n) => n + 1);
    }, SNIPPETS_DURING_SEARCH_AFTER_MS);
    return () => clearTimeout(timer);
  }, [holding, wait]);

  useEffect(() => {
    if (text === null || content?.query !== text || !services.contentSnippets || holding) return;
    if (reader.current?.text !== text) reader.current = { text, reader: services.contentSnippets(text), asked: new Set() };
    const current = reader.current;
    const { listHeight } = listGeometry(size, noticeRows(notice, size.columns));
    let batch: (readonly [string, Snippet])[] = [];
    let timer: NodeJS.Timeout | null = null;
    const flush = (): void => {
      timer = null;
      if (batch.length > 0) dispatch({ type: 'contentSnippets', query: text, snippets: batch });
      batch = [];
    };
    for (const row of rows.slice(listTop, listTop + listHeight)) {
      // A host's hits come with theirs (its own grep, or its mirror's search).
      if (!row.content || row.content.snippet !== null || row.content.host !== undefined) continue;
      const key = sessionKey(row.session);
      if (current.asked.has(key)) continue;
      current.asked.add(key);
      void current.reader.read(row.session, row.content.paths).then((snippet) => {
        if (snippet === null || reader.current !== current) return;
        batch.push([key, snippet]);
        timer ??= setTimeout(flush, SNIPPET_BATCH_MS);
      });
    }
  }, [services, text, content, rows, listTop, size, notice, dispatch, holding]);
}
