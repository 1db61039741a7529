// Snippets of sessions already known to hold a text, read when asked: the browser's content search lists what the
// native engine finds at once and reads the snippets of the rows it shows only (a common word matches thousands).
import { notConversationSources } from '../core/formats/index.js';
import type { Snippet } from '../core/io/snippet.js';
import type { Agent } from '../core/model.js';
import { GrepPool } from './grep-pool.js';
import type { GrepItem } from './grep-worker.js';

/**
 * One worker thread (grep-worker.ts) kept for one text until `close`: each `read` is a session's files read until
 * their first lines with a match are known (no count), and resolves to the snippet `grep --context` would show, or
 * null when its files no longer hold the text (or cannot be read).
 */
export class SnippetReader {
  private readonly pool: GrepPool;
  private release: () => void = () => undefined;
  private readonly waiting = new Map<number, { resolve: (snippet: Snippet | null) => void; snippet: Snippet | null }>();
  private next = 0;
  private closed = false;

  constructor(text: string, options: { readonly ignoreCase: boolean; readonly context: number }) {
    this.pool = new GrepPool(1, {
      text,
      ignoreCase: options.ignoreCase,
      count: false,
      context: options.context,
      notConversation: notConversationSources(),
      stamps: false,
    });
    // Open until closed: reads are added as rows come on screen.
    this.pool.expect(new Promise<GrepItem[]>((resolve) => (this.release = () => resolve([]))));
    const settle = (): void => {
      for (const { resolve } of this.waiting.values()) resolve(null);
      this.waiting.clear();
    };
    void this.pool
      .run({
        onMatch: (index, found) => {
          const wait = this.waiting.get(index);
          if (wait) wait.snippet = found.snippet;
        },
        // Each item asks for its lineage (sniffLineage): the worker's batch report then names it, match or not.
        onBatch: (_cwds, lineages) => {
          for (const [index] of lineages) {
            const wait = this.waiting.get(index);
            if (!wait) continue;
            this.waiting.delete(index);
            wait.resolve(wait.snippet);
          }
          return Promise.resolve([]);
        },
        onProblem: () => undefined,
      })
      .then(settle, settle);
  }

  /** The snippet of a session whose files (`paths`, an `agent`'s) hold the text. */
  read(agent: Agent, paths: readonly string[]): Promise<Snippet | null> {
    if (this.closed) return Promise.resolve(null);
    const index = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(index, { resolve, snippet: null });
      this.pool.expect(Promise.resolve([{ index, agent, paths, sniffCwd: false, sniffLineage: true }]));
    });
  }

  /** Stop: the worker ends mid-read; reads not done resolve to null. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
    this.pool.abort();
  }
}
