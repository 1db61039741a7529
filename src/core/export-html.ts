// `show --format html`: one self-contained page (no script, no fetch: a Content-Security-Policy of `default-src
// 'none'` says so to the browser too), written a message at a time like the text and Markdown transcripts.
import { clipNote, type TranscriptOptions, type TranscriptWriter } from './export.js';
import { IMAGE_PLACEHOLDER, type Block, type Message } from './model.js';
import { stripControl } from './text.js';

/** Text from a file as HTML text: control sequences stripped, the five markup characters escaped. */
export function escapeHtml(text: string): string {
  return stripControl(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6e6e6;background:#17181a}details,pre{background:#222326!important}}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}header dt{font-weight:600}
dd{margin:0;overflow-wrap:anywhere}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem;border-top:1px solid #8884;padding-top:1rem}
.msg{margin:.8rem 0}.role{font-weight:600;font-size:.85rem;text-transform:uppercase;opacity:.7}
.text{white-space:pre-wrap;overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f6;padding:.6rem;margin:.3rem 0}
details{background:#f4f4f6;padding:.3rem .6rem;margin:.4rem 0;border-radius:4px}summary{cursor:pointer;font-size:.9rem}
.error summary{color:#c0392b}.compaction{font-style:italic;opacity:.8}
`;

/** The page's head: no resource may be fetched, inline style only. */
function head(title: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
  ].join('\n');
}

function blockHtml(block: Block): string {
  const note = clipNote(block);
  return note === '' ? blockBody(block) : `${blockBody(block)}<p class="clipped">${escapeHtml(note)}</p>`;
}

function blockBody(block: Block): string {
  switch (block.type) {
    case 'text':
      return `<div class="text">${escapeHtml(block.text)}</div>`;
    case 'tool_use':
      return `<details class="tool-call"><summary>Tool call: ${escapeHtml(block.name)}</summary><pre>${escapeHtml(block.input)}</pre></details>`;
    case 'tool_result':
      return `<details class="tool-result${block.isError ? ' error' : ''}"><summary>${block.isError ? 'Tool error' : 'Tool output'}</summary><pre>${escapeHtml(block.output)}</pre></details>`;
    case 'reasoning':
      return `<details class="reasoning"><summary>Reasoning</summary><div class="text">${escapeHtml(block.summary || (block.encrypted ? '[encrypted]' : ''))}</div></details>`;
    case 'compaction':
      return `<div class="compaction">Conversation compacted.${block.summary ? `<details><summary>Summary</summary><div class="text">${escapeHtml(block.summary)}</div></details>` : ''}</div>`;
    case 'image':
      return `<div class="text">${IMAGE_PLACEHOLDER}</div>`;
  }
}

function hasCompaction(message: Message): boolean {
  return message.blocks.some((block) => block.type === 'compaction');
}

/** HTML, a piece at a time: the session's fields, one section per user turn, tool calls and reasoning collapsible. */
export function htmlTranscriptWriter(options: TranscriptOptions = {}): TranscriptWriter {
  let turn = 0;
  return {
    header(session) {
      const row = (name: string, value: string | null | undefined): string => (value ? `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>` : '');
      return [
        head(session.title),
        '<header>',
        `<h1>${escapeHtml(session.title)}</h1>`,
        '<dl>',
        row('agent', session.agent),
        row('id', session.id),
        row('cwd', session.cwd),
        row('path', session.path),
        row('forked from', session.forkedFrom),
        row('model', session.model),
        row('git branch', session.gitBranch),
        row('created', session.createdAt),
        row('updated', session.updatedAt),
        row('user turns', String(session.userTurns)),
        '</dl>',
        '</header>',
        '<main>',
        '',
      ].join('\n');
    },
    message(message) {
      if (message.role === 'system' && !options.includeSystem && !hasCompaction(message)) return '';
      const out: string[] = [];
      let role: string = message.role;
      if (message.userTurn) {
        turn++;
        out.push(`<h2 id="turn-${turn}">Turn ${turn}</h2>`);
        role = 'user';
      } else if (message.role === 'user') {
        role = 'user (context)';
      }
      out.push(`<section class="msg ${message.role}"><div class="role">${role}${message.timestamp ? ` · <time>${escapeHtml(message.timestamp)}</time>` : ''}</div>`);
      for (const block of message.blocks) out.push(blockHtml(block));
      out.push('</section>', '');
      return out.join('\n');
    },
    footer() {
      return '</main>\n</body>\n</html>\n';
    },
  };
}
