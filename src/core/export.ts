import { IMAGE_PLACEHOLDER, type Block, type Message, type Session } from './model.js';
import { oneLine, safeLine, stripControl } from './text.js';

/** Plain-text transcript: numbered user turns, assistant text, tool calls and results, markers. */
export function transcriptToText(session: Session, options: { readonly includeSystem?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`${session.agent} session ${safeLine(session.id)}`);
  out.push(`title: ${oneLine(session.title)}`);
  if (session.cwd) out.push(`cwd: ${safeLine(session.cwd)}`);
  out.push(`path: ${safeLine(session.path)}`);
  if (session.forkedFrom) out.push(`forked from: ${safeLine(session.forkedFrom)}`);
  // Ids come from the files: untrusted like every other field.
  if (session.subagent) out.push(`sub-agent (${oneLine(session.subagent.kind)}) of: ${safeLine(session.subagent.parentId ?? 'unknown')}`);
  if (session.subagents?.length) out.push(`sub-agents: ${session.subagents.map((id) => safeLine(id)).join(', ')}`);
  out.push(`created: ${session.createdAt}  updated: ${session.updatedAt}  user turns: ${session.userTurns}`);
  out.push('');
  let turn = 0;
  for (const message of session.messages) {
    if (message.role === 'system' && !options.includeSystem && !hasCompaction(message)) continue;
    if (message.userTurn) {
      turn++;
      out.push(`── user · turn ${turn} ${'─'.repeat(40)}`);
    } else {
      out.push(`── ${message.role} ${'─'.repeat(40)}`);
    }
    for (const block of message.blocks) out.push(blockToText(block));
    out.push('');
  }
  return out.join('\n');
}

function blockToText(block: Block): string {
  switch (block.type) {
    case 'text':
      return stripControl(block.text);
    case 'tool_use':
      return `→ ${oneLine(block.name)}(${oneLine(block.input)})`;
    case 'tool_result':
      return `${block.isError ? '✗' : '←'} ${indent(stripControl(block.output))}`;
    case 'reasoning':
      return `(reasoning) ${stripControl(block.summary) || (block.encrypted ? '[encrypted]' : '')}`;
    case 'compaction':
      return `[conversation compacted]${block.summary ? `\n${stripControl(block.summary)}` : ''}`;
    case 'image':
      return IMAGE_PLACEHOLDER;
  }
}

/** An untrusted field as inline Markdown code: sanitised, on one line, in a fence longer than any backtick run in it. */
function code(text: string): string {
  const clean = safeLine(text);
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return clean.startsWith('`') || clean.endsWith('`') ? `${fence} ${clean} ${fence}` : `${fence}${clean}${fence}`;
}

/** Markdown export: one section per user turn, tool calls and outputs in fenced blocks. */
export function transcriptToMarkdown(session: Session, options: { readonly includeSystem?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`# ${escapeMarkdownLine(oneLine(session.title))}`);
  out.push('');
  out.push(`- agent: ${session.agent}`);
  out.push(`- id: ${code(session.id)}`);
  if (session.cwd) out.push(`- cwd: ${code(session.cwd)}`);
  out.push(`- path: ${code(session.path)}`);
  if (session.forkedFrom) out.push(`- forked from: ${code(session.forkedFrom)}`);
  if (session.subagent) out.push(`- sub-agent (${escapeMarkdownLine(oneLine(session.subagent.kind))}) of: ${code(session.subagent.parentId ?? 'unknown')}`);
  if (session.subagents?.length) out.push(`- sub-agents: ${session.subagents.map((id) => code(id)).join(', ')}`);
  if (session.model) out.push(`- model: ${escapeMarkdownLine(oneLine(session.model))}`);
  out.push(`- created: ${session.createdAt}`);
  out.push(`- updated: ${session.updatedAt}`);
  out.push(`- user turns: ${session.userTurns}`);
  out.push('');
  let turn = 0;
  for (const message of session.messages) {
    if (message.role === 'system' && !options.includeSystem && !hasCompaction(message)) continue;
    if (message.userTurn) {
      turn++;
      out.push(`## Turn ${turn}`, '', `**User:**`, '');
    } else if (message.role === 'assistant') {
      out.push(`**Assistant:**`, '');
    } else if (message.role === 'tool') {
      out.push(`**Tool:**`, '');
    } else if (message.role === 'user') {
      out.push(`**User (context):**`, '');
    }
    for (const block of message.blocks) out.push(blockToMarkdown(block), '');
  }
  return out.join('\n');
}

function blockToMarkdown(block: Block): string {
  switch (block.type) {
    case 'text':
      return stripControl(block.text);
    case 'tool_use':
      return `Tool call \`${oneLine(block.name)}\`:\n\n${fence(block.input)}`;
    case 'tool_result':
      return `${block.isError ? 'Tool error' : 'Tool output'}:\n\n${fence(block.output)}`;
    case 'reasoning':
      return `> _Reasoning:_ ${oneLine(block.summary) || (block.encrypted ? '[encrypted]' : '')}`;
    case 'compaction':
      return `---\n\n_Conversation compacted._${block.summary ? `\n\n> ${oneLine(block.summary)}` : ''}\n\n---`;
    case 'image':
      return IMAGE_PLACEHOLDER;
  }
}

function fence(text: string): string {
  const clean = stripControl(text);
  let ticks = '```';
  while (clean.includes(ticks)) ticks += '`';
  return `${ticks}\n${clean}\n${ticks}`;
}

function indent(text: string): string {
  return text.replace(/\n/g, '\n  ');
}

function escapeMarkdownLine(text: string): string {
  return text.replace(/^([#>*-])/, '\\$1');
}

function hasCompaction(message: Message): boolean {
  return message.blocks.some((block) => block.type === 'compaction');
}
