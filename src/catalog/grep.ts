import { statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ADAPTERS } from '../core/formats/index.js';
import { findClawWorkspaces } from '../core/formats/claw.js';
import type { Problem, SessionFileGroup } from '../core/formats/types.js';
import { AGENTS, type Agent } from '../core/model.js';
import type { GrepItem, GrepMessage, GrepRequest, GrepWorkerData } from './grep-worker.js';
import { selfAndAncestors, type Locations } from './locations.js';
import { applyCodexNames, CLAW_SEARCH_DEPTH, conversations, describeError, isClawWorkspace, ScanContext, type CatalogSession } from './scan.js';

export interface GrepOptions {
  /** Fold ASCII letters (the text and the files). */
  readonly ignoreCase?: boolean;
  /** Only these agents' sessions (default: all). */
  readonly agents?: readonly Agent[];
  /** Only report sessions this accepts (it sees the row, e.g. to keep one cwd's sessions). */
  readonly accept?: (session: CatalogSession) => boolean;
  /** Called as soon as a session is known to match (files are searched newest first). */
  readonly onMatch: (session: CatalogSession) => void;
  /** A file that could not be read (reported as it happens). */
  readonly onProblem?: (problem: Problem) => void;
  /** Worker threads to search with (default: one per core). */
  readonly workers?: number;
}

export interface GrepResult {
  /** How many sessions matched (and were accepted). */
  readonly matched: number;
  /** What discovery and the summaries of matching sessions ran into. */
  readonly problems: readonly Problem[];
}

/**
 * Full-text search over whole transcripts: every file of every session in the locations, for the literal
 * `text` (as written in JSON: raw, escaped, or \u-escaped). The catalog is not scanned first: the files are
 * discovered (directory walks only) and searched at once on worker threads, and only the sessions that match
 * are summarised, so the first rows arrive while the search goes on.
 */
