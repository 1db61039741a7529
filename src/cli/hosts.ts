// `sessions hosts`: each host as it is read now — its own `sessions` (and that one's version) or a mirror here —,
// when its rows were last read whole, and why one cannot be read (with what was known of it before).
import type { Command } from 'commander';
import { homedir } from 'node:os';
import { readHostRecord, type HostRecord } from '../remote/host-record.js';
import type { HostSource } from '../remote/host-source.js';
import { mirrorDir } from '../remote/mirror-layout.js';
import { chosenHosts, hostContext, loadHosts } from '../remote/hosts.js';
import { relativeTime } from '../ui/time.js';
import { env, readConfig, withLocations, type CommonOptions } from './common.js';

interface HostLine {
  readonly host: string;
  /** How it is read: `sessions` (its own) or `mirror`; when it cannot be read now, how it was read last (null: never). */
  readonly mode: 'sessions' | 'mirror' | null;
  /** The version its `sessions` said (null: a mirror, or not known). */
  readonly version: string | null;
  /** When its rows were last read whole (ISO 8601), or null: never from this machine. */
  readonly syncedAt: string | null;
  readonly reachable: boolean;
  /** Rows it has now (a host that cannot be read: those its mirror lists, stale). */
  readonly sessions: number;
  /** Why it cannot be read now, or null. */
  readonly reason: string | null;
  /** Why a host with `sessions` is read through a mirror (too old), or null. */
  readonly note: string | null;
}

export function hostsCommand(program: Command): void {
  withLocations(program.command('hosts'))
    .description('each host: read by its own sessions (with its version) or a mirror here, and when it was last synced')
    .option('--json', 'print [{host, mode, version, syncedAt, reachable, sessions, reason, note}] as JSON')
    .addHelpText(
      'after',
      `
Each host is read as list reads it (a mirror is synced). mode: "sessions" when the host runs its own
sessions (only rows travel), "mirror" when its session files are copied here with rsync (no sessions on
its PATH, or one too old for this one). A host that cannot be read now shows what was known of it last.

Examples:
  sessions hosts                  the config's hosts
  sessions hosts --host devbox --json`,
    )
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommonOptions>();
      const config = readConfig();
      const { hosts } = chosenHosts(options.host, config);
      if (hosts.length === 0) {
        // The answer to "which hosts": none (said on stdout, as the hosts would be).
        process.stdout.write(options.json ? '[]\n' : 'no hosts: name them with --host or "hosts" in the config (docs/hosts.md)\n');
        return;
      }
      const context = hostContext(config, env, homedir(), options.cache !== false);
      const sources = await loadHosts(hosts, context);
      const lines = await Promise.all(sources.map(async (source) => hostLine(source, await readHostRecord(mirrorDir(context.cacheDir, source.host)))));
      for (const source of sources) source.close();
      if (options.json) {
        process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
        return;
      }
      const now = Date.now();
      const width = Math.max(...lines.map((line) => line.host.length));
      for (const line of lines) process.stdout.write(`${textLine(line, width, now)}\n`);
    });
}

function hostLine(source: HostSource, record: HostRecord | null): HostLine {
  const reachable = source.status.kind !== 'unreachable';
  const known = reachable ? null : record;
  return {
    host: source.host,
    mode: source.via ?? known?.via ?? null,
    version: source.version ?? known?.version ?? null,
    syncedAt: source.syncedAt ?? known?.syncedAt ?? null,
    reachable,
    sessions: source.sessions().length,
    reason: source.status.kind === 'unreachable' ? source.status.reason : null,
    note: source.note ?? known?.note ?? null,
  };
}

/** `devbox  sessions 0.1.0  synced 2026-11-28T19:50:02Z (now)  142 sessions`, and why, when it is not read now. */
function textLine(line: HostLine, width: number, now: number): string {
  const mode = line.mode === 'sessions' ? `sessions ${line.version ?? '?'}` : (line.mode ?? '-');
  const synced = line.syncedAt === null ? 'never synced' : `synced ${line.syncedAt.slice(0, 19).replace('T', ' ')} (${relativeTime(line.syncedAt, now)})`;
  const state = line.reachable ? `${line.sessions} session${line.sessions === 1 ? '' : 's'}` : `unreachable: ${line.reason ?? ''}${line.sessions > 0 ? ` · ${line.sessions} listed from the mirror (stale)` : ''}`;
  return [line.host.padEnd(width), mode.padEnd(14), synced.padEnd(36), state, ...(line.note === null ? [] : [`· ${line.note}`])].join('  ');
}
