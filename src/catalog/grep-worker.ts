// A full-text search worker: searches the files it is handed, posting each match as soon as it is found.
import { parentPort, workerData } from 'node:worker_threads';
import { ADAPTERS } from '../core/formats/index.js';
import { compileTextSearch, fileContainsSync, fileMatchesSync, searchBuffer } from '../core/io/contains.js';
import { firstSnippet, notConversationPattern, type Snippet } from '../core/io/snippet.js';
import type { Agent } from '../core/model.js';
import { cwdInHead, SUMMARY_HEAD_BYTES } from '../core/io/heads.js';
import { FINGERPRINT_BYTES, fingerprintOf, headFingerprint } from '../core/io/lines.js';
import { statSync, type Stats } from 'node:fs';

export interface GrepWorkerData {
  readonly text: string;
  readonly ignoreCase: boolean;
  /** Count every match (the files of a matching session are read to their end, not to the first match). */
  readonly count: boolean;
  /** Characters of text each side of the first match, for a snippet; null: no snippet. */
  readonly context: number | null;
  /** The adapters' `notConversation` patterns (sources): a snippet prefers a match in conversation text. */
  readonly notConversation: readonly string[];
  /** Send the stamps of matching sessions' files and of every file whose lineage was asked for (for a cache lookup). */
  readonly stamps: boolean;
}

/** A file's size, mtime and fingerprint of its first bytes when it was opened (a catalog cache stamp, path aside). */
export type GrepStamp = readonly [size: number, mtimeMs: number, fingerprint: string];

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
  /**
   * `matches`: how many times the text occurs in the session's files (0 when not counted); `snippet`: around the
   * first; `stamps`: of each of its files, in order (null when not asked for or a file could not be stamped).
   */
  | { readonly kind: 'match'; readonly index: number; readonly matches: number; readonly snippet: Snippet | null; readonly stamps: readonly GrepStamp[] | null }
  | { readonly kind: 'problem'; readonly path: string; readonly message: string }
  /**
   * A batch is done: the cwds seen in its files' heads (not yet reported by this worker), and the root message
   * uuid of each item that asked for it (null: not in the head), with its files' stamps (as in `match`).
   */
  | {
      readonly kind: 'idle';
      readonly cwds: readonly string[];
      readonly lineages: readonly (readonly [index: number, lineage: string | null, stamps: readonly GrepStamp[] | null])[];
    };

/** Every file's stamp: those taken as the search opened them, the others (after a first match) taken now; null on a failure. */
function allStamps(paths: readonly string[], taken: readonly (GrepStamp | undefined)[]): GrepStamp[] | null {
  const stamps: GrepStamp[] = [];
  for (const [at, path] of paths.entries()) {
    let stamp = taken[at];
    if (stamp === undefined) {
      try {
        const info = statSync(path);
        if (!info.isFile()) return null;
        stamp = [info.size, info.mtimeMs, headFingerprint(path)];
      } catch {
        return null;
      }
    }
    stamps.push(stamp);
  }
  return stamps;
}

if (parentPort) {
  const port = parentPort;
  const job = workerData as GrepWorkerData;
  const search = compileTextSearch(job.text, { ignoreCase: job.ignoreCase });
  const buffer = searchBuffer(search);
  const reported = new Set<string>();
  const skipLine = Object.fromEntries(
    Object.entries(ADAPTERS).map(([agent, adapter]) => [agent, adapter.isNonConversationLine?.bind(adapter)]),
  ) as Record<Agent, ((opening: string) => boolean) | undefined>;
  const notConversation = notConversationPattern(job.notConversation);
  port.on('message', (request: GrepRequest) => {
    if (request.kind === 'stop') {
      port.close();
      return;
    }
    const cwds: string[] = [];
    const lineages: [number, string | null, GrepStamp[] | null][] = [];
    for (const item of request.items) {
      let wanted = item.sniffCwd;
      let lineage: string | null = null;
      let first = true;
      /** The stamp of each file as it is opened (stat before the read, as the catalog takes them). */
      const stamps: (GrepStamp | undefined)[] = [];
      let opened = 0;
      const onHead = (chunk: Buffer, stats: Stats): void => {
        if (job.stamps) stamps[opened] = [stats.size, stats.mtimeMs, fingerprintOf(chunk.subarray(0, FINGERPRINT_BYTES))];
        opened++;
        const head = chunk.subarray(0, SUMMARY_HEAD_BYTES);
        if (first && item.sniffLineage) lineage = ADAPTERS[item.agent].lineageInHead?.(head) ?? null;
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
      let matches = 0;
      let snippet: Snippet | null = null;
      for (const [at, path] of item.paths.entries()) {
        opened = at;
        try {
          if (!job.count && job.context === null) {
            if (!fileContainsSync(path, search, buffer, onHead, skipLine[item.agent])) continue;
            matches = 1;
            break;
          }
          // A snippet without a count: the file is read until its first lines with a match are known.
          const found = fileMatchesSync(path, search, buffer, onHead, skipLine[item.agent], Infinity, !job.count);
          matches += found.count;
          if (found.places.length > 0 && snippet === null && job.context !== null) snippet = firstSnippet(path, found.places, job.context, notConversation);
          // The snippet is the first file's that has a match: without a count, the session's other files need no read
          // (unless a cwd is still looked for in their heads).
          if (!job.count && snippet !== null && !wanted) break;
        } catch (error) {
          port.postMessage({ kind: 'problem', path, message: error instanceof Error ? error.message : String(error) } satisfies GrepMessage);
        }
      }
      const stamped = job.stamps && (matches > 0 || item.sniffLineage) ? allStamps(item.paths, stamps) : null;
      if (matches > 0) port.postMessage({ kind: 'match', index: item.index, matches: job.count ? matches : 0, snippet, stamps: stamped } satisfies GrepMessage);
      if (item.sniffLineage) lineages.push([item.index, lineage, stamped]);
    }
    port.postMessage({ kind: 'idle', cwds, lineages } satisfies GrepMessage);
  });
}
