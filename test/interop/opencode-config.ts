import { join } from 'node:path';

/** opencode's config for a loopback provider: no sharing, no update check, the stand-in as the only model. */
export function opencodeConfig(origin: string): string {
  return JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
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
 * What opencode reads of its environment, all inside `home`: HOME and every XDG folder (never the machine's
 * ~/.local/share/opencode), the stand-in as its only model, no update check.
 */
export function opencodeSandboxEnv(home: string, origin: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_CONFIG_CONTENT: opencodeConfig(origin),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
}
