/** The index's fold saved with the row, and read back so that a grown file is read from where it stopped. */
import { foldLines, indexReads, newLineStats } from '../../io/lines.js';
import { addUsage, type Usage } from '../../model.js';
import { reportSkippedLines } from '../problems.js';
import type { AdapterContext, FoldResume, IndexedSession, SessionFileGroup } from '../types.js';
import { isRecord } from '../../json.js';
import { addIndexLine } from './indexed.js';
import { nativeIndexBatch } from './native-fold.js';
import { type ClaudeNode, MESSAGE_TYPES } from './lines.js';
import { ClaudeScan } from './scan.js';
import { KeyedClaudeScan, newIndexScan } from './keyed-scan.js';
import { livePath, readTitleSidecar, summarize } from './summary.js';

/** A saved fold keeps this many API messages' usage apart (streamed lines of one message can still come). */
const USAGE_KEPT_APART = 16;

/**
 * Nodes of the active chain a saved fold keeps, from its end: an appended line continues from the leaf or from
 * one of these (a tool result answering an earlier line of the same answer). A rewind starts from the node
 * before one of the last REWIND_POINTS user turns. A line whose parent is none of them makes the file be read
 * again whole: rare, and always right.
 */
const CHAIN_TAIL_KEPT = 64;
const REWIND_POINTS = 64;

/**
 * The fold as plain JSON, small whatever the file's size: the nodes an appended line can attach to, each with
 * how many of the row's prompts the chain holds up to it (the prompts themselves are the saved row's), the
 * lineage root, the leaf, and the row's scalars.
 */
interface ClaudeFoldState {
  readonly v: 2;
  readonly root: string | null;
  /** [uuid, prompts on the chain up to and including it] */
  readonly points: readonly (readonly [string, number])[];
  readonly leaf: string | null;
  /** Every conversation line up to the fold is on the chain, once, in file order (`isLinear`); absent in older folds. */
  readonly linear?: boolean;
  readonly scalars: {
    readonly hasConversation: boolean;
    readonly sessionId: string | null;
    readonly cwd: string | null;
    readonly gitBranch: string | null;
    readonly model: string | null;
    readonly firstTimestamp: string | null;
    readonly lastTimestamp: string | null;
    readonly customTitle: string | null;
    readonly customTitleAt: string | null;
    readonly agentName: string | null;
    readonly requestSessionId: string | null;
    /** leafUuid null: a title of this file (resolved when the fold was saved). */
    readonly agentTitles: readonly { readonly title: string; readonly leafUuid: string | null }[];
    readonly lastPrompt: string | null;
    readonly usageBase: Usage | null;
    readonly usage: readonly (readonly [string, Usage])[];
    readonly anonymousUsage: number;
  };
}

function exportClaudeFold(scan: ClaudeScan, chain: readonly ClaudeNode[] = scan.activeChain()): ClaudeFoldState | undefined {
  // A slash command not answered yet, or a command caveat, decides what a later line is: the fold keeps neither,
  // so it is not saved (the next read is whole, and saves once the exchange is over).
  for (let i = chain.length - 1; i >= 0 && !chain[i]!.userTurn; i--) {
    if (chain[i]!.caveat || chain[i]!.command !== null) return undefined;
  }
  const upTo: number[] = [];
  let turns = 0;
  for (const node of chain) {
    if (node.anchorTurns !== undefined) turns = node.anchorTurns;
    if (node.userTurn) turns++;
    upTo.push(turns);
  }
  const points = new Map<string, number>();
  let rewinds = 0;
  for (let i = chain.length - 1; i >= 0; i--) {
    const node = chain[i]!;
    if (chain.length - i <= CHAIN_TAIL_KEPT) points.set(node.uuid, upTo[i]!);
    if (node.userTurn && i > 0 && rewinds < REWIND_POINTS) {
      points.set(chain[i - 1]!.uuid, upTo[i - 1]!);
      rewinds++;
    }
    if (chain.length - i > CHAIN_TAIL_KEPT && rewinds >= REWIND_POINTS) break;
  }
  const usage = [...scan.usageById.entries()];
  let usageBase = scan.usageBase;
  for (const [, older] of usage.slice(0, Math.max(0, usage.length - USAGE_KEPT_APART))) usageBase = addUsage(usageBase, older);
  const first = chain[0];
  return {
    v: 2,
    root: first === undefined ? null : first.anchorTurns !== undefined ? scan.baseRoot : first.uuid,
    points: [...points.entries()].reverse(),
    leaf: chain.at(-1)?.uuid ?? null,
    linear: isLinear(scan, chain),
    scalars: {
      hasConversation: scan.hasConversation,
      sessionId: scan.sessionId,
      cwd: scan.cwd,
      gitBranch: scan.gitBranch,
      model: scan.model,
      firstTimestamp: scan.firstTimestamp,
      lastTimestamp: scan.lastTimestamp,
      customTitle: scan.customTitle,
      customTitleAt: scan.customTitleAt,
      agentName: scan.agentName,
      requestSessionId: scan.requestSessionId,
      // Titles naming a leaf of this file are resolved now, while every node is known.
      agentTitles: scan.agentTitles.map(({ title, leafUuid }) => ({ title, leafUuid: leafUuid !== null && scan.hasNode(leafUuid) ? null : leafUuid })),
      lastPrompt: scan.lastPrompt,
      usageBase,
      usage: usage.slice(-USAGE_KEPT_APART),
      anonymousUsage: scan.anonymousUsage,
    },
  };
}

