import { messageText, type Message } from '../core/model.js';
import type { Exchange } from './state.js';

/** The first and the last exchange: a user prompt and the assistant's first (resp. final) text in that turn. */
export function firstAndLastExchange(messages: readonly Message[]): { readonly first: Exchange | null; readonly last: Exchange | null } {
  const turns: number[] = [];
  messages.forEach((message, index) => {
    if (message.userTurn) turns.push(index);
  });
  if (turns.length === 0) return { first: null, last: null };
  const exchangeAt = (turnIndex: number, answer: 'first' | 'last'): Exchange => {
    const start = turns[turnIndex]!;
    const end = turns[turnIndex + 1] ?? messages.length;
    let reply = '';
    for (let i = start + 1; i < end; i++) {
      const message = messages[i]!;
      if (message.role !== 'assistant') continue;
      const text = messageText(message).trim();
      if (text) reply = answer === 'last' ? text : reply || text;
    }
    return { prompt: messageText(messages[start]!), reply };
  };
  return { first: exchangeAt(0, 'first'), last: turns.length > 1 ? exchangeAt(turns.length - 1, 'last') : null };
}
