// `list --watch --json`: what another machine's `sessions` reads over one ssh connection (remote/host-source.ts).
import { fstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { scanHere } from '../app/list.js';
import { isUnder } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import { watchCatalog } from '../catalog/watch.js';
import { knownDigests, rowDigest } from '../remote/row-digest.js';
import { SESSIONS_VERSION } from '../version.js';
import { cachePathOf, cwd, locationsFrom, type CommonOptions } from './common.js';
import type { Agent } from '../core/model.js';
import { toListJson } from './output.js';

/**
 * `list --watch --json`: this machine's rows as NDJSON, `{"synced":true}`, then each row that changes as the
 * agents write (`{"removed":"agent:id"}` for one that is gone): what another machine's browser reads over one ssh
 * connection. Ends when its reader goes away (stdout closed, or the stdin of an ssh channel ended).
 */
export async function watchList(options: WatchOptions): Promise<void> {
  if (options.hello) process.stdout.write(`${JSON.stringify({ hello: { sessions: SESSIONS_VERSION, protocol: 1 } })}\n`);
  const channel = stdinChannel();
  const known = options.known && channel !== null ? await channel.firstLine.then(knownDigests) : new Set<string>();
  const locations = locationsFrom(options);
  const result = await scanHere({ locations, cachePath: cachePathOf(options, locations) }, options.agent ? { agents: options.agent } : {});
  const cache = result.cache;
  const scopeDir = options.all ? null : resolve(cwd, options.cwd ?? '.');
  const shown = (s: CatalogSession): boolean => (scopeDir === null || isUnder(s.cwd, scopeDir)) && (options.agent === undefined || options.agent.includes(s.agent));
  const write = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);
  const digests: string[] = [];
  for (const s of result.sessions) {
    if (!shown(s)) continue;
    const line = JSON.stringify(toListJson(s));
    const digest = rowDigest(line);
    digests.push(digest);
    if (!known.has(digest)) process.stdout.write(`${line}\n`);
  }
  // Every row's digest: the reader keeps the rows it holds among them, and drops the rest.
  if (options.known) write({ rows: digests });
  const watcher = watchCatalog(locations, result.sessions, {
    context: result.context,
    ...(cache ? { cache } : {}),
    onChange: (change) => {
      for (const s of change.upserted) if (shown(s)) write(toListJson(s));
      for (const key of change.removed) write({ removed: key });
    },
  });
  // Synced once the watcher is armed: a change from then on is reported.
  await watcher.ready;
  write({ synced: true });
  await new Promise<void>((resolveDone) => {
    const stop = (): void => resolveDone();
    process.stdout.once('close', stop);
    process.once('SIGTERM', stop);
    process.once('SIGHUP', stop);
    void channel?.ended.then(stop);
  });
  await watcher.close();
  await cache?.save().catch(() => undefined);
}

/** What `list --watch` takes. */
export type WatchOptions = CommonOptions & { agent?: readonly Agent[]; cwd?: string; all?: boolean; hello?: boolean; known?: boolean };

/** The most a reader's first line (the digests it holds) may be. */
const FIRST_LINE_MAX = 4 * 1024 * 1024;

/**
 * Over ssh, stdin is the channel: when the other side goes, it ends (a terminal or /dev/null never does: null). Its
 * first line, with `--known`, names the rows the reader holds.
 */
function stdinChannel(): { readonly firstLine: Promise<string>; readonly ended: Promise<void> } | null {
  try {
    const stat = fstatSync(0);
    if (!stat.isFIFO() && !stat.isSocket()) return null;
  } catch {
    return null;
  }
  let text = '';
  let lineDone: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolveLine) => (lineDone = resolveLine));
  const ended = new Promise<void>((resolveEnd) => {
    process.stdin.on('end', resolveEnd).on('error', () => resolveEnd());
  });
  void ended.then(() => lineDone(text));
  process.stdin.on('data', (chunk: Buffer) => {
    if (text.length > FIRST_LINE_MAX) return;
    text += chunk.toString('utf8');
    const newline = text.indexOf('\n');
    if (newline >= 0) {
      lineDone(text.slice(0, newline));
      text = text.slice(0, FIRST_LINE_MAX + 1);
    } else if (text.length > FIRST_LINE_MAX) lineDone('');
  });
  process.stdin.resume();
  return { firstLine, ended };
}