export async function grepLocations(locations: Locations, text: string, options: GrepOptions): Promise<GrepResult> {
  const agents = new Set(options.agents ?? AGENTS);
  const context = new ScanContext();
  // Workers boot (≈ 30 ms each) while the folders are walked.
  const pool = new GrepPool(Math.max(1, options.workers ?? availableParallelism()), { text, ignoreCase: options.ignoreCase ?? false });
  const groups: SessionFileGroup[] = [];
  const sameId = new Map<string, SessionFileGroup[]>();
  const clawRoots = new Set<string>();
  // Claw sessions live in project folders: those other agents' sessions ran in are checked too (like the catalog).
  const sniffCwds = agents.has('claw') && locations.clawFromKnownCwds;

  const add = (found: readonly SessionFileGroup[]): GrepItem[] =>
    found.map((group) => {
      context.register(group);
      if (group.idHint !== null) {
        const key = `${group.agent}:${group.idHint}`;
        sameId.set(key, [...(sameId.get(key) ?? []), group]);
      }
      groups.push(group);
      return { index: groups.length - 1, paths: group.paths, sniffCwd: sniffCwds && group.agent !== 'claw', sniffLineage: group.agent === 'claude' };
    });

  const discover = async (agent: Agent, root: string): Promise<SessionFileGroup[]> => {
    if (!isDirectory(root)) return [];
    try {
      return await ADAPTERS[agent].discover(root, context.report);
    } catch (error) {
      context.report({ path: root, message: describeError(error) });
      return [];
    }
  };
  const clawRealPaths = new Set<string>();
  const discoverClaw = async (root: string): Promise<SessionFileGroup[]> => {
    if (clawRoots.has(root)) return [];
    clawRoots.add(root);
    if (!(await isClawWorkspace(root))) return [];
    // A workspace reached through a symlink and through its real path is searched once.
    const real = await realpath(root).catch(() => null);
    if (real === null || clawRealPaths.has(real)) return [];
    clawRealPaths.add(real);
    return discover('claw', root);
  };

  const tasks: Promise<SessionFileGroup[]>[] = [];
  if (agents.has('codex')) for (const root of locations.codexHomes) tasks.push(discover('codex', root), context.loadNames(root).then(() => []));
  if (agents.has('claude')) for (const root of locations.claudeDirs) tasks.push(discover('claude', root));
  if (agents.has('claw')) {
    for (const dir of selfAndAncestors(locations.cwd)) tasks.push(discoverClaw(dir));
    for (const dir of locations.clawDirs) {
      tasks.push(
        findClawWorkspaces(dir, CLAW_SEARCH_DEPTH).then(
          async (workspaces) => (await Promise.all(workspaces.map(discoverClaw))).flat(),
          (error: unknown) => {
            context.report({ path: dir, message: describeError(error) });
            return [];
          },
        ),
      );
    }
  }
  let found: SessionFileGroup[];
  try {
    found = (await Promise.all(tasks)).flat();
  } catch (error) {
    pool.stop();
    throw error;
  }
  const items = add(found);
  // Newest first by the live file's mtime (a stat is cheap next to reading the file), Claude sessions before
  // the others: a Claude row waits until every Claude file's lineage is known (see below).
  const mtimes = new Map(items.map((item) => [item.index, mtimeOf(item.paths[item.paths.length - 1]!)]));
  const claudeFirst = (item: GrepItem): number => (item.sniffLineage ? 0 : 1);
  items.sort((a, b) => claudeFirst(a) - claudeFirst(b) || mtimes.get(b.index)! - mtimes.get(a.index)!);

  // Claude Code's own --fork-session records no parent: `list` links such a fork to the earliest session of its
  // lineage (the root message uuid they share). Matching Claude rows wait until every Claude head was seen.
  const lineages = new Map<number, string | null>();
  let claudeLeft = items.filter((item) => item.sniffLineage).length;
  let releaseClaude = (): void => {};
  const claudeSeen = new Promise<void>((resolve) => (releaseClaude = resolve));
  if (claudeLeft === 0) releaseClaude();
  const summaries = new Map<SessionFileGroup, Promise<CatalogSession | null>>();
  const summarise = (group: SessionFileGroup): Promise<CatalogSession | null> => {
    let summary = summaries.get(group);
    if (summary === undefined) summaries.set(group, (summary = summaryOf(group, context)));
    return summary;
  };
  const withLineage = async (row: CatalogSession, group: SessionFileGroup): Promise<CatalogSession> => {
    await claudeSeen;
    const candidates = [...lineages].filter(([index, lineage]) => groups[index] !== group && (lineage === row.lineage || lineage === null));
    const family = (await Promise.all(candidates.map(([index]) => summarise(groups[index]!)))).filter((s): s is CatalogSession => s !== null && s.lineage === row.lineage && s.id !== row.id);
    return family.length === 0 ? row : (conversations([row, ...family]).find((s) => s.id === row.id) ?? row);
  };

  let matched = 0;
  const emitted = new Set<string>();
  const rows: Promise<void>[] = [];
  const onMatch = (index: number): void => {
    const group = groups[index]!;
    rows.push(
      (async () => {
        let row = await rowFor(group, summarise, sameId, context);
        if (row === null) return;
        if (row.agent === 'claude' && row.lineage !== undefined) row = await withLineage(row, group);
        const key = `${row.agent}:${row.id}`;
        if (emitted.has(key) || (options.accept && !options.accept(row))) return;
        emitted.add(key);
        matched++;
        options.onMatch(row);
      })(),
    );
  };
  const onBatch = async (cwds: readonly string[], seen: readonly (readonly [number, string | null])[]): Promise<GrepItem[]> => {
    for (const [index, lineage] of seen) lineages.set(index, lineage);
    claudeLeft -= seen.length;
    if (claudeLeft === 0) releaseClaude();
    return cwds.length === 0 ? [] : add((await Promise.all(cwds.map(discoverClaw))).flat());
  };
  try {
    await pool.run(items, { onMatch, onBatch, onProblem: (problem) => options.onProblem?.(problem) });
  } finally {
    releaseClaude();
  }
  await Promise.all(rows);
  return { matched, problems: context.problems };
}

