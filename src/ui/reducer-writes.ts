// The browser's writes other than forks: rename (a prompt, then the agent's own name field), delete (a question, then
// the trash) and its undo. The reducer only records what was asked (`rename.status`, `pendingWrite`); the container's
// hook runs it through the services and reports back.
import { sessionKey } from '../core/model.js';
import type { Action } from './actions.js';
import { catalogChanged } from './reducer-list.js';
import type { BrowserState } from './state.js';

/** The write actions, or null for any other (the main reducer handles those). */
export function writesReducer(state: BrowserState, action: Action): BrowserState | null {
  switch (action.type) {
    case 'startRename': {
      const session = state.rows.at(state.selected)?.session;
      if (!session) return state;
      return { ...state, mode: 'rename', rename: { session, name: session.name ?? '', status: 'editing', error: null }, notice: null };
    }
    case 'renameInput':
      return editing(state) ? { ...state, rename: { ...state.rename!, name: state.rename!.name + action.text, status: 'editing', error: null } } : state;
    case 'renameBackspace':
      return editing(state) ? { ...state, rename: { ...state.rename!, name: [...state.rename!.name].slice(0, -1).join(''), status: 'editing', error: null } } : state;
    case 'renameKill':
      return editing(state) ? { ...state, rename: { ...state.rename!, name: '', status: 'editing', error: null } } : state;
    case 'renameSubmit':
      if (!editing(state)) return state;
      if (state.rename!.name.trim() === '') return { ...state, rename: { ...state.rename!, status: 'error', error: 'type a name first' } };
      return { ...state, rename: { ...state.rename!, status: 'working', error: null } };
    case 'renameCancel':
      return state.rename?.status === 'working' ? state : { ...state, mode: 'list', rename: null };
    case 'renameDone': {
      const changed = catalogChanged(state, [action.session], []);
      return { ...changed, mode: 'list', rename: null, notice: { text: `renamed ${action.session.agent} session ${action.session.id}: ${action.session.title}`, tone: 'success' } };
    }
    case 'renameFailed':
      return state.rename ? { ...state, rename: { ...state.rename, status: 'error', error: action.message } } : state;
    case 'startRemove': {
      const session = state.rows.at(state.selected)?.session;
      if (!session) return state;
      const message = `Move ${session.agent} session "${session.title}" to the trash? (Ctrl-R puts it back)`;
      return { ...state, mode: 'confirm', confirm: { kind: 'remove', session, message, returnTo: 'list' }, notice: null };
    }
    case 'removeDone': {
      const changed = catalogChanged(state, [], [sessionKey(action.session)]);
      return { ...changed, pendingWrite: null, lastDeleted: action.session, notice: { text: `moved ${action.session.agent} session ${action.session.id} to the trash · Ctrl-R undo`, tone: 'success' } };
    }
    case 'undoRemove':
      if (state.lastDeleted === null || state.pendingWrite !== null) return state;
      return { ...state, pendingWrite: { kind: 'restore', session: state.lastDeleted }, notice: { text: `restoring ${state.lastDeleted.agent} session ${state.lastDeleted.id}…`, tone: 'info' } };
    case 'restoreDone': {
      const restored = state.pendingWrite?.session;
      const changed = action.session === null ? state : catalogChanged(state, [action.session], []);
      return { ...changed, pendingWrite: null, lastDeleted: null, notice: { text: `restored ${restored?.agent ?? ''} session ${restored?.id ?? ''}`, tone: 'success' } };
    }
    case 'writeFailed':
      return { ...state, pendingWrite: null, notice: { text: action.message, tone: 'error' } };
    default:
      return null;
  }
}

/** A confirmed delete: the session goes to the container to be moved to the trash. */
export function confirmRemove(state: BrowserState): BrowserState {
  const session = state.confirm?.kind === 'remove' ? state.confirm.session : null;
  if (session === null || state.pendingWrite !== null) return { ...state, mode: 'list', confirm: null };
  return { ...state, mode: 'list', confirm: null, pendingWrite: { kind: 'remove', session }, notice: { text: `moving ${session.agent} session ${session.id} to the trash…`, tone: 'info' } };
}

function editing(state: BrowserState): boolean {
  return state.rename !== null && state.rename.status !== 'working';
}
