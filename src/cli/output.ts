// How rows are printed: `list`/`grep` text lines (one width per column), the `list --json` contract, and stdout in
// batches for rows that arrive in bursts.
import { homedir } from 'node:os';
import type { Locations } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import { ADAPTER_LIST } from '../core/formats/index.js';
import { AGENT_NAME_WIDTH } from '../core/model.js';
import { oneLine, safeLine, tildePath } from '../core/text.js';
import { onHost } from '../remote/host-source.js';
import { fit } from '../ui/row-cells.js';
import { isDirectory } from './common.js';

/** `2026-11-22 01:58`: the updated time in list rows (scripts read the full ISO time from --json). */
function shortDate(iso: string): string {
  return iso.replace('T', ' ').slice(0, 16);
}

function shortenHome(path: string | null): string {
  return path ? safeLine(tildePath(path, homedir())) : '-';
}

/**
 * stdout for rows that arrive in bursts (grep's thousands of matches): what is written within one turn of the event
 * loop goes out in one write (or every 64 KiB), so rows still stream as they are found. `flush` before the end.
 */
export function batchedStdout(): { write(text: string): void; flush(): void } {
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    process.stdout.write(text);
  };
  return {
    write(text: string): void {
      pending += text;
      if (pending.length >= 1 << 16) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/** Columns of a title in text rows; a longer one is cut with `…`. */
const LIST_TITLE_COLUMNS = 60;

/** One row of `list` / `grep` text output. */
export function listLine(s: CatalogSession): string {
  const fork = s.forkedFrom ? ' [fork]' : '';
  const archived = s.archived ? ' [archived]' : '';
  const subagents = s.subagents?.length ? ` [${s.subagents.length} sub-agent${s.subagents.length === 1 ? '' : 's'}]` : s.subagent ? ' [sub-agent]' : '';
  const turns = `${s.userTurns}${s.userTurnsExact ? '' : '+'}`;
  // Another machine's directory is written host:path (its home is not ours: no ~).
  const where = s.host === undefined ? shortenHome(s.cwd) : `${safeLine(s.host)}:${s.cwd === null ? '-' : safeLine(s.cwd)}`;
  return `${s.agent.padEnd(AGENT_NAME_WIDTH)}  ${shortDate(s.updatedAt)}  ${turns.padStart(5)}  ${safeLine(s.id)}  ${fit(oneLine(s.title), LIST_TITLE_COLUMNS).text}${fork}${archived}${subagents}  ${where}\n`;
}

/** The names of listLine's columns, for a person reading a terminal (scripts reading a pipe get rows only). */
export const LIST_HEADER = `${'agent'.padEnd(AGENT_NAME_WIDTH)}  ${'updated'.padEnd(16)}  ${'turns'.padStart(5)}  ${'id'.padEnd(36)}  title  cwd\n`;

export function describeLocations(locations: Locations): string {
  const place = (dir: string): string => (isDirectory(dir) ? dir : `${dir} (does not exist)`);
  return [
    ...ADAPTER_LIST.flatMap((adapter) => locations.roots[adapter.agent].map(place)),
    ...ADAPTER_LIST.flatMap((adapter) => (adapter.locations.describeAlso ? [`${locations.cwd} (${adapter.agent})`] : [])),
  ].join(', ');
}

/** The `list --json` contract (README): stable field names and types. */
export function toListJson(row: CatalogSession) {
  // A mirrored host's files are read here from the mirror; the row names them where they are: on the host.
  const s = onHost(row);
  return {
    id: s.id,
    agent: s.agent,
    host: s.host ?? null,
    path: s.path,
    paths: s.paths,
    cwd: s.cwd,
    title: s.title,
    name: s.name,
    firstPrompt: s.firstPrompt,
    lastPrompt: s.lastPrompt,
    userTurns: s.userTurns,
    userTurnsExact: s.userTurnsExact,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    forkedFrom: s.forkedFrom,
    branchName: s.fork?.branchName ?? null,
    gitBranch: s.gitBranch,
    model: s.model,
    archived: s.archived,
    usage: s.usage,
    subagents: s.subagents ?? [],
    subagent: s.subagent ?? null,
  };
}