/**
 * Whether the file read so far is one chain in file order: every conversation line (non-sidechain user, assistant
 * and system lines) is on the active chain, once, and the chain's lines come in file order. `show` then prints
 * the file in one pass from its first byte; a rewind or a fork leaves lines off the chain (two passes). A scan gone
 * on from a saved fold: the saved part was linear and the chain goes on from its leaf.
 */
export function isLinear(scan: ClaudeScan, chain: readonly ClaudeNode[]): boolean {
  let onChain = 0;
  let last = -1;
  for (let i = 0; i < chain.length; i++) {
    const node = chain[i]!;
    if (node.anchorTurns !== undefined) {
      if (i !== 0 || node.uuid !== scan.baseLeaf) return false;
      continue;
    }
    if (node.offset <= last) return false;
    last = node.offset;
    if (!node.sidechain && MESSAGE_TYPES.has(node.type)) onChain++;
  }
  if (scan.baseLinear !== null) {
    // Gone on from a saved fold: that part must have been linear, and a chain that does not start at its leaf left it.
    if (!scan.baseLinear) return false;
    if (scan.baseLeaf !== null && chain.length > 0 && chain[0]!.anchorTurns === undefined) return false;
  }
  return onChain === scan.messageLines;
}

/** A saved fold back as a row-only scan whose chain ends in anchor nodes; null when it is not one (read whole). */
export function importClaudeFold(state: unknown, prompts: readonly string[]): ClaudeScan | null {
  try {
    const { points, leaf, root, scalars: sc } = state as ClaudeFoldState;
    if ((state as ClaudeFoldState).v !== 2 || !Array.isArray(points) || !isRecord(sc)) return null;
    const scan = new ClaudeScan(true);
    for (const point of points) {
      if (!Array.isArray(point) || typeof point[0] !== 'string' || typeof point[1] !== 'number' || point[1] > prompts.length) return null;
      scan.nodes.set(point[0], { uuid: point[0], parentUuid: null, logicalParentUuid: null, type: '', sidechain: false, offset: 0, length: 0, value: null, userTurn: false, meta: false, caveat: false, command: null, anchorTurns: point[1] });
    }
    if (leaf !== null) {
      const leafNode = typeof leaf === 'string' ? scan.nodes.get(leaf) : undefined;
      if (leafNode === undefined) return null;
      scan.candidates.push(leafNode);
    }
    const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
    scan.basePrompts = prompts;
    scan.baseRoot = text(root);
    scan.baseLinear = (state as ClaudeFoldState).linear === true;
    scan.baseLeaf = text(leaf);
    scan.hasConversation = sc.hasConversation === true;
    scan.sessionId = text(sc.sessionId);
    scan.cwd = text(sc.cwd);
    scan.gitBranch = text(sc.gitBranch);
    scan.model = text(sc.model);
    scan.firstTimestamp = text(sc.firstTimestamp);
    scan.lastTimestamp = text(sc.lastTimestamp);
    scan.customTitle = text(sc.customTitle);
    scan.customTitleAt = text(sc.customTitleAt);
    scan.agentName = text(sc.agentName);
    scan.requestSessionId = text(sc.requestSessionId);
    scan.lastPrompt = text(sc.lastPrompt);
    if (!Array.isArray(sc.agentTitles) || !Array.isArray(sc.usage) || typeof sc.anonymousUsage !== 'number') return null;
    // Resolved titles come back as titles of this file; unresolved ones keep naming a leaf no line here has.
    scan.agentTitles = sc.agentTitles.filter((t) => isRecord(t) && typeof t.title === 'string').map((t) => ({ title: t.title, leafUuid: text(t.leafUuid) }));
    scan.savedTitles = scan.agentTitles.length;
    scan.usageBase = isUsage(sc.usageBase) ? sc.usageBase : null;
    for (const entry of sc.usage) if (Array.isArray(entry) && typeof entry[0] === 'string' && isUsage(entry[1])) scan.usageById.set(entry[0], entry[1]);
    scan.anonymousUsage = sc.anonymousUsage;
    return scan;
  } catch {
    return null;
  }
}

