import { join } from 'node:path';

/**
 * Kilo Code CLI's config for a loopback provider (opencode's config shape, read from KILO_CONFIG_CONTENT): no
 * sharing, no update check, the stand-in as the only model.
 */
export function kiloConfig(origin: string): string {
  return JSON.stringify({
    autoupdate: false,
    share: 'disabled',
    model: 'standin/stand-in',
    small_model: 'standin/stand-in',
    provider: {
      standin: { npm: '@ai-sdk/openai-compatible', name: 'stand-in', options: { baseURL: `${origin}/v1`, apiKey: 'stand-in-key' }, models: { 'stand-in': { name: 'stand-in' } } },
    },
  });
}

/**
 * What Kilo Code reads of its environment, all inside `home`: HOME and every XDG folder (never the machine's
 * ~/.local/share/kilo), the stand-in as its only model, and each of its network features switched off (update
 * check, sharing, the models catalogue, LSP downloads, session ingest, presence, codebase indexing, telemetry, the
 * background daemon).
 */
export function kiloSandboxEnv(home: string, origin: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    KILO_CONFIG_CONTENT: kiloConfig(origin),
    KILO_DISABLE_AUTOUPDATE: '1',
    KILO_DISABLE_SHARE: '1',
    KILO_DISABLE_MODELS_FETCH: '1',
    KILO_DISABLE_LSP_DOWNLOAD: '1',
    KILO_DISABLE_SESSION_INGEST: '1',
    KILO_DISABLE_PRESENCE: '1',
    KILO_DISABLE_CODEBASE_INDEXING: '1',
    KILO_TELEMETRY_LEVEL: 'off',
    KILO_NO_DAEMON: '1',
  };
}
