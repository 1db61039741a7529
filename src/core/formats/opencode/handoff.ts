import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { OpencodeDialect } from './dialect.js';
import { addOpencodeSession, forkMetadata, opencodeDatabasePath, opencodeId } from './fork.js';
import type { SqliteDatabase } from '../../io/sqlite.js';
import { isRecord, type JsonObject } from '../../json.js';
import { promptOpening, type ImageBlock } from '../../model.js';
import type { HandoffConversation, HandoffUserBlock } from '../../handoff/conversation.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import { HandoffError, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';

const NO_TOKENS = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

interface OpencodeModel {
  readonly providerID: string;
  readonly modelID: string;
  readonly variant?: string;
}

/**
 * A new opencode session holding the conversation, added to `<root>/opencode.db` (or the dialect's database: the
 * one the agent made, nothing is written when there is none) by the same transaction as a fork: a session row for the cwd (in the
 * project opencode keeps the cwd's sessions in; the source named in its metadata), the note as a user message of
 * one `synthetic` text part (sent to the model, no turn), then per prompt a user message (text parts, images as
 * `file` parts) and per answer step an assistant message (text parts, and `tool` parts each holding its call's
 * result: `completed`, or `error` for a failed call or one without a result). Every message names the model
 * opencode last used in this database, so that its resume asks that model (the source's is another vendor's).
 */
export async function writeOpencodeHandoff(dialect: OpencodeDialect, conversation: HandoffConversation, write: HandoffWrite, root: string): Promise<HandoffWritten> {
  const path = opencodeDatabasePath(dialect, root);
  // The schema is the agent's own (it migrates it on start): a database it has not made is not made here.
  if (!existsSync(path)) throw new HandoffError(`${path} does not exist: run ${dialect.command} once (it creates its database), then hand the session off again`);
  const now = write.now.getTime();
  const id = addOpencodeSession(path, (db) => {
    const id = write.id ?? opencodeId('ses', now, 1, true);
    const project = projectOf(db, write.cwd, now);
    const { model, agent } = lastModel(db, dialect.defaultAgent) ?? { model: guessedModel(write.model), agent: dialect.defaultAgent };
    const callIds = new SafeIds('call_handoff_');
    const messages: Record<string, unknown>[] = [];
    const parts: Record<string, unknown>[] = [];
    let counter = 1;
    const addMessage = (info: JsonObject, partData: readonly JsonObject[]): string => {
      const messageId = opencodeId('msg', now, ++counter, false);
      messages.push({ id: messageId, session_id: id, time_created: now, time_updated: now, data: JSON.stringify(info) });
      for (const data of partData) {
        parts.push({ id: opencodeId('prt', now, ++counter, false), message_id: messageId, session_id: id, time_created: now, time_updated: now, data: JSON.stringify(data) });
      }
      return messageId;
    };
    const userInfo = { role: 'user', time: { created: now }, agent, model };
    let parentId = addMessage(userInfo, [{ type: 'text', text: write.note, synthetic: true }]);
    const items = conversation.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.kind === 'user') {
        parentId = addMessage(userInfo, userParts(item.blocks));
      } else if (item.kind === 'assistant') {
        const next = items[i + 1];
        const results = new Map((next?.kind === 'results' ? next.results : []).map((result) => [result.toolUseId, result]));
        const stepParts: JsonObject[] = [{ type: 'step-start' }];
        for (const block of item.blocks) {
          if (block.type === 'text') {
            stepParts.push({ type: 'text', text: block.text, time: { start: now, end: now } });
            continue;
          }
          const input = argumentsObject(block.input);
          const result = results.get(block.id);
          const time = { start: now, end: now };
          stepParts.push({
            type: 'tool',
            callID: callIds.of(block.id),
            tool: safeToolName(block.name),
            // handoffConversation gives every call a result (NO_RESULT_RECORDED, an error, when the source has none).
            state: result && !result.isError ? { status: 'completed', input, output: result.output, title: block.name, metadata: {}, time } : { status: 'error', input, error: result?.output ?? '', metadata: {}, time },
          });
        }
        const calls = item.blocks.some((block) => block.type === 'tool_use');
        stepParts.push({ type: 'step-finish', reason: calls ? 'tool-calls' : 'stop', cost: 0, tokens: NO_TOKENS });
        addMessage(
          {
            role: 'assistant',
            parentID: parentId,
            modelID: model.modelID,
            providerID: model.providerID,
            mode: agent,
            agent,
            path: { cwd: write.cwd, root: project.worktree },
            cost: 0,
            tokens: NO_TOKENS,
            time: { created: now, completed: now },
            finish: calls ? 'tool-calls' : 'stop',
          },
          stepParts,
        );
      }
      // A `results` item is carried in the tool parts of the step before it.
    }
    const firstPrompt = items.find((item) => item.kind === 'user')?.blocks.find((block) => block.type === 'text')?.text ?? '';
    const session = {
      id,
      project_id: project.id,
      workspace_id: null,
      parent_id: null,
      slug: `handoff-${write.source.agent}`,
      directory: write.cwd,
      path: relative(resolve(project.worktree), write.cwd),
      title: write.branchName?.trim() || promptOpening(firstPrompt, 100) || `Handed off from ${write.source.agent} session ${write.source.id}`,
      version: newestVersion(db) ?? dialect.verifiedVersion,
      metadata: JSON.stringify(forkMetadata({ id: write.source.id, atTurn: write.source.atTurn, agent: write.source.agent, ...(write.branchName ? { branchName: write.branchName } : {}) })),
      cost: 0,
      tokens_input: 0,
      tokens_output: 0,
      tokens_reasoning: 0,
      tokens_cache_read: 0,
      tokens_cache_write: 0,
      agent,
      model: JSON.stringify({ id: model.modelID, providerID: model.providerID, ...(model.variant ? { variant: model.variant } : {}) }),
      time_created: now,
      time_updated: now,
    };
    return { rows: { session, messages, parts }, result: id };
  });
  return { id, path };
}

