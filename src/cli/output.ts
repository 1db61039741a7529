// How rows are printed: `list`/`grep` text lines (one width per column), the `list --json` contract, and stdout in
// batches for rows that arrive in bursts.
import { homedir } from 'node:os';
import type { Locations } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import { ADAPTER_LIST } from '../core/formats/index.js';
import { AGENT_NAME_WIDTH } from '../core/model.js';
import { oneLine, safeLine, tildePath } from '../core/text.js';
import { onHost } from '../remote/mirror-layout.js';
import { fit } from '../ui/row-cells.js';
import { relativeTime } from '../ui/time.js';
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

/**
 * `JSON.stringify(items.map(toJson), null, 2)` and a newline, byte for byte, written a batch of items at a time: 100k
 * rows are ~90 MB of JSON, which as one string (and its Buffer) doubled the peak memory of a cold `list --json`.
 */
export function writeJsonArray<T>(items: readonly T[], toJson: (item: T) => unknown, write: (text: string) => void = (text) => void process.stdout.write(text)): void {
  if (items.length === 0) return void write('[]\n');
  let pending = '[';
  for (let i = 0; i < items.length; i++) {
    // An array of one item is the item indented as the array's member: `[\n  {…}\n]`, cut to `  {…}`.
    const member = JSON.stringify([toJson(items[i]!)], null, 2);
    pending += `${i === 0 ? '' : ','}\n${member.slice(2, member.length - 2)}`;
    if (pending.length >= 1 << 20) {
      write(pending);
      pending = '';
    }
  }
  write(`${pending}\n]\n`);
}

/** Columns of a title in text rows; a longer one is cut with `…`. */
const LIST_TITLE_COLUMNS = 60;

/** The widths of the columns that vary from row to row (the others have one width by their nature). */
export interface ListWidths {
  /** The longest id (ids are ASCII: an agent's id shape). */
  readonly id: number;
  /** The widest title cell, marks included, at most LIST_TITLE_COLUMNS. */
  readonly title: number;
}

/** Widths that hold any row: for rows printed as they are found (grep), before the widest is known. */
export const STREAM_WIDTHS: ListWidths = { id: 36, title: LIST_TITLE_COLUMNS };

/** One width per column for these rows: the widest of each (a title measured as the TUI measures it). */
export function listWidths(rows: readonly CatalogSession[]): ListWidths {
  let id = 'id'.length;
  let title = 'title'.length;
  for (const row of rows) {
    id = Math.max(id, safeLine(row.id).length);
    title = Math.max(title, titleCell(row).width);
  }
  return { id, title };
}

/** The title, cut to leave room for its marks (fork, archived, sub-agents), then the marks: text and display width. */
function titleCell(s: CatalogSession): { readonly text: string; readonly width: number } {
  const fork = s.forkedFrom ? ' [fork]' : '';
  const archived = s.archived ? ' [archived]' : '';
  const subagents = s.subagents?.length ? ` [${s.subagents.length} sub-agent${s.subagents.length === 1 ? '' : 's'}]` : s.subagent ? ' [sub-agent]' : '';
  const marks = `${fork}${archived}${subagents}`;
  const title = fit(oneLine(s.title), LIST_TITLE_COLUMNS - marks.length);
  return { text: `${title.text}${marks}`, width: title.width + marks.length };
}

/** What tells listLine's lines apart from an earlier build's: grep keeps the lines it printed (PrintedRows). Another when listLine prints otherwise. */
export const LIST_LINE_FORMAT = 'list-line 1';

/** One row of `list` / `grep` text output: each column as wide as `widths` says (wide and combining characters measured). */
export function listLine(s: CatalogSession, widths: ListWidths = STREAM_WIDTHS): string {
  const turns = `${s.userTurns}${s.userTurnsExact ? '' : '+'}`;
  // Another machine's directory is written host:path (its home is not ours: no ~).
  const where = s.host === undefined ? shortenHome(s.cwd) : `${safeLine(s.host)}:${s.cwd === null ? '-' : safeLine(s.cwd)}${staleMark(s)}`;
  const title = titleCell(s);
  const titlePad = ' '.repeat(Math.max(0, widths.title - title.width));
  return `${s.agent.padEnd(AGENT_NAME_WIDTH)}  ${shortDate(s.updatedAt)}  ${turns.padStart(5)}  ${safeLine(s.id).padEnd(widths.id)}  ${title.text}${titlePad}  ${where}\n`;
}

/** ` [stale 3h]`: a host's row listed from its mirror while the host is down, with the age of the mirror's last sync. */
export function staleMark(s: Pick<CatalogSession, 'stale'>, now: number = Date.now()): string {
  if (s.stale === undefined) return '';
  return s.stale === '' ? ' [stale]' : ` [stale ${relativeTime(s.stale, now)}]`;
}

/** The names of listLine's columns, for a person reading a terminal (scripts reading a pipe get rows only). */
export function listHeader(widths: ListWidths = STREAM_WIDTHS): string {
  return `${'agent'.padEnd(AGENT_NAME_WIDTH)}  ${'updated'.padEnd(16)}  ${'turns'.padStart(5)}  ${'id'.padEnd(widths.id)}  ${'title'.padEnd(widths.title)}  cwd\n`;
}

export function describeLocations(locations: Locations): string {
  const place = (dir: string): string => (isDirectory(dir) ? dir : `${dir} (does not exist)`);
  return [
    ...ADAPTER_LIST.flatMap((adapter) => locations.roots[adapter.agent].map(place)),
    ...ADAPTER_LIST.flatMap((adapter) => (adapter.locations.describeAlso ? [`${locations.cwd} (${adapter.agent})`] : [])),
  ].join(', ');
}

/** The `list --json` contract (docs/list-json.md): stable field names and types. */
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
    stale: s.stale === undefined ? null : { syncedAt: s.stale === '' ? null : s.stale, ageSeconds: s.stale === '' ? null : Math.max(0, Math.round((Date.now() - Date.parse(s.stale)) / 1000)) },
  };
}
