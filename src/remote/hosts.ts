import { dirname } from 'node:path';
import { defaultCachePath } from '../catalog/cache.js';
import { noRoots, type Locations } from '../catalog/locations.js';
import type { CatalogSession } from '../catalog/scan.js';
import type { Config } from '../config.js';
import { safeLine } from '../core/text.js';
import { HostActionError } from './host-sessions.js';
import { HostSource, type HostContext } from './host-source.js';
import type { SshSettings } from './ssh.js';

/** The name `--host` gives this machine (`--host local --host devbox`: both). */
export const LOCAL_HOST = 'local';

/**
 * Which machines a command reads: `--host` names them (`local` is this one); without it, this one and the config's
 * hosts. A destination that begins with `-` is refused: ssh is given one after `--`, but rsync runs ssh with the
 * host before any `--`, where `-oProxyCommand=…` would be an option that runs a command here.
 */
export function chosenHosts(named: readonly string[] | undefined, config: Pick<Config, 'hosts'>): { readonly local: boolean; readonly hosts: readonly string[] } {
  const chosen = named === undefined || named.length === 0 ? { local: true, hosts: unique(config.hosts) } : { local: named.includes(LOCAL_HOST), hosts: unique(named.filter((name) => name !== LOCAL_HOST)) };
  for (const host of chosen.hosts) {
    if (host === '' || host.startsWith('-') || safeLine(host) !== host) {
      throw new HostActionError(`not an ssh destination: ${JSON.stringify(host)} (a host cannot be empty, begin with "-" or hold control characters)`);
    }
  }
  return chosen;
}

export function sshSettings(config: Pick<Config, 'ssh' | 'connectTimeout'>): SshSettings {
  return { ssh: config.ssh, connectTimeout: config.connectTimeout };
}

/** Where mirrors and their caches go: beside the local catalog cache. */
export function hostContext(config: Config, env: Readonly<Record<string, string | undefined>>, homeDir: string, useCache: boolean): HostContext {
  const cacheDir = dirname(defaultCachePath(env, homeDir, { roots: noRoots() }));
  return {
    settings: sshSettings(config),
    cacheDir,
    cachePathFor: useCache ? (locations: Locations) => defaultCachePath(env, homeDir, locations) : null,
  };
}

/** Read every host at once (each over its own ssh connection); a host that fails says why in its status. */
export async function loadHosts(hosts: readonly string[], context: HostContext): Promise<HostSource[]> {
  const sources = hosts.map((host) => new HostSource(host, context));
  await Promise.all(sources.map((source) => source.load(false)));
  return sources;
}

/** The source a host row came from. */
export function sourceOf(session: CatalogSession, sources: readonly HostSource[]): HostSource | null {
  return session.host === undefined ? null : (sources.find((source) => source.host === session.host) ?? null);
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
