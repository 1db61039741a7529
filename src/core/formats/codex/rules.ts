import { isRecord } from '../../json.js';

/*
 * What in a Codex rollout is the user's own words, and which rollouts are conversations of their own: small
 * pure rules, each learned from what a Codex release writes (codex-rs protocol/models.rs, tasks/review.rs,
 * the TypeScript CLI's save-rollout.ts). The adapter calls them at its per-line points.
 */

const IDE_CONTEXT_OPENING = '# Context from my IDE setup:';
const IDE_REQUEST_HEADING = '## My request for Codex:';

/** The prompt a user typed: for IDE-extension prompts, the part after `## My request for Codex:`. */
export function codexUserPromptText(text: string): string {
  if (!text.trimStart().startsWith(IDE_CONTEXT_OPENING)) return text;
  const at = text.indexOf(IDE_REQUEST_HEADING);
  return at === -1 ? text : text.slice(at + IDE_REQUEST_HEADING.length).trim();
}

/**
 * The text parts Codex wraps an attached image in (`<image name=[Image #1]>` … `</image>`, or `<image>` for
 * a pasted one): markup around the image, not words the user typed.
 */
export function isImageTag(text: string): boolean {
  const t = text.trim();
  return t === '<image>' || t === '</image>' || (t.startsWith('<image name=') && t.endsWith('>') && !t.includes('\n'));
}

export interface PromptPart {
  readonly kind: 'text' | 'image';
  readonly text: string;
}

/** What a prompt shows: its text (IDE context and image tags left out); `[image]` for images alone; else null. */
export function promptTextOf(parts: readonly PromptPart[]): string | null {
  const texts: string[] = [];
  let images = false;
  for (const part of parts) {
    if (part.kind === 'image') images = true;
    else if (!isImageTag(part.text)) {
      const text = codexUserPromptText(part.text);
      if (text.trim() !== '') texts.push(text);
    }
  }
  if (texts.length > 0) return texts.join('\n');
  return images ? '[image]' : null;
}

/**
 * A user-role message Codex writes itself when a review ends (`<user_action>` with the reviewer's findings):
 * the review's result handed to the model, not a prompt.
 */
export function isReviewResult(text: string): boolean {
  return text.trimStart().slice(0, 16).toLowerCase().startsWith('<user_action>');
}

/** Events that end a task: a review is one task, so review mode never outlasts one. */
const TASK_ENDS = new Set(['task_complete', 'turn_complete', 'turn_aborted']);

/**
 * `event_msg` types that open and close review mode: user-role messages between them are the review's own
 * (Codex records them; the user typed `/review`, not them). The end of the task closes it too (Codex writes
 * `exited_review_mode` before it), so a file cut mid-review, or read only in part, hides no later prompt.
 */
/** Every event that starts or ends review mode (a display read must keep them, or review prompts become turns). */
export const REVIEW_MODE_EVENTS: readonly string[] = ['entered_review_mode', 'exited_review_mode', ...TASK_ENDS];

export function reviewModeChange(eventType: string): 'enter' | 'exit' | null {
  if (eventType === 'entered_review_mode') return 'enter';
  if (eventType === 'exited_review_mode' || TASK_ENDS.has(eventType)) return 'exit';
  return null;
}

export interface SubagentSource {
  /** `review`, `compact`, `thread_spawn`, `memory_consolidation`, or what `other` names. */
  readonly kind: string;
  /** The parent thread when the rollout names it (`thread_spawn.parent_thread_id`, `parent_thread_id`). */
  readonly parentId: string | null;
}

/**
 * The sub-agent a rollout's `session_meta` payload says it is (`source: {"subagent": "review"}`,
 * `{"subagent": {"thread_spawn": {parent_thread_id, …}}}`, `{"subagent": {"other": "…"}}`), or null for a
 * conversation of its own (`cli`, `vscode`, `exec`, …).
 */
export function subagentSourceOf(meta: Record<string, unknown>): SubagentSource | null {
  const source = meta.source;
  if (!isRecord(source) || !('subagent' in source)) return null;
  const sub = source.subagent;
  const topParent = nonEmpty(meta.parent_thread_id);
  if (typeof sub === 'string') return { kind: sub, parentId: topParent };
  if (isRecord(sub)) {
    const spawn = sub.thread_spawn;
    if (isRecord(spawn)) return { kind: 'thread_spawn', parentId: nonEmpty(spawn.parent_thread_id) ?? topParent };
    const other = nonEmpty(sub.other);
    const [first] = Object.keys(sub);
    return { kind: other ?? first ?? 'subagent', parentId: topParent };
  }
  return { kind: 'subagent', parentId: topParent };
}

/** TypeScript-era rollouts (codex-cli before the Rust rewrite): `rollout-YYYY-MM-DD-<id>.json`, one JSON object. */
const TYPESCRIPT_ROLLOUT_NAME = /^rollout-(\d{4}-\d{2}-\d{2})-([0-9a-z][0-9a-z-]*)\.json$/i;

/** The date and id in a TypeScript-era rollout's name, or null for other names. */
export function parseTypeScriptRolloutName(name: string): { readonly date: string; readonly id: string } | null {
  const match = TYPESCRIPT_ROLLOUT_NAME.exec(name);
  return match ? { date: match[1]!, id: match[2]!.toLowerCase() } : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}
