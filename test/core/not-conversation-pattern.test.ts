import { describe, expect, it } from 'vitest';
import { ADAPTER_LIST, notConversationSources } from '../../src/core/formats/index.js';
import { notConversationPattern } from '../../src/core/io/snippet.js';

// The one pattern grep's workers, its inherited-turn search and the browser's snippets test a snippet's lead with.
describe('notConversationPattern', () => {
  it('is one pattern of every adapter that has one, and null without any', () => {
    const own = ADAPTER_LIST.flatMap((adapter) => (adapter.notConversation ? [adapter.notConversation] : []));
    expect(own.length).toBeGreaterThan(1);
    expect(notConversationSources()).toEqual(own.map((pattern) => pattern.source));
    expect(notConversationPattern([])).toBeNull();
  });

  it('matches a lead exactly when one adapter pattern does', () => {
    const joined = notConversationPattern(notConversationSources())!;
    const leads = [
      '{"type":"attachment","attachment":{"type":"file","content":"',
      '{"type":"user","message":{"role":"user","content":"',
      '{"type":"system","content":"',
      '{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"',
      '{"type":"session_meta","payload":{"instructions":"',
      '{"type":"session_meta","payload":{"base_instructions":{"text":"',
      '{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"',
      '{"type":"api-request","body":"',
      '',
    ];
    const own = ADAPTER_LIST.flatMap((adapter) => (adapter.notConversation ? [adapter.notConversation] : []));
    const rejected = leads.filter((lead) => own.some((pattern) => pattern.test(lead)));
    // Both kinds are among the leads: the comparison below could tell a pattern that rejects all or none.
    expect(rejected.length).toBeGreaterThan(2);
    expect(rejected.length).toBeLessThan(leads.length - 2);
    for (const lead of leads) expect([lead, joined.test(lead)]).toEqual([lead, rejected.includes(lead)]);
  });
});
