import type { Message } from './model.js';

/** Where a session being started gets its history from (the seed's InitialHistory). */
export type InitialHistory<M = Message> =
  | { readonly kind: 'new' }
  | { readonly kind: 'resumed'; readonly id: string; readonly history: readonly M[]; readonly path: string }
  | { readonly kind: 'forked'; readonly history: readonly M[]; readonly parent: ForkParent | null };

export interface ForkParent {
  readonly id: string;
  readonly path: string;
}

export const NEW_HISTORY: InitialHistory<never> = { kind: 'new' };
