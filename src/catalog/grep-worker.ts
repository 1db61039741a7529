// A full-text search worker: searches the files it is handed, posting each match as soon as it is found.
import { parentPort, workerData } from 'node:worker_threads';
import { ADAPTERS } from '../core/formats/index.js';
import { compileTextSearch, fileContainsSync, searchBuffer } from '../core/io/contains.js';
import type { Agent } from '../core/model.js';
import { claudeRootInHead, cwdInHead, SUMMARY_HEAD_BYTES } from './grep-heads.js';

export interface GrepWorkerData {
  readonly text: string;
  readonly ignoreCase: boolean;
}

/** One session's files, and what to pick out of their heads for the catalog (see `cwdInHead`, `claudeRootInHead`). */
export interface GrepItem {
  readonly index: number;
  /** Whose files: its adapter says which lines are never conversation text. */
  readonly agent: Agent;
  readonly paths: readonly string[];
  readonly sniffCwd: boolean;
  readonly sniffLineage: boolean;
}

export type GrepRequest = { readonly kind: 'work'; readonly items: readonly GrepItem[] } | { readonly kind: 'stop' };

export type GrepMessage =
  | { readonly kind: 'match'; readonly index: number }
  | { readonly kind: 'problem'; readonly path: string; readonly message: string }
  /**
   * A batch is done: the cwds seen in its files' heads (not yet reported by this worker), and the root message
   * uuid of each item that asked for it (null: not in the head).
   */
  | { readonly kind: 'idle'; readonly cwds: readonly string[]; readonly lineages: readonly (readonly [index: number, lineage: string | null])[] };

if (parentPort) {
  const port = parentPort;
  const job = workerData as GrepWorkerData;
  const search = compileTextSearch(job.text, { ignoreCase: job.ignoreCase });
  const buffer = searchBuffer(search);
  const reported = new Set<string>();
  const skipLine = Object.fromEntries(
    Object.entries(ADAPTERS).map(([agent, adapter]) => [agent, adapter.isNonConversationLine?.bind(adapter)]),
  ) as Record<Agent, ((opening: string) => boolean) | undefined>;
  port.on('message', (request: GrepRequest) => {
    if (request.kind === 'stop') {
      port.close();
      return;
    }
    const cwds: string[] = [];
    const lineages: [number, string | null][] = [];
    for (const item of request.items) {
      let wanted = item.sniffCwd;
      let lineage: string | null = null;
      let first = true;
      const onHead = (chunk: Buffer): void => {
        const head = chunk.subarray(0, SUMMARY_HEAD_BYTES);
        if (first && item.sniffLineage) lineage = claudeRootInHead(head);
        first = false;
        if (!wanted) return;
        const cwd = cwdInHead(head);
        if (cwd === null) return;
        wanted = false;
        if (!reported.has(cwd)) {
          reported.add(cwd);
          cwds.push(cwd);
        }
      };
      for (const path of item.paths) {
        try {
          if (fileContainsSync(path, search, buffer, onHead, skipLine[item.agent])) {
            port.postMessage({ kind: 'match', index: item.index } satisfies GrepMessage);
            break;
          }
        } catch (error) {
          port.postMessage({ kind: 'problem', path, message: error instanceof Error ? error.message : String(error) } satisfies GrepMessage);
        }
      }
      if (item.sniffLineage) lineages.push([item.index, lineage]);
    }
    port.postMessage({ kind: 'idle', cwds, lineages } satisfies GrepMessage);
  });
}
