#!/usr/bin/env node
// One turn appended to a big session, re-indexed: import the product's catalog from dist/, index the session
// with a cache (its fold is saved), append one turn (the file's own last user/assistant lines, copied), and time
// the second index alone. The file is cut back to its size afterwards.
//   node bench/append-inproc.mjs HOME AGENT PATH
// Prints {bytes, appendedBytes, coldMs, appendMs, bytesRead, userTurnsBefore, userTurnsAfter}.
import { mkdtempSync, rmSync, statSync, truncateSync, appendFileSync, openSync, readSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadProduct as load } from './lib.mjs';

const [home, agent, path] = process.argv.slice(2);
const { CatalogCache } = await load('catalog/cache.js');
const { indexGroup, ScanContext } = await load('catalog/scan.js');
const { indexReads } = await load('core/io/lines.js');

const size = statSync(path).size;
// The last ~64 KiB of the file hold its last turn: copy its last user prompt and what follows it.
const tailBytes = Math.min(size, 256 * 1024);
const buf = Buffer.alloc(tailBytes);
const fd = openSync(path, 'r');
readSync(fd, buf, 0, tailBytes, size - tailBytes);
closeSync(fd);
const lines = buf.toString('utf8').split('\n').slice(1, -1);
const isPrompt = (l) => (agent === 'claude' ? l.includes('"type":"user"') && !l.includes('tool_result') : l.includes('"type":"user_message"') || (l.includes('"role":"user"') && l.includes('input_text') && !l.includes('environment_context')));
const from = lines.findLastIndex(isPrompt);
let turn = lines.slice(from === -1 ? -5 : from);
if (agent === 'claude') {
  // New uuids for the copied lines, the first one continuing from the file's last line.
  const last = [...buf.toString('utf8').matchAll(/"uuid":"([^"]+)"/g)].at(-1)?.[1];
  const map = new Map();
  turn = turn.map((l, k) => {
    let out = l.replace(/"uuid":"([^"]+)"/, (_, u) => {
      const fresh = `${u.slice(0, 24)}${String(Date.now() % 1e12).padStart(12, '0')}`.slice(0, 36);
      map.set(u, fresh);
      return `"uuid":"${fresh}"`;
    });
    out = out.replace(/"parentUuid":"([^"]+)"/, (_, u) => `"parentUuid":"${k === 0 ? last : (map.get(u) ?? u)}"`);
    return out;
  });
}
const appended = `${turn.join('\n')}\n`;

const xdg = mkdtempSync(join(tmpdir(), 'sessions-append-'));
const cache = await CatalogCache.load(join(xdg, 'catalog.jsonl'));
const context = new ScanContext(1024 * 1024);
const group = { agent, paths: [path], idHint: null, root: home, archived: false };
try {
  const t0 = performance.now();
  const before = await indexGroup(group, context, cache);
  const t1 = performance.now();
  await cache.save();
  appendFileSync(path, appended);
  const reloaded = await CatalogCache.load(join(xdg, 'catalog.jsonl'));
  const readBefore = indexReads.bytes;
  const t2 = performance.now();
  const after = await indexGroup(group, context, reloaded);
  const t3 = performance.now();
  process.stdout.write(`${JSON.stringify({ bytes: size, appendedBytes: Buffer.byteLength(appended), coldMs: Number((t1 - t0).toFixed(1)), appendMs: Number((t3 - t2).toFixed(2)), bytesRead: indexReads.bytes - readBefore, userTurnsBefore: before?.userTurns, userTurnsAfter: after?.userTurns })}\n`);
} finally {
  truncateSync(path, size);
  rmSync(xdg, { recursive: true, force: true });
}
