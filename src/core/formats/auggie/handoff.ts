/** A conversation of another agent written as an Auggie session (`fork --to auggie`). */
import { join } from 'node:path';
import { uuidv4 } from '../../ids.js';
import { createFileAtomic } from '../../io/atomic.js';
import type { JsonObject } from '../../json.js';
import type { HandoffConversation } from '../../handoff/conversation.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import type { HandoffWrite, HandoffWritten } from '../../handoff/types.js';
import { auggieDocumentText } from './fork.js';
import { REQUEST_IDE_STATE, REQUEST_IMAGE, REQUEST_TEXT, REQUEST_TOOL_RESULT, RESPONSE_TEXT, RESPONSE_TOOL_USE } from './records.js';

/** Auggie's image format enum (`ImageFormatType`) for a media type. */
const IMAGE_FORMATS: Record<string, number> = { 'image/png': 1, 'image/jpeg': 2, 'image/gif': 3, 'image/webp': 4 };

interface Exchange {
  request_message: string;
  response_text: string;
  request_id: string;
  request_nodes: JsonObject[];
  response_nodes: JsonObject[];
}

/**
 * An Auggie session holding the conversation, `<augment dir>/sessions/<new id>.json`, as Auggie sends a resumed
 * history to its backend: one chat history entry per request, a prompt's with `request_message`, its text (and
 * image) nodes and the IDE state naming the cwd (where Auggie records it), an answer's text and tool calls as
 * response nodes, and each step's tool results as the request of the next entry (`tool_result_node`s). The note is a
 * text node before the first prompt (sent to the model, never a turn); Auggie has no field for another agent's
 * parent: the note names the source. A name is Auggie's `customTitle`.
 */
export async function writeAuggieHandoff(conversation: HandoffConversation, write: HandoffWrite, augmentDir: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv4();
  const path = join(augmentDir, 'sessions', `${id}.json`);
  const timestamp = write.now.toISOString();
  const ms = write.now.getTime();
  const ids = new SafeIds('handoff_call_');
  const ideState = (): JsonObject => ({
    type: REQUEST_IDE_STATE,
    ide_state_node: { workspace_folders: [{ repository_root: write.cwd, folder_root: write.cwd }], workspace_folders_unchanged: false, current_terminal: { terminal_id: 0, current_working_directory: write.cwd } },
  });
  const exchanges: Exchange[] = [];
  const open = (message: string, nodes: JsonObject[]): Exchange => {
    const exchange: Exchange = { request_message: message, response_text: '', request_id: uuidv4(), request_nodes: [...nodes, ideState()].map((node, k) => ({ id: k + 1, ...node })), response_nodes: [] };
    exchanges.push(exchange);
    return exchange;
  };
  let current: Exchange | null = null;
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      const text = item.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      const nodes: JsonObject[] = item.blocks.map((block) =>
        block.type === 'text'
          ? { type: REQUEST_TEXT, text_node: { content: block.text } }
          : block.data !== null
            ? { type: REQUEST_IMAGE, image_node: { image_data: block.data, format: IMAGE_FORMATS[block.mediaType ?? 'image/png'] ?? 1 } }
            : { type: REQUEST_TEXT, text_node: { content: `[image: ${block.url ?? ''}]` } },
      );
      current = open(text, nodes);
    } else if (item.kind === 'results') {
      current = open(
        '',
        item.results.map((result) => ({ type: REQUEST_TOOL_RESULT, tool_result_node: { tool_use_id: ids.of(result.toolUseId), content: result.output, is_error: result.isError } })),
      );
    } else {
      // An answer with no request before it (or a second one in a row) gets an empty request of its own.
      if (current === null || current.response_nodes.length > 0) current = open('', []);
      for (const block of item.blocks) {
        const node: JsonObject =
          block.type === 'text'
            ? { type: RESPONSE_TEXT, content: block.text }
            : { type: RESPONSE_TOOL_USE, content: '', tool_use: { tool_use_id: ids.of(block.id), tool_name: safeToolName(block.name), input_json: JSON.stringify(argumentsObject(block.input)) } };
        current.response_nodes.push({ id: current.response_nodes.length + 1, ...node, timestamp_ms: ms });
        if (block.type === 'text') current.response_text += block.text;
      }
    }
  }
  // The note goes first in the first request: the model reads it before the conversation.
  const first = exchanges[0] ?? open('', []);
  first.request_nodes = [{ id: 0, type: REQUEST_TEXT, text_node: { content: write.note } }, ...first.request_nodes];
  const name = write.branchName?.trim();
  const document: JsonObject = {
    sessionId: id,
    created: timestamp,
    modified: timestamp,
    chatHistory: exchanges.map((exchange, k) => ({ exchange, completed: true, sequenceId: k + 1, finishedAt: timestamp, changedFiles: [], changedFilesSkipped: [], changedFilesSkippedCount: 0, source: 'local' })),
    agentState: { userGuidelines: '', workspaceGuidelines: '', modelId: '', userEmail: '' },
    ...(name ? { customTitle: name } : {}),
  };
  await createFileAtomic(path, auggieDocumentText(document));
  return { id, path };
}
