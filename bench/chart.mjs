#!/usr/bin/env node
// Chart of search latency per keystroke vs session count (us and fzf --filter), from bench/results.json.
//   node bench/chart.mjs [bench/results.json] [--out bench/search-latency]
// Writes OUT.svg (drawn here, no dependencies) and OUT.png (rsvg-convert from Debian's librsvg2-bin, or
// ImageMagick's convert when that is the real one).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BENCH_DIR as here, option } from './lib.mjs';

const args = process.argv.slice(2);
const outBase = resolve(option('--out', join(here, 'search-latency')));
const input = resolve(args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--out') ?? join(here, 'results.json'));
const results = JSON.parse(readFileSync(input, 'utf8'));
const points = results.chart?.sizes?.filter((p) => Number.isFinite(p.p95)) ?? [];
if (points.length === 0) {
  process.stderr.write(`chart: no search figures in ${input}\n`);
  process.exit(1);
}

const W = 960, H = 560, L = 90, R = 280, T = 70, B = 80;
const xs = points.map((p) => p.n);
const ys = points.flatMap((p) => [p.p50, p.p95, p.fullP95, p.fzfP50, p.fzfP95]).filter((v) => Number.isFinite(v) && v > 0);
const xMin = Math.min(...xs) / 1.3, xMax = Math.max(...xs) * 1.3;
const yMin = Math.max(0.1, Math.min(...ys, 16) / 1.5), yMax = Math.max(...ys, 50) * 1.5;
const lx = (n) => L + ((Math.log10(n) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * (W - L - R);
const ly = (v) => H - B - ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * (H - T - B);
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const fmtN = (n) => (n >= 1000 ? `${n / 1000}k` : String(n));

const parts = [];
parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif">`);
parts.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
parts.push(`<text x="${L}" y="32" font-size="20" font-weight="bold" fill="#222">Search latency per keystroke vs number of sessions</text>`);
parts.push(`<text x="${L}" y="54" font-size="13" fill="#555">${esc(`${results.machine?.cpus ?? '?'} cores, node ${results.machine?.node ?? '?'}; ${results.date?.slice(0, 10) ?? ''}; log–log; fzf = one \`fzf --filter\` process per keystroke`)}</text>`);
// grid
for (let e = Math.floor(Math.log10(yMin)); e <= Math.ceil(Math.log10(yMax)); e++) {
  for (const m of [1, 2, 5]) {
    const v = m * 10 ** e;
    if (v < yMin || v > yMax) continue;
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${ly(v)}" y2="${ly(v)}" stroke="${m === 1 ? '#ccc' : '#eee'}"/>`);
    parts.push(`<text x="${L - 8}" y="${ly(v) + 4}" font-size="12" text-anchor="end" fill="#444">${v >= 1 ? v : v.toFixed(1)} ms</text>`);
  }
}
for (const n of xs) {
  parts.push(`<line x1="${lx(n)}" x2="${lx(n)}" y1="${T}" y2="${H - B}" stroke="#eee"/>`);
  parts.push(`<text x="${lx(n)}" y="${H - B + 18}" font-size="12" text-anchor="middle" fill="#444">${fmtN(n)}</text>`);
}
parts.push(`<text x="${(L + W - R) / 2}" y="${H - 28}" font-size="13" text-anchor="middle" fill="#222">sessions in the catalog</text>`);
parts.push(`<text x="22" y="${(T + H - B) / 2}" font-size="13" text-anchor="middle" fill="#222" transform="rotate(-90 22 ${(T + H - B) / 2})">milliseconds per keystroke</text>`);
parts.push(`<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="none" stroke="#888"/>`);
// targets
const targets = [[10000, 16], [100000, 50]].filter(([n]) => n >= xMin && n <= xMax);
for (const [n, v] of targets) {
  parts.push(`<line x1="${lx(n) - 18}" x2="${lx(n) + 18}" y1="${ly(v)}" y2="${ly(v)}" stroke="#2a9d3a" stroke-width="3"/>`);
  parts.push(`<text x="${lx(n) + 22}" y="${ly(v) + 4}" font-size="11" fill="#2a9d3a">target p95 ${v} ms</text>`);
}
const series = [
  ['sessions p95 (first page)', 'p95', '#d62728', ''],
  ['sessions p50 (first page)', 'p50', '#d62728', '6 4'],
  ['sessions p95 (full ranking)', 'fullP95', '#ff9896', '2 3'],
  ['fzf --filter p95', 'fzfP95', '#1f77b4', ''],
  ['fzf --filter p50', 'fzfP50', '#1f77b4', '6 4'],
];
series.forEach(([name, key, color, dash], i) => {
  const pts = points.filter((p) => Number.isFinite(p[key]) && p[key] > 0);
  if (!pts.length) return;
  parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2.5" ${dash ? `stroke-dasharray="${dash}"` : ''} points="${pts.map((p) => `${lx(p.n).toFixed(1)},${ly(p[key]).toFixed(1)}`).join(' ')}"/>`);
  for (const p of pts) parts.push(`<circle cx="${lx(p.n)}" cy="${ly(p[key])}" r="4" fill="${color}"/>`);
  const y = T + 20 + i * 24;
  parts.push(`<line x1="${W - R + 20}" x2="${W - R + 52}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="2.5" ${dash ? `stroke-dasharray="${dash}"` : ''}/>`);
  parts.push(`<text x="${W - R + 60}" y="${y + 4}" font-size="13" fill="#222">${esc(name)}</text>`);
});
const last = points[points.length - 1];
parts.push(`<text x="${W - R + 20}" y="${T + 150}" font-size="12" fill="#444">at ${fmtN(last.n)} sessions:</text>`);
parts.push(`<text x="${W - R + 20}" y="${T + 168}" font-size="12" fill="#444">sessions p95 ${last.p95} ms (first page)</text>`);
if (Number.isFinite(last.fullP95)) parts.push(`<text x="${W - R + 20}" y="${T + 186}" font-size="12" fill="#444">sessions p95 ${last.fullP95} ms (full ranking)</text>`);
if (Number.isFinite(last.fzfP95)) parts.push(`<text x="${W - R + 20}" y="${T + 204}" font-size="12" fill="#444">fzf --filter p95 ${last.fzfP95} ms</text>`);
parts.push('</svg>');
writeFileSync(`${outBase}.svg`, `${parts.join('\n')}\n`);

const rsvg = spawnSync('rsvg-convert', ['-f', 'png', '-o', `${outBase}.png`, `${outBase}.svg`], { stdio: 'inherit' });
if (rsvg.error || rsvg.status !== 0) {
  const im = spawnSync('convert', [`${outBase}.svg`, `${outBase}.png`], { stdio: 'inherit' });
  if (im.error || im.status !== 0) {
    process.stderr.write('chart: wrote the SVG only; install librsvg2-bin (rsvg-convert) for the PNG\n');
    process.exit(0);
  }
}
process.stdout.write(`chart: ${outBase}.png\n`);
