// The contract fixtures: one folder per registered agent under test/fixtures/contract/<agent>/, holding a root of that
// agent's (files its real CLI wrote, copied from test/fixtures or examples/home) and expected.json, what is known about
// the session in it. The adapter contract test runs every adapter of the registry against its agent's folder.
import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AdapterContext, FormatAdapter, SessionFileGroup } from '../../src/core/formats/types.js';
import { messageText, type Message } from '../../src/core/model.js';

export const CONTRACT_FIXTURES = fileURLToPath(new URL('../fixtures/contract/', import.meta.url));

/** How a fork keeps the original, as the agent's own format allows. */
export type ForkKeeps =
  /**
   * Line by line: with the fork's id read as the original's and `metadataKeys` taken out of every record, the fork's
   * lines are the original's from line `dropsHead` up to the cut, byte for byte, plus `addsRecords` lines of its own.
   */
  | { readonly keeps: 'lines'; readonly dropsHead: number; readonly addsRecords: number; readonly metadataKeys?: readonly string[]; readonly why: string }
  /** Only the transcript is kept (a format rewritten whole, or rows of a database): what it says, not its bytes. */
  | { readonly keeps: 'transcript'; readonly why: string };

export interface ContractExpectation {
  /** Where the files were copied from, and which CLI wrote them. */
  readonly source: string;
  /** The agent's root, relative to the fixture folder (named like the agent's own home: some variables name its parent). */
  readonly root: string;
  /** The files of every group `discover` finds under the root, relative to it. */
  readonly discovered: readonly (readonly string[])[];
  /** The session every other check runs on. */
  readonly session: {
    readonly files: readonly string[];
    /** A conversation of a store (many conversations in one file): its id, given as the group's idHint. */
    readonly idHint?: string;
    readonly id: string;
    readonly userTurns: number;
    readonly firstPrompt: string;
    readonly lastPrompt: string;
    readonly cwd: string;
    readonly title: string;
    /** Every user prompt, whole, in order. */
    readonly prompts: readonly string[];
  };
  /** Resume argv (`{id}`, `{path}`, `{prompt}` filled in) and the variables for a root that is not the agent's default (`{root}`). */
  readonly resume: {
    readonly interactive: readonly string[];
    readonly exec: readonly string[];
    readonly env: Readonly<Record<string, string>>;
  };
  readonly fork: ForkKeeps;
  /** Where a rename writes the name as the agent reads it, or why the agent keeps none (then it is refused). */
  readonly rename: RenameWrites;
}

/** The agent's own name field after a rename: a file that holds `holds` (`{name}` the name as JSON escapes it), or a query. */
export type RenameWrites =
  | { readonly file: string; readonly holds: string }
  | { readonly sqlite: string; readonly query: string }
  | { readonly none: string };

/** The agents that have a contract fixture folder. */
export async function contractFixtureAgents(): Promise<string[]> {
  const entries = await readdir(CONTRACT_FIXTURES, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
}

export async function readExpectation(agent: string): Promise<ContractExpectation> {
  return JSON.parse(await readFile(join(CONTRACT_FIXTURES, agent, 'expected.json'), 'utf8')) as ContractExpectation;
}

/** A copy of the agent's fixture root in a new temp folder (forks and hand-offs write into it, never into the fixture). */
export async function copyRoot(agent: string, expectation: ContractExpectation, into?: string): Promise<string> {
  const dir = into ?? (await mkdtemp(join(tmpdir(), `sessions-contract-${agent}-`)));
  const root = join(dir, expectation.root);
  await cp(join(CONTRACT_FIXTURES, agent, expectation.root), root, { recursive: true });
  return root;
}

/** The context a scan of `root` would give: the names kept beside its sessions and its other conversations by id. */
export async function contextFor(adapter: FormatAdapter, root: string): Promise<AdapterContext> {
  const names = adapter.names === undefined ? new Map<string, string>() : await adapter.names.read(root);
  const groups = await adapter.discover(root, () => undefined);
  return {
    report: (problem) => {
      throw new Error(`${problem.path}: ${problem.message}`);
    },
    lookup: (agent, id) => (agent === adapter.agent ? groups.find((group) => group.idHint === id) : undefined),
    names: () => names,
  };
}

/** The group of the expected session, as discovery finds it under `root`. */
export async function sessionGroup(adapter: FormatAdapter, root: string, expectation: ContractExpectation): Promise<SessionFileGroup> {
  const wanted = expectation.session.files.map((file) => join(root, file));
  const group = (await adapter.discover(root, () => undefined)).find((one) => one.paths.length === wanted.length && one.paths.every((path, i) => path === wanted[i]));
  if (group === undefined) throw new Error(`${adapter.agent}: discover found no group of ${wanted.join(', ')}`);
  return expectation.session.idHint === undefined ? group : { ...group, idHint: expectation.session.idHint };
}

/** The whole text of every user prompt, in order. */
export function promptsOf(messages: readonly Message[]): string[] {
  return messages.filter((message) => message.userTurn).map(messageText);
}

/** What a conversation says, agent-neutral: prompts, answers, tool calls and their outputs (not ids, times or notes). */
export type Said = { readonly user: string } | { readonly assistant: string } | { readonly call: string } | { readonly result: string };

export function said(messages: readonly Message[], beforeTurn = Infinity): Said[] {
  const out: Said[] = [];
  let turn = 0;
  for (const message of messages) {
    if (message.userTurn && ++turn >= beforeTurn) break;
    if (message.userTurn) {
      out.push({ user: messageText(message) });
      continue;
    }
    for (const block of message.blocks) {
      if (block.type === 'text' && message.role === 'assistant' && block.text.trim() !== '') out.push({ assistant: block.text });
      else if (block.type === 'tool_use') out.push({ call: block.name });
      else if (block.type === 'tool_result') out.push({ result: block.output });
    }
  }
  return out;
}

/** The records of a JSONL text, each as its line (or, with keys to take out, as its JSON without them). */
export function recordsOf(text: string, metadataKeys: readonly string[]): string[] {
  const lines = text.split('\n').filter((line) => line !== '');
  if (metadataKeys.length === 0) return lines;
  return lines.map((line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    for (const key of metadataKeys) delete record[key];
    return JSON.stringify(record);
  });
}

/** Whether a record holds `text` as a JSON string's content (escaped as JSON escapes it). */
export function recordHolds(record: string, text: string): boolean {
  return record.includes(JSON.stringify(text).slice(1, -1));
}
