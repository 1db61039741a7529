// A session's key, kept by the object (sessionKey) or made anew for a row that lives a moment (unkeptSessionKey).
import { describe, expect, it } from 'vitest';
import { localSessionKey, sessionKey, unkeptSessionKey } from '../../src/core/model.js';

describe('session keys', () => {
  it('are the same made anew as kept, for this machine and for another host', () => {
    const local = { agent: 'codex', id: '019a-local' } as const;
    const remote = { agent: 'claude', id: 'b2c4-remote', host: 'box' } as const;
    expect(unkeptSessionKey({ ...local })).toBe(sessionKey({ ...local }));
    expect(unkeptSessionKey({ ...local })).toBe(localSessionKey('codex', '019a-local'));
    expect(unkeptSessionKey({ ...remote })).toBe(sessionKey({ ...remote }));
    expect(unkeptSessionKey({ ...remote })).toBe('box\u0000claude:b2c4-remote');
  });

  it('made anew, are not kept by the object: its kept key is made when first asked for', () => {
    const row: { agent: 'codex'; id: string } = { agent: 'codex', id: 'first' };
    expect(unkeptSessionKey(row)).toBe('codex:first');
    row.id = 'second';
    expect(sessionKey(row)).toBe('codex:second');
    row.id = 'third';
    expect(sessionKey(row)).toBe('codex:second');
  });
});
