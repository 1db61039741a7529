import { join } from 'node:path';
import { claudeProjectFolder } from './discovery.js';
import { createFileAtomic } from '../../io/atomic.js';
import { uuidv4 } from '../../ids.js';
import type { HandoffConversation, HandoffUserBlock } from '../../handoff/conversation.js';
import { argumentsObject, safeToolName, SafeIds } from '../../handoff/ids.js';
import { jsonLines, type HandoffWrite, type HandoffWritten } from '../../handoff/types.js';

/**
 * A Claude Code session holding the conversation, in `<claudeDir>/projects/<cwd folder>/<new uuid>.jsonl`: one
 * `parentUuid` chain starting with the note (an `isMeta` user line: the model reads it, it is no turn), then user
 * lines, one assistant line per answer step (text and `tool_use` blocks) and one user line with the step's
 * `tool_result`s. Claude Code has no fork-parent field: the note names the source.
 */
export async function writeClaudeHandoff(conversation: HandoffConversation, write: HandoffWrite, claudeDir: string): Promise<HandoffWritten> {
  const id = write.id ?? uuidv4();
  const dir = join(claudeDir, 'projects', claudeProjectFolder(write.cwd));
  const path = join(dir, `${id}.jsonl`);
  const timestamp = write.now.toISOString();
  const ids = new SafeIds('toolu_handoff_');
  const lines: unknown[] = [];
  let parentUuid: string | null = null;
  const push = (type: 'user' | 'assistant', message: Record<string, unknown>, extra: Record<string, unknown> = {}): void => {
    const uuid = uuidv4();
    lines.push({
      parentUuid,
      isSidechain: false,
      userType: 'external',
      cwd: write.cwd,
      sessionId: id,
      ...(write.gitBranch ? { gitBranch: write.gitBranch } : {}),
      type,
      message,
      ...extra,
      uuid,
      timestamp,
    });
    parentUuid = uuid;
  };
  push('user', { role: 'user', content: write.note }, { isMeta: true });
  let step = 0;
  for (const item of conversation.items) {
    if (item.kind === 'user') {
      push('user', { role: 'user', content: userContent(item.blocks) });
    } else if (item.kind === 'assistant') {
      const content = item.blocks.map((block) =>
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : { type: 'tool_use', id: ids.of(block.id), name: safeToolName(block.name), input: argumentsObject(block.input) },
      );
      push('assistant', {
        id: `msg_handoff_${id.replace(/-/g, '').slice(0, 12)}_${++step}`,
        type: 'message',
        role: 'assistant',
        model: write.model ?? 'unknown',
        content,
        stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
      });
    } else {
      push('user', {
        role: 'user',
        content: item.results.map((result) => ({ type: 'tool_result', tool_use_id: ids.of(result.toolUseId), content: result.output, is_error: result.isError })),
      });
    }
  }
  if (write.branchName?.trim()) lines.push({ type: 'custom-title', customTitle: write.branchName.trim(), sessionId: id });
  await createFileAtomic(path, jsonLines(lines));
  return { id, path };
}

/** A prompt's content: a plain string when it is one text, else text and image blocks (the API refuses empty text). */
function userContent(blocks: readonly HandoffUserBlock[]): string | Record<string, unknown>[] {
  if (blocks.length === 1 && blocks[0]!.type === 'text') return blocks[0]!.text === '' ? '[empty prompt]' : blocks[0]!.text;
  return blocks
    .filter((block) => block.type !== 'text' || block.text !== '')
    .map((block) => {
      if (block.type === 'text') return { type: 'text', text: block.text };
      if (block.data !== null) return { type: 'image', source: { type: 'base64', media_type: block.mediaType ?? 'image/png', data: block.data } };
      return { type: 'image', source: { type: 'url', url: block.url ?? '' } };
    });
}
