#!/usr/bin/env node
// The transcript view's layout of a 50 MB transcript (500 turns, each with a 100 KB tool output), in-process on
// the built dist/ui/transcript-layout.js: building the items, the collapsed layout, the expanded one. It was a
// timed unit test; speed is the bench's to measure (issue 15).
//
//   node bench/transcript-layout.mjs [--runs N]     prints one JSON line
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadProduct, option } from './lib.mjs';

const { buildTranscriptItems, layoutTranscript } = await loadProduct('ui/transcript-layout.js');
const RUNS = Number(option('--runs', 3));

const messages = [];
const output = `${'x'.repeat(99)}\n`;
for (let turn = 0; turn < 500; turn++) {
  messages.push({ role: 'user', userTurn: true, blocks: [{ type: 'text', text: `question ${turn}` }] });
  messages.push({ role: 'tool', userTurn: false, blocks: [{ type: 'tool_result', toolUseId: 't', output: output.repeat(1000), isError: false }] });
  messages.push({ role: 'assistant', userTurn: false, blocks: [{ type: 'text', text: 'answer '.repeat(200) }] });
}
const load = [loadavg()[0]];
const runs = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const items = buildTranscriptItems({ messages, fork: null, forkedFrom: null });
  const t1 = performance.now();
  const layout = layoutTranscript(items, 120, { expanded: false, showReasoning: false });
  const t2 = performance.now();
  const expanded = layoutTranscript(items, 120, { expanded: true, showReasoning: false });
  const t3 = performance.now();
  runs.push({ itemsMs: t1 - t0, layoutMs: t2 - t1, expandedMs: t3 - t2, lines: layout.lineCount, expandedLines: expanded.lineCount });
}
load.push(loadavg()[0]);
const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
process.stdout.write(`${JSON.stringify({ runs, itemsMs: median('itemsMs'), layoutMs: median('layoutMs'), expandedMs: median('expandedMs'), load })}\n`);
