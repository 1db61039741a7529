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
