#!/usr/bin/env node
// The I/O floor for a cold index: find the same session files the indexer lists and read them with the same
// concurrency as src/catalog/scan.ts. Nothing is parsed. With --full (the floor of an exact index): every byte
// of every file in 1 MiB chunks, counting lines. Without it: the first HEAD and last TAIL bytes of each file.
//
//   node bench/io-floor.mjs HOME [--claw-dir DIR] [--full] [--head BYTES] [--tail BYTES] [--concurrency N]
//
// Prints one JSON line: {files, bytes, lines?, ms} (ms = in-process time, after node has started).
import { performance } from 'node:perf_hooks';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hasFlag, option as opt } from './lib.mjs';

const started = performance.now();
const args = process.argv.slice(2);
const home = args[0];
if (!home) {
  process.stderr.write('usage: node bench/io-floor.mjs HOME [--claw-dir DIR] [--head BYTES] [--tail BYTES]\n');
  process.exit(2);
}
// Keep in step with DEFAULT_HEAD_BYTES / DEFAULT_TAIL_BYTES in src/catalog/scan.ts.
const HEAD = Number(opt('--head', 64 * 1024));
const TAIL = Number(opt('--tail', 16 * 1024));
const CONCURRENCY = Number(opt('--concurrency', 32));
const clawDir = opt('--claw-dir', join(home, 'src'));

async function walk(dir, depth, accept, out, skipDir = () => false) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const subdirs = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (depth > 0 && !skipDir(e.name)) subdirs.push(p);
    } else if (accept(e.name, dir)) out.push(p);
  }
  await Promise.all(subdirs.map((d) => walk(d, depth - 1, accept, out, skipDir)));
}

const files = [];
await Promise.all([
  walk(join(home, '.codex', 'sessions'), 4, (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), files),
  walk(join(home, '.codex', 'archived_sessions'), 0, (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), files),
  walk(join(home, '.claude', 'projects'), 1, (n) => n.endsWith('.jsonl') && !n.startsWith('agent-'), files, (n) => n === 'subagents'),
  // claw workspaces: <workspace>/.claw/sessions/*.jsonl a few levels below the claw dir
  walk(clawDir, 6, (n, dir) => /\/(\.claw|\.claude)\/sessions|\/\.port_sessions/.test(dir) && /\.jsonl?$/.test(n), files, (n) => n === 'node_modules' || n === '.git'),
]);

let bytes = 0;
const buffer = () => Buffer.allocUnsafe(HEAD + TAIL);
async function readHeadTail(path, buf) {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size <= HEAD + TAIL) {
      const { bytesRead } = await fh.read(buf, 0, size, 0);
      bytes += bytesRead;
    } else {
      const a = await fh.read(buf, 0, HEAD, 0);
      const b = await fh.read(buf, HEAD, TAIL, size - TAIL);
      bytes += a.bytesRead + b.bytesRead;
    }
  } finally {
    await fh.close();
  }
}
const FULL = hasFlag('--full');
const CHUNK = 1 << 20;
let lines = 0;
async function readWhole(path, buf) {
  const fh = await open(path, 'r');
  try {
    for (let position = 0; ; ) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, position);
      if (bytesRead === 0) break;
      for (let at = buf.indexOf(10, 0); at !== -1 && at < bytesRead; at = buf.indexOf(10, at + 1)) lines++;
      position += bytesRead;
      bytes += bytesRead;
    }
  } finally {
    await fh.close();
  }
}
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, files.length) }, async () => {
    const buf = FULL ? Buffer.allocUnsafe(CHUNK) : buffer();
    while (next < files.length) await (FULL ? readWhole : readHeadTail)(files[next++], buf);
  }),
);
process.stdout.write(`${JSON.stringify({ files: files.length, bytes, ...(FULL ? { lines } : {}), ms: Number((performance.now() - started).toFixed(1)) })}\n`);
