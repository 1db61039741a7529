import { copilotSessionFolder, writeCopilotSession } from './fork.js';
import { uuidv4 } from '../../ids.js';
import type { HandoffConversation } from '../../handoff/conversation.js';
import { safeToolName } from '../../handoff/ids.js';
import type { HandoffWrite, HandoffWritten } from '../../handoff/types.js';

/** What a Copilot user.message's `source` is for the hand-off note: not the user's words, so no turn. */
export const COPILOT_NOTE_SOURCE = 'sessions-handoff';

/** Copilot has no image block in its events: an image becomes this text, so the model knows one was there. */
export const COPILOT_IMAGE_TEXT = '[image: not carried over to GitHub Copilot CLI]';

/**
 * A GitHub Copilot CLI session folder `<copilotHome>/session-state/<new uuid>/` holding the conversation: a
 * `session.start` in the source's cwd, the note as a `user.message` whose `source` is not the user's (Copilot sends
 * it to the model, and it is no turn), then the events Copilot replays to the model on resume: `user.message`,
 * `assistant.message` (text and `toolRequests`) and `tool.execution_complete` per call; a `session.info` fork note
 * names the source; a `workspace.yaml`.
 */
export async function writeCopilotHandoff(conversation: HandoffConversation, write: HandoffWrite, copilotHome: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv4();
  const timestamp = write.now.toISOString();
  const events: Record<string, unknown>[] = [];
  let parentId: string | null = null;
  const push = (type: string, data: Record<string, unknown>): void => {
    const eventId = uuidv4();
    events.push({ type, data, id: eventId, timestamp, parentId });
    parentId = eventId;
  };
  push('session.start', {
    sessionId: id,
    version: 1,
    producer: 'sessions',
    // Required by Copilot's loader; no Copilot release wrote this file.
    copilotVersion: '0.0.0',
    startTime: timestamp,
    context: { cwd: write.cwd, ...(write.gitBranch ? { branch: write.gitBranch } : {}) },
    alreadyInUse: false,
  });
  push('user.message', { content: write.note, source: COPILOT_NOTE_SOURCE });
  let turn = 0;
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      const content = item.blocks.map((block) => (block.type === 'text' ? block.text : COPILOT_IMAGE_TEXT)).join('\n');
      push('user.message', { content, messageId: uuidv4(), turnId: String(turn++) });
    } else if (item.kind === 'assistant') {
      const text = item.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      const toolRequests = item.blocks.flatMap((block) =>
        block.type === 'tool_use' ? [{ toolCallId: block.id, name: safeToolName(block.name), arguments: callArguments(block.input), type: 'function' }] : [],
      );
      push('assistant.message', { messageId: uuidv4(), content: text, toolRequests });
    } else {
      for (const result of item.results) {
        push('tool.execution_complete', { toolCallId: result.toolUseId, success: !result.isError, result: { content: result.output } });
      }
    }
  }
  push('session.info', { infoType: 'fork', message: `Forked from ${JSON.stringify(`${write.source.agent} session ${write.source.id}`)} (${write.source.id}) as ${JSON.stringify(write.branchName?.trim() || 'hand-off')} (${id}).` });
  const path = await writeCopilotSession(copilotSessionFolder(copilotHome, id), events, {
    id,
    cwd: write.cwd,
    name: write.branchName?.trim() || null,
    userNamed: Boolean(write.branchName?.trim()),
    createdAt: timestamp,
  });
  return { id, path };
}

/** A call's recorded input as Copilot's `arguments` object (a freeform input becomes `{"input": …}`). */
function callArguments(input: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(input);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON: freeform
  }
  return { input };
}
