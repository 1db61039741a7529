import { createHash } from 'node:crypto';
import { readdir, unlink } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { errorCode } from '../../errors.js';
import { geminiSessionFileName } from './records.js';
import { imagePart } from './parts.js';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic, firstMissingFolder, removeEmptyFolders } from '../../io/atomic.js';
import { INDEX_FILE_MAX_BYTES, readRegularFile, SMALL_FILE_MAX_BYTES } from '../../io/regular.js';
import { isRecord, type JsonObject } from '../../json.js';
import type { ToolResultBlock } from '../../model.js';
import type { HandoffConversation, HandoffUserBlock } from '../../handoff/conversation.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import { jsonLines, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';

/** The marker in a project folder naming the folder it keeps sessions for (Gemini CLI 0.3x on). */
const PROJECT_ROOT_FILE = '.project_root';

/** Gemini CLI's slug of a folder name (`ProjectRegistry.slugify`, 0.61.0). */
export function geminiSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '') || 'project'
  );
}

/**
 * The folder under `<gemini dir>/tmp/` Gemini CLI 0.61 keeps `cwd`'s sessions in, as its `ProjectRegistry` finds
 * or claims it: the slug `projects.json` maps the path to (unless another folder's marker owns it), else the folder
 * whose `.project_root` names the path, else a new one: the slug of the folder's name, `-1`, `-2`, … past the
 * slugs the registry gives other paths and folders other paths own, claimed by writing its marker (Gemini CLI
 * finds it there and adds it to its registry itself; `sessions` never rewrites that file).
 */
export async function geminiProjectFolder(geminiDir: string, cwd: string): Promise<string> {
  const project = resolve(cwd);
  const tmp = join(geminiDir, 'tmp');
  const registry = await readRegistry(join(geminiDir, 'projects.json'));
  const mapped = registry.get(project);
  if (mapped !== undefined && (await markerOwner(join(tmp, mapped))) !== 'other') {
    await claim(join(tmp, mapped), project);
    return mapped;
  }
  for (const name of (await readdir(tmp).catch(() => [] as string[])).sort()) {
    if ((await readMarker(join(tmp, name))) === project) return name;
  }
  const taken = new Set([...registry.entries()].filter(([path]) => path !== project).map(([, slug]) => slug));
  const slug = geminiSlug(basename(project) || 'project');
  for (let counter = 0; ; counter++) {
    const candidate = counter === 0 ? slug : `${slug}-${counter}`;
    if (taken.has(candidate)) continue;
    if (await claim(join(tmp, candidate), project)) return candidate;
  }

  async function markerOwner(folder: string): Promise<'none' | 'this' | 'other'> {
    const owner = await readMarker(folder);
    return owner === null ? 'none' : owner === project ? 'this' : 'other';
  }
}

/** The registry's path → slug map; empty when it is missing or not what Gemini CLI writes. */
async function readRegistry(path: string): Promise<Map<string, string>> {
  try {
    const value: unknown = JSON.parse((await readRegularFile(path, INDEX_FILE_MAX_BYTES)).toString('utf8'));
    if (!isRecord(value) || !isRecord(value.projects)) return new Map();
    return new Map(Object.entries(value.projects).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && /^[a-z0-9-]+$/.test(entry[1])));
  } catch {
    return new Map();
  }
}

async function readMarker(folder: string): Promise<string | null> {
  try {
    return resolve((await readRegularFile(join(folder, PROJECT_ROOT_FILE), SMALL_FILE_MAX_BYTES)).toString('utf8').trim());
  } catch {
    return null;
  }
}

/** Make `folder` the project's: true when its marker names the project (written now, or already). */
async function claim(folder: string, project: string): Promise<boolean> {
  try {
    await createFileAtomic(join(folder, PROJECT_ROOT_FILE), project, 0o644);
    return true;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    return (await readMarker(folder)) === project;
  }
}

/**
 * A Gemini CLI session holding the conversation, `<gemini dir>/tmp/<project>/chats/session-<minute>-<id8>.jsonl`:
 * a metadata record (`forkedFrom {sessionId, atTurn}` names the source), the note as a user message, then the
 * messages Gemini CLI rebuilds the model's history from on `--resume` (`convertSessionToClientHistory`): user
 * messages (text and `inlineData` images), and per answer step a `gemini` message: its text, or with tool calls its
 * parts in order (text and `functionCall`) and `toolCalls`, each call holding its result as a `functionResponse`.
 */
