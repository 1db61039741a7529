import { IMAGE_PLACEHOLDER, type Block, type Message, type Session } from './model.js';
import { formatSize, oneLine, safeLine, stripControl } from './text.js';

/** What a transcript's header shows: the session's fields, without its messages. */
export type TranscriptHeader = Omit<Session, 'messages' | 'malformedLines'>;

export interface TranscriptOptions {
  readonly includeSystem?: boolean;
}

/**
 * A transcript written piece by piece (`show` streams a 200 MB session): the header, then each message as it is
 * read. The pieces joined are exactly `transcriptToText` / `transcriptToMarkdown` of the whole session.
 */
export interface TranscriptWriter {
  header(session: TranscriptHeader): string;
  message(message: Message): string;
  /** What closes the transcript (HTML's closing tags), after the last message. */
  footer?(): string;
}

/** Output lines joined by newlines, as pieces: every line after the first is written with the newline before it. */
class LineJoiner {
  private first = true;

  join(lines: readonly string[]): string {
    if (lines.length === 0) return '';
    const text = lines.join('\n');
    if (this.first) {
      this.first = false;
      return text;
    }
    return `\n${text}`;
  }
}

/** Plain text, a piece at a time: numbered user turns, assistant text, tool calls and results, markers. */
export function textTranscriptWriter(options: TranscriptOptions = {}): TranscriptWriter {
  const lines = new LineJoiner();
  let turn = 0;
  return {
    header(session) {
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
      return lines.join(out);
    },
    message(message) {
      if (message.role === 'system' && !options.includeSystem && !hasCompaction(message)) return '';
      const out: string[] = [];
      if (message.userTurn) {
        turn++;
        out.push(`── user · turn ${turn} ${'─'.repeat(40)}`);
      } else {
        out.push(`── ${message.role} ${'─'.repeat(40)}`);
      }
      for (const block of message.blocks) out.push(blockToText(block));
      out.push('');
      return lines.join(out);
    },
  };
}

/** Plain-text transcript: numbered user turns, assistant text, tool calls and results, markers. */
export function transcriptToText(session: Session, options: TranscriptOptions = {}): string {
  return wholeTranscript(textTranscriptWriter(options), session);
}

export function wholeTranscript(writer: TranscriptWriter, session: Session): string {
  const out = [writer.header(session)];
  for (const message of session.messages) out.push(writer.message(message));
  out.push(writer.footer?.() ?? '');
  return out.join('');
}

/** Said under a block a display read clipped (a string of a line over 16 MiB: clip-stream.ts), else nothing. */
export function clipNote(block: Block): string {
  const bytes = block.clippedBytes ?? 0;
  return bytes > 0 ? `[… ${formatSize(bytes)} more not shown: a line of over 16 MiB is read clipped]` : '';
}

function blockToText(block: Block): string {
  const note = clipNote(block);
  return note === '' ? blockText(block) : `${blockText(block)}\n  ${note}`;
}

function blockText(block: Block): string {
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

/** Markdown, a piece at a time: one section per user turn, tool calls and outputs in fenced blocks. */
export function markdownTranscriptWriter(options: TranscriptOptions = {}): TranscriptWriter {
  const lines = new LineJoiner();
  let turn = 0;
  return {
    header(session) {
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
      return lines.join(out);
    },
    message(message) {
      if (message.role === 'system' && !options.includeSystem && !hasCompaction(message)) return '';
      const out: string[] = [];
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
      return lines.join(out);
    },
  };
}

/** Markdown export: one section per user turn, tool calls and outputs in fenced blocks. */
export function transcriptToMarkdown(session: Session, options: TranscriptOptions = {}): string {
  return wholeTranscript(markdownTranscriptWriter(options), session);
}

function blockToMarkdown(block: Block): string {
  const note = clipNote(block);
  return note === '' ? blockMarkdown(block) : `${blockMarkdown(block)}\n\n_${note}_`;
}

function blockMarkdown(block: Block): string {
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

/** Pieces are handed on in batches of about this size (one write per message would be a system call each). */
const WRITE_BATCH_CHARS = 64 * 1024;

/**
 * Write a transcript as it is read: the header at once, then the messages in batches; the first message is written
 * as soon as it is folded, so the start shows while the rest is read.
 */
export async function writeTranscript(
  writer: TranscriptWriter,
  header: TranscriptHeader,
  messages: AsyncIterable<readonly Message[]>,
  write: (text: string) => void | Promise<void>,
): Promise<void> {
  await write(writer.header(header));
  let batch = '';
  let first = true;
  for await (const read of messages) {
    for (const message of read) {
      batch += writer.message(message);
      if (first || batch.length >= WRITE_BATCH_CHARS) {
        first = batch.length === 0;
        if (batch.length > 0) await write(batch);
        batch = '';
      }
    }
  }
  batch += writer.footer?.() ?? '';
  if (batch.length > 0) await write(batch);
}
