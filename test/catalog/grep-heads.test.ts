// What grep picks out of a file's head must be what the catalog's summary says: the cwd (claw workspaces are
// found through it) and a Claude file's lineage (forks are linked through it).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeRootInHead, cwdInHead, SUMMARY_HEAD_BYTES } from '../../src/core/io/heads.js';
import { ScanContext } from '../../src/catalog/scan.js';
import { ADAPTERS } from '../../src/core/formats/index.js';

const HOME = fileURLToPath(new URL('../fixtures/home/', import.meta.url));

describe('grep heads', () => {
  it('agree with the summaries of every Codex and Claude fixture file', async () => {
    const context = new ScanContext();
    let compared = 0;
    for (const [agent, root] of [
      ['codex', `${HOME}.codex`],
      ['claude', `${HOME}.claude`],
    ] as const) {
      for (const group of await ADAPTERS[agent].discover(root, context.report)) {
        const summary = await ADAPTERS[agent].readSummary(group, context);
        if (summary === null) continue;
        const head = (await readFile(group.paths[0]!)).subarray(0, SUMMARY_HEAD_BYTES);
        expect(cwdInHead(head), group.paths[0]).toBe(summary.cwd);
        if (agent === 'claude') expect(claudeRootInHead(head), group.paths[0]).toBe(summary.lineage ?? null);
        compared++;
      }
    }
    // Including a legacy Codex 0.20 file that records no cwd at all.
    expect(compared).toBeGreaterThan(10);
  });

  it('agree with the summary of a legacy Codex file whose cwd is only in <environment_context>', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sessions-heads-'));
    try {
      const day = join(dir, 'sessions', '2026', '11', '22');
      const name = 'rollout-2026-11-22T01-58-43-584c1c48-5ca1-4160-ac98-ec5c303552b5.jsonl';
      await cp(join(HOME, '.codex', 'sessions', '2026', '11', '22', name), join(day, name));
      const [header, ...rest] = (await readFile(join(day, name), 'utf8')).split('\n');
      const context = { type: 'message', id: null, role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/home/dev/src/old "one"</cwd>\n</environment_context>' }] };
      await writeFile(join(day, name), [header, JSON.stringify(context), ...rest].join('\n'));
      const scan = new ScanContext();
      const [group] = await ADAPTERS.codex.discover(dir, scan.report);
      const summary = await ADAPTERS.codex.readSummary(group!, scan);
      expect(summary!.cwd).toBe('/home/dev/src/old "one"');
      expect(cwdInHead((await readFile(join(day, name))).subarray(0, SUMMARY_HEAD_BYTES))).toBe(summary!.cwd);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('unescape the cwd and skip what is not it', () => {
    const line = (value: object): string => `${JSON.stringify(value)}\n`;
    expect(cwdInHead(Buffer.from(line({ type: 'session_meta', payload: { id: 'x', cwd: 'C:\\work\\"q" ü' } })))).toBe('C:\\work\\"q" ü');
    // A cwd inside a JSON string (a tool's arguments) is escaped there: not a key.
    expect(cwdInHead(Buffer.from(line({ arguments: JSON.stringify({ cwd: '/not/it' }) })))).toBeNull();
    expect(cwdInHead(Buffer.from(line({ content: [{ text: '<environment_context>\n  <cwd>/legacy/dir</cwd>\n</environment_context>' }] })))).toBe('/legacy/dir');
    expect(cwdInHead(Buffer.from('{"cwd":"/cut/off'))).toBeNull();
  });

  it('take the root line uuid, not a compact boundary or a line cut off by the head', () => {
    const boundary = JSON.stringify({ parentUuid: null, logicalParentUuid: 'old', type: 'system', uuid: 'b-1' });
    const root = JSON.stringify({ parentUuid: null, type: 'user', message: { content: [{ type: 'tool_result', uuid: 'nested' }] }, uuid: 'r-1', timestamp: 't' });
    expect(claudeRootInHead(Buffer.from(`${boundary}\n${root}\n`))).toBe('r-1');
    expect(claudeRootInHead(Buffer.from(`${root.slice(0, 40)}`))).toBeNull();
    expect(claudeRootInHead(Buffer.from('{"type":"summary","summary":"s","leafUuid":"l"}\n'))).toBeNull();
  });
});