/**
 * Whether a scan that went on from a saved fold saw everything it needed: its chain reaches a saved node, and
 * every title added since names a leaf it knows. Otherwise the file is read again whole.
 */
function resumedScanIsWhole(scan: ClaudeScan): boolean {
  const leaf = scan.candidates.at(-1);
  if (leaf !== undefined) {
    const { chain, complete } = scan.chainFrom(leaf);
    if (!complete || (chain[0]?.anchorTurns === undefined && chain[0]?.parentUuid !== null)) return false;
  }
  return scan.agentTitles.slice(scan.savedTitles).every(({ leafUuid }) => leafUuid === null || scan.hasNode(leafUuid));
}

function isUsage(value: unknown): value is Usage {
  return isRecord(value) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof value[key] === 'number');
}

/** The row from every line of the file, or from a saved fold plus the lines appended since. */
export async function indexClaude(group: SessionFileGroup, context: AdapterContext, resume?: FoldResume): Promise<IndexedSession> {
  const path = livePath(group);
  const resumed = resume !== undefined && resume.path === path && resume.row !== undefined ? importClaudeFold(resume.state, resume.row.prompts) : null;
  const scan = resumed ?? newIndexScan();
  try {
    return await indexScan(group, context, resume, scan, resumed !== null);
  } finally {
    if (scan instanceof KeyedClaudeScan) scan.release();
  }
}

async function indexScan(group: SessionFileGroup, context: AdapterContext, resume: FoldResume | undefined, scan: ClaudeScan, resumed: boolean): Promise<IndexedSession> {
  const path = livePath(group);
  const start = resumed ? resume!.offset : 0;
  const stats = newLineStats();
  const before = indexReads.bytes;
  const file = await foldLines(path, start, (line) => addIndexLine(scan, line, stats), nativeIndexBatch(scan, stats));
  if (resumed && !resumedScanIsWhole(scan)) return indexClaude(group, context);
  // Saved before the unterminated last line (still being written) is folded: a later read starts at that line.
  // The active chain (300k nodes in a 200 MB session) is walked once when no such line changes it.
  let chain = file.size >= (context.saveFoldFrom ?? Number.POSITIVE_INFINITY) ? scan.activeChain() : null;
  const state = chain === null ? undefined : exportClaudeFold(scan, chain);
  if (file.partial !== null) {
    addIndexLine(scan, file.partial, stats);
    chain = null;
  }
  const bytesRead = indexReads.bytes - before;
  const fold = state === undefined ? {} : { resume: { path, offset: file.end, state } };
  reportSkippedLines(context.report, path, stats, scan.hasConversation);
  if (file.size === 0 || !scan.hasConversation) return { summary: null, fingerprint: file.fingerprint, bytesRead, ...fold };
  const sidecar = await readTitleSidecar(path);
  const summary = summarize({ group, sidecar, scan, chain: chain ?? scan.activeChain(), size: file.size, mtimeMs: file.mtimeMs });
  return { summary, fingerprint: file.fingerprint, bytesRead, ...fold };
}
