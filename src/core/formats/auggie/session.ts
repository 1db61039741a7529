/** An Auggie session file read whole: its row and its transcript. */
import { basename } from 'node:path';
import type { JsonObject } from '../../json.js';
import { promptOpening, type Message, type SessionSummary } from '../../model.js';
import { isoTimestamp } from '../../time.js';
import { livePath } from '../group-files.js';
import type { AdapterContext, IndexedSession, SessionFileGroup } from '../types.js';
import { auggieMessages, cwdOf, exchangeOf, exchangeTime, historyOf, isAuggieUserTurn, lineageOf, modelOf, promptOf, readAuggieFile, stringOrNull } from './records.js';

/** The session file names Auggie writes: `<uuid>.json`. */
export const SESSION_FILE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.json$/;

export function auggieGroup(root: string, path: string): SessionFileGroup {
  return { agent: 'auggie', paths: [path], idHint: basename(path, '.json'), root, archived: false };
}

/** The prompts' openings (an image-only prompt as `[image]`). */
function promptsOf(history: readonly JsonObject[]): string[] {
  return history.filter(isAuggieUserTurn).map((entry) => {
    const text = promptOf(exchangeOf(entry));
    return promptOpening(text.trim() === '' ? '[image]' : text);
  });
}

function summarize(group: SessionFileGroup, document: JsonObject, size: number, mtimeMs: number): SessionSummary {
  const path = livePath(group);
  const history = historyOf(document);
  const prompts = promptsOf(history);
  const firstPrompt = prompts[0] ?? null;
  const id = stringOrNull(document.sessionId) ?? basename(path, '.json');
  const name = stringOrNull(document.customTitle);
  // No title of its own but a name: Auggie titles a session by its first prompt, as `auggie session list` shows it.
  const title = name ?? stringOrNull(document.title) ?? firstPrompt ?? '(no prompt)';
  const times = history.map(exchangeTime).filter((time): time is string => time !== null);
  const mtime = new Date(mtimeMs).toISOString();
  const cwd = history.map((entry) => cwdOf(exchangeOf(entry))).find((one) => one !== null) ?? null;
  // A sub-agent's session names the conversation that started it (`auggie session list` leaves those out).
  const parent = stringOrNull(document.parentConversationId);
  const lineage = lineageOf(document);
  return {
    id,
    agent: 'auggie',
    path,
    paths: [path],
    cwd,
    title,
    firstPrompt,
    lastPrompt: prompts.at(-1) ?? null,
    name,
    userTurns: prompts.length,
    userTurnsExact: true,
    prompts,
    createdAt: isoTimestamp(document.created) ?? times[0] ?? mtime,
    updatedAt: isoTimestamp(document.modified) ?? times.at(-1) ?? mtime,
    forkedFrom: parent,
    fork: parent === null ? null : { id: parent },
    ...(lineage === null ? {} : { lineage }),
    gitBranch: null,
    model: modelOf(document),
    archived: group.archived,
    usage: null,
    size,
    mtimeMs,
  };
}

/** The row, from the whole file (Auggie rewrites it on every save: there is no appended part to fold). */
export async function indexAuggie(group: SessionFileGroup, context: AdapterContext): Promise<IndexedSession> {
  const path = livePath(group);
  const file = await readAuggieFile(path);
  const document = file.document;
  if (document === null) {
    context.report({ path, message: 'not an Auggie session (not one JSON object)' });
    return { summary: null, fingerprint: file.fingerprint, bytesRead: file.size };
  }
  const summary = historyOf(document).some(isAuggieUserTurn) ? summarize(group, document, file.size, file.mtimeMs) : null;
  return { summary, fingerprint: file.fingerprint, bytesRead: file.size };
}

/** The row and the transcript of a file. */
export async function readAuggieSession(group: SessionFileGroup): Promise<{ summary: SessionSummary; messages: Message[]; malformedLines: number }> {
  const path = livePath(group);
  const file = await readAuggieFile(path);
  if (file.document === null) throw new Error(`${path} is not an Auggie session (not one JSON object)`);
  const messages = historyOf(file.document).flatMap(auggieMessages);
  return { summary: summarize(group, file.document, file.size, file.mtimeMs), messages, malformedLines: 0 };
}