export async function writeGeminiHandoff(conversation: HandoffConversation, write: HandoffWrite, geminiDir: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv4();
  const timestamp = write.now.toISOString();
  const tmp = join(geminiDir, 'tmp');
  const before = new Set(await readdir(tmp).catch(() => [] as string[]));
  const madeFrom = await firstMissingFolder(tmp);
  const folder = await geminiProjectFolder(geminiDir, write.cwd);
  const path = join(tmp, folder, 'chats', geminiSessionFileName(id, write.now));
  const ids = new SafeIds('handoff_call_');
  const names = new Map<string, string>();
  const name = write.branchName?.trim();
  const records: JsonObject[] = [
    {
      sessionId: id,
      projectHash: createHash('sha256').update(resolve(write.cwd)).digest('hex'),
      startTime: timestamp,
      lastUpdated: timestamp,
      kind: 'main',
      ...(name ? { summary: name } : {}),
      forkedFrom: { sessionId: write.source.id, atTurn: write.source.atTurn },
    },
  ];
  const message = (type: 'user' | 'gemini', fields: JsonObject): JsonObject => {
    const record = { id: uuidv4(), timestamp, type, ...fields };
    records.push(record);
    return record;
  };
  // Gemini CLI joins it with the first prompt into one user content: a line of its own.
  message('user', { content: [{ text: `${write.note}\n` }] });
  let step: JsonObject | null = null;
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      message('user', { content: promptParts(item.blocks) });
    } else if (item.kind === 'assistant') {
      const toolCalls = item.blocks.flatMap((block) => {
        if (block.type !== 'tool_use') return [];
        const callName = safeToolName(block.name);
        names.set(block.id, callName);
        return [{ id: ids.of(block.id), name: callName, args: argumentsObject(block.input), status: 'success', timestamp }];
      });
      // With calls, the content is the step's parts in order (text and functionCall), as a resumed 0.61 session
      // records them; Gemini CLI then sends those parts and the results it finds in `toolCalls`.
      let call = 0;
      const content =
        toolCalls.length === 0
          ? item.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('\n\n')
          : item.blocks.map((block) => {
              if (block.type === 'text') return { text: block.text };
              const { id: callId, name: callName, args } = toolCalls[call++]!;
              return { functionCall: { id: callId, name: callName, args } };
            });
      step = message('gemini', { content, thoughts: [], ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    } else if (step !== null && Array.isArray(step.toolCalls)) {
      const calls = step.toolCalls as JsonObject[];
      item.results.forEach((result, index) => {
        const call = calls[index];
        if (call !== undefined) Object.assign(call, resultFields(result, ids.of(result.toolUseId), names.get(result.toolUseId) ?? 'tool'));
      });
    }
  }
  try {
    await createFileAtomic(path, jsonLines(records));
  } catch (error) {
    // A failed write leaves nothing behind: the project folder this hand-off claimed (its marker), and the folders above.
    if (!before.has(folder)) {
      await unlink(join(tmp, folder, PROJECT_ROOT_FILE)).catch(() => undefined);
      await removeEmptyFolders(join(tmp, folder), madeFrom ?? join(tmp, folder));
    }
    throw error;
  }
  return { id, path };
}

/** A call's result as Gemini CLI records it in the call: its function response, and `error` when it failed. */
function resultFields(result: ToolResultBlock, id: string, name: string): JsonObject {
  const response = result.isError ? { error: result.output } : { output: result.output };
  return { result: [{ functionResponse: { id, name, response } }], status: result.isError ? 'error' : 'success' };
}

/** A prompt as Gemini API parts (Gemini CLI and Qwen Code): text and images; an empty prompt says so (Gemini CLI drops empty ones). */
export function promptParts(blocks: readonly HandoffUserBlock[]): JsonObject[] {
  const parts = blocks.filter((block) => block.type !== 'text' || block.text !== '').map((block) => (block.type === 'text' ? { text: block.text } : imagePart(block)));
  return parts.length > 0 ? parts : [{ text: '[empty prompt]' }];
}