/** A prompt's parts: its text, and each image as opencode keeps an attached one (a `file` part, inline as a `data:` URL). */
function userParts(blocks: readonly HandoffUserBlock[]): JsonObject[] {
  const parts: JsonObject[] = blocks.flatMap((block): JsonObject[] => {
    if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    const url = imageUrl(block);
    const mime = block.mediaType ?? 'image/png';
    return url === null ? [{ type: 'text', text: '[image: not carried over, the source recorded neither its bytes nor its URL]' }] : [{ type: 'file', mime, filename: 'image', url }];
  });
  // A prompt is a user message with text or an image: an empty one keeps its place as a turn.
  if (parts.length === 0) parts.push({ type: 'text', text: '[empty prompt]' });
  return parts;
}

function imageUrl(block: ImageBlock): string | null {
  if (block.data !== null) return `data:${block.mediaType ?? 'image/png'};base64,${block.data}`;
  return block.url;
}

/**
 * The project opencode keeps `cwd`'s sessions in: the one of the newest session it ran in that directory, else the
 * project whose worktree holds it (its git repository), else opencode's `global` project (worktree `/`, what opencode
 * uses outside git; its row added as opencode adds it when missing). A git repository opencode never opened gets
 * `global` too: opencode resumes a session by its id whatever its project.
 */
function projectOf(db: SqliteDatabase, cwd: string, now: number): { id: string; worktree: string } {
  const projects = db.prepare('SELECT id, worktree FROM project').all() as { id: string; worktree: string }[];
  const used = db.prepare('SELECT project_id FROM session WHERE directory = ? ORDER BY time_updated DESC LIMIT 1').get(cwd) as { project_id: string } | undefined;
  const known = projects.find((project) => project.id === used?.project_id);
  if (known) return known;
  const holding = projects
    .filter((project) => project.worktree !== '/' && (cwd === project.worktree || cwd.startsWith(`${project.worktree}/`)))
    .sort((a, b) => b.worktree.length - a.worktree.length)[0];
  if (holding) return holding;
  const global = projects.find((project) => project.id === 'global');
  if (global) return global;
  db.prepare("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', ?, ?, '[]')").run(now, now);
  return { id: 'global', worktree: '/' };
}

/** The model and agent of the newest prompt in the database: what opencode runs on this machine. */
function lastModel(db: SqliteDatabase, defaultAgent: string): { model: OpencodeModel; agent: string } | null {
  const row = db.prepare("SELECT data FROM message WHERE json_extract(data, '$.role') = 'user' AND json_extract(data, '$.model.modelID') IS NOT NULL ORDER BY time_created DESC, id DESC LIMIT 1").get() as { data: string } | undefined;
  if (!row) return null;
  let info: unknown;
  try {
    info = JSON.parse(row.data);
  } catch {
    return null;
  }
  if (!isRecord(info) || !isRecord(info.model)) return null;
  const { providerID, modelID, variant } = info.model;
  if (typeof providerID !== 'string' || typeof modelID !== 'string') return null;
  return { model: { providerID, modelID, ...(typeof variant === 'string' ? { variant } : {}) }, agent: typeof info.agent === 'string' ? info.agent : defaultAgent };
}

/** With no prompt in the database to take it from, the source's model under the provider opencode names its vendor. */
function guessedModel(model: string | null): OpencodeModel {
  const id = model ?? 'unknown';
  const provider = /claude/i.test(id) ? 'anthropic' : /gemini/i.test(id) ? 'google' : /qwen/i.test(id) ? 'alibaba' : 'openai';
  return { providerID: provider, modelID: id };
}

function newestVersion(db: SqliteDatabase): string | null {
  const row = db.prepare('SELECT version FROM session ORDER BY time_updated DESC LIMIT 1').get() as { version: string } | undefined;
  return row?.version ?? null;
}