async function summaryOf(group: SessionFileGroup, context: ScanContext): Promise<CatalogSession | null> {
  try {
    const summary = await ADAPTERS[group.agent].readSummary(group, context);
    return summary === null ? null : { ...summary, root: group.root };
  } catch (error) {
    context.report({ path: group.paths[group.paths.length - 1] ?? group.root, message: describeError(error) });
    return null;
  }
}

/** The listed row of a matching session: its summary, merged with other files of the same conversation. */
async function rowFor(
  group: SessionFileGroup,
  summarise: (group: SessionFileGroup) => Promise<CatalogSession | null>,
  sameId: ReadonlyMap<string, readonly SessionFileGroup[]>,
  context: ScanContext,
): Promise<CatalogSession | null> {
  const own = await summarise(group);
  if (own === null) return null;
  // Resumed copies and replayed forks carry the same id under another file name: one row, as in `list`.
  const related = new Set([...(sameId.get(`${own.agent}:${own.id}`) ?? []), ...(group.idHint === null ? [] : (sameId.get(`${group.agent}:${group.idHint}`) ?? []))]);
  related.delete(group);
  const others = (await Promise.all([...related].map(summarise))).filter((s): s is CatalogSession => s !== null && s.agent === own.agent && s.id === own.id);
  const rows = conversations([own, ...others]);
  applyCodexNames(rows, context);
  return rows.find((row) => row.id === own.id) ?? null;
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

interface PoolEvents {
  readonly onMatch: (index: number) => void;
  /** A batch is done: new cwds seen in files' heads and Claude lineages; resolves to more work (claw sessions in those cwds). */
  readonly onBatch: (cwds: readonly string[], lineages: readonly (readonly [number, string | null])[]) => Promise<GrepItem[]>;
  readonly onProblem: (problem: Problem) => void;
}

/** Worker threads that pull batches of files from one queue (a worker that finishes early takes more). */
class GrepPool {
  private readonly workers: Worker[];

  constructor(count: number, data: GrepWorkerData) {
    this.workers = Array.from({ length: count }, () => new Worker(new URL('./grep-worker.js', import.meta.url), { workerData: data }));
  }

  stop(): void {
    for (const worker of this.workers) worker.postMessage({ kind: 'stop' } satisfies GrepRequest);
  }

  run(initial: readonly GrepItem[], events: PoolEvents): Promise<void> {
    const queue = [...initial];
    const idle = [...this.workers];
    let busy = 0;
    let pendingDiscoveries = 0;
    return new Promise<void>((resolve, reject) => {
      let finished = false;
      const finish = (error?: unknown): void => {
        if (finished) return;
        finished = true;
        this.stop();
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(String(error)));
      };
      const pump = (): void => {
        while (idle.length > 0 && queue.length > 0) {
          // Big batches while there is plenty left, single sessions at the end so no worker waits on another.
          const size = Math.max(1, Math.min(64, Math.ceil(queue.length / (this.workers.length * 4))));
          idle.pop()!.postMessage({ kind: 'work', items: queue.splice(0, size) } satisfies GrepRequest);
          busy++;
        }
        if (queue.length === 0 && busy === 0 && pendingDiscoveries === 0) finish();
      };
      for (const worker of this.workers) {
        worker.on('message', (message: GrepMessage) => {
          if (message.kind === 'match') events.onMatch(message.index);
          else if (message.kind === 'problem') events.onProblem({ path: message.path, message: message.message });
          else {
            busy--;
            idle.push(worker);
            if (message.cwds.length > 0 || message.lineages.length > 0) {
              pendingDiscoveries++;
              events
                .onBatch(message.cwds, message.lineages)
                .then((more) => queue.push(...more))
                .catch((error: unknown) => finish(error))
                .finally(() => {
                  pendingDiscoveries--;
                  pump();
                });
            }
            pump();
          }
        });
        worker.on('error', (error) => finish(error));
        worker.on('exit', (code) => {
          if (!finished) finish(new Error(`full-text search worker exited with code ${code}`));
        });
      }
      pump();
    });
  }
}
