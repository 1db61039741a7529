/**
 * How Auggie runs offline against the stand-in: its login skipped with AUGMENT_SESSION_AUTH (what `auggie login` would
 * keep in ~/.augment/session.json: a token, the tenant URL its backend calls go to, scopes), the tenant URL the
 * stand-in's loopback origin, HOME the sandbox's (Auggie keeps everything in ~/.augment), no auto-update.
 */
export function auggieSandboxEnv(home: string, origin: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: 'stand-in-token', tenantURL: `${origin}/`, scopes: ['email'] }),
    AUGMENT_DISABLE_AUTO_UPDATE: '1',
  };
}

/** argv (after the binary) for one turn in print mode: a new session, or `--resume ID` appended to one. */
export function auggiePrintArgs(prompt: string, resumeId?: string): string[] {
  return [...(resumeId === undefined ? [] : ['--resume', resumeId]), '--print', '--output-format', 'json', prompt];
}

/** The session id Auggie's `--output-format json` reports, or null. */
export function auggieReportedSessionId(stdout: string): string | null {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const value = JSON.parse(line) as { session_id?: unknown; sessionId?: unknown };
      const id = value.session_id ?? value.sessionId;
      if (typeof id === 'string') return id;
    } catch {
      // a line of text before the JSON
    }
  }
  return null;
}
