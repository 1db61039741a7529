/**
 * What differs between the agents that keep opencode's database: opencode itself and its forks (Kilo Code CLI).
 * They share the schema (`session`, `message`, `part` rows), the ids, the fork and the resume; one reader and one
 * writer (store.ts, fork.ts, handoff.ts) serve them all, told the differences by a dialect.
 */
import type { Agent } from '../agents.js';

export interface OpencodeDialect {
  readonly agent: Agent;
  /** The agent's name in `--help`, README and messages ('opencode', 'Kilo Code CLI'). */
  readonly label: string;
  /** The program resume runs ('opencode', 'kilo'). */
  readonly command: string;
  /** The folder under `$XDG_DATA_HOME` that holds the database ('opencode', 'kilo'). */
  readonly dataName: string;
  /** The database's file name in that folder ('opencode.db', 'kilo.db'). */
  readonly dbName: string;
  /** The primary agent a message handled by default names ('build', 'code'): a hand-off's messages name it. */
  readonly defaultAgent: string;
  /** The release whose database the writers were checked against (a session row records the release that made it). */
  readonly verifiedVersion: string;
  /**
   * Tags of blocks the agent adds to a prompt that are not the user's words (Kilo's `<environment_details>`): a text
   * part that is such a block, or ends with one, is shown and handed off without it.
   */
  readonly injectedTags: readonly string[];
  /**
   * True when the agent's snapshots (a tree per answer's first step, in its own repository) were checked against its
   * code: `fork --with-code` restores from them (checkpoints.ts).
   */
  readonly snapshots: boolean;
}

/** A prompt's text without the blocks the agent appended to it (the whole text when it is only such a block: ''). */
export function withoutInjected(dialect: OpencodeDialect, text: string): string {
  let out = text;
  for (let changed = true; changed; ) {
    changed = false;
    const trimmed = out.trimEnd();
    for (const tag of dialect.injectedTags) {
      if (!trimmed.endsWith(`</${tag}>`)) continue;
      const open = trimmed.lastIndexOf(`<${tag}>`);
      if (open < 0) continue;
      out = trimmed.slice(0, open).trimEnd();
      changed = true;
    }
  }
  return out;
}
