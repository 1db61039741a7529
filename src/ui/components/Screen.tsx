import { Box } from 'ink';
import type { ReactNode } from 'react';
import { bodyHeight, listGeometry, noticeRows } from '../geometry.js';
import { CONTENT_MIN_CHARS, contentQuery, searchSettled, type BrowserState } from '../state.js';
import { CONFIRM_PROMPT_ROWS, ConfirmPrompt } from './ConfirmPrompt.js';
import { Footer } from './Footer.js';
import { FORK_PROMPT_ROWS, ForkPrompt } from './ForkPrompt.js';
import { RENAME_PROMPT_ROWS, RenamePrompt } from './RenamePrompt.js';
import { Header, indexingProgress } from './Header.js';
import { HelpView } from './HelpView.js';
import { MenuView, menuRows } from './MenuView.js';
import { menuItems } from '../menu.js';
import { NoticeLine } from './NoticeLine.js';
import { Preview } from './Preview.js';
import { ProblemsView } from './ProblemsView.js';
import { SessionList } from './SessionList.js';
import { StatusView } from './StatusView.js';
import { TranscriptView } from './TranscriptView.js';

export interface ScreenProps {
  readonly state: BrowserState;
  /** Where sessions were looked for, for the empty and loading states. */
  readonly lookedIn: readonly string[];
}

/** The whole frame, rows - 1 tall: header, body for the mode, notice line, footer. */
export function Screen({ state, lookedIn }: ScreenProps) {
  const { columns, rows } = state.size;
  const notice = noticeRows(state.notice, state.size.columns);
  return (
    <Box flexDirection="column" width={columns} height={Math.max(1, rows - 1)} overflow="hidden">
      <Header state={state} width={columns} />
      <Body state={state} lookedIn={lookedIn} height={bodyHeight(state.size, notice)} />
      <NoticeLine state={state} width={columns} />
      <Footer state={state} width={columns} />
    </Box>
  );
}

function showsTranscript(state: BrowserState): boolean {
  if (!state.transcript) return false;
  if (state.mode === 'help' || state.mode === 'problems') return state.overlayReturn !== 'list';
  if (state.mode === 'confirm') return state.confirm?.returnTo === 'transcript';
  if (state.mode === 'menu') return state.menu?.returnTo === 'transcript';
  return state.mode === 'transcript' || state.mode === 'find' || state.mode === 'fork';
}

function Body({ state, lookedIn, height }: { readonly state: BrowserState; readonly lookedIn: readonly string[]; readonly height: number }) {
  const { columns } = state.size;
  if (state.mode === 'help') return <HelpView width={columns} height={height} />;
  if (state.mode === 'problems') return <ProblemsView problems={state.problems} width={columns} height={height} />;
  const { prompt, promptRows } = promptOf(state);
  const mainHeight = Math.max(1, height - promptRows);
  if (showsTranscript(state) && state.transcript) {
    return (
      <Box flexDirection="column" height={height}>
        <TranscriptView transcript={state.transcript} width={columns} height={mainHeight} />
        {prompt}
      </Box>
    );
  }
  if (state.loading && state.sessions.length === 0) {
    const progress = state.loading.total > 0 ? ` ${indexingProgress(state.loading)}` : '';
    return <StatusView lines={[`Scanning for sessions…${progress}`, ...lookedIn.map((place) => `  ${place}`)]} width={columns} height={height} />;
  }
  if (state.sessions.length === 0) {
    return <StatusView lines={['No sessions found. Looked in:', ...lookedIn.map((place) => `  ${place}`)]} width={columns} height={height} />;
  }
  const geometry = listGeometry(state.size, noticeRows(state.notice, state.size.columns));
  // A prompt takes the bottom preview's place (the list gives up rows only when it is taller), else rows of its own.
  const below = geometry.preview.placement === 'bottom' ? Math.max(0, promptRows - geometry.preview.height) : promptRows;
  const listHeight = Math.max(1, geometry.listHeight - below);
  // A prompt under the list may cover the selected row: keep it in view.
  const top = Math.max(state.listTop, state.selected - listHeight + 1);
  const row = state.rows.at(state.selected) ?? null;
  const query = state.query.trim();
  const content = contentQuery(state.query);
  const emptyText = content !== null
    ? content.length < CONTENT_MIN_CHARS
      ? 'Type the text to find inside every transcript (tool outputs too). Ctrl-G goes back to searching titles.'
      : state.content?.query === content && state.content.done
        ? `No transcript contains "${content}"${state.hiddenMatches > 0 ? ` here; ${state.hiddenMatches} in other directories (Ctrl-A shows all)` : ''}.`
        : `Searching every transcript for "${content}"…`
    : query && !searchSettled(state)
    ? `Searching "${query}"…`
    : query
    ? `Nothing matches "${query}"${state.hiddenMatches > 0 ? ` here; ${state.hiddenMatches} in other directories (Ctrl-A shows all)` : ''}.`
    : 'No sessions in this directory. Ctrl-A shows all.';
  const preview = <Preview session={row?.session ?? null} hit={row?.hit ?? null} data={state.preview} placement={geometry.preview} homeDir={state.homeDir} />;
  return (
    <Box flexDirection="column" height={height}>
      {/* Clipped: the side preview's divider must not run on under the prompt below it. */}
      <Box flexDirection={geometry.preview.placement === 'side' ? 'row' : 'column'} height={height - (geometry.preview.placement === 'bottom' ? 0 : promptRows)} overflow="hidden">
        <SessionList
          rows={state.rows}
          top={top}
          selected={state.selected}
          width={geometry.listWidth}
          height={listHeight}
          now={state.now}
          homeDir={state.homeDir}
          sort={state.sort}
          emptyText={emptyText}
        />
        {prompt && geometry.preview.placement === 'bottom' ? prompt : preview}
      </Box>
      {geometry.preview.placement !== 'bottom' && prompt}
    </Box>
  );
}

/** The prompt or menu shown under the list or transcript in this mode, and the rows it takes. */
function promptOf(state: BrowserState): { readonly prompt: ReactNode; readonly promptRows: number } {
  const { columns } = state.size;
  if (state.mode === 'fork' && state.fork) return { prompt: <ForkPrompt fork={state.fork} width={columns} />, promptRows: FORK_PROMPT_ROWS };
  if (state.mode === 'rename' && state.rename) return { prompt: <RenamePrompt rename={state.rename} width={columns} />, promptRows: RENAME_PROMPT_ROWS };
  if (state.mode === 'confirm' && state.confirm) return { prompt: <ConfirmPrompt confirm={state.confirm} cwd={state.cwd} width={columns} />, promptRows: CONFIRM_PROMPT_ROWS };
  if (state.mode === 'menu' && state.menu) {
    const items = menuItems(state);
    const title = state.menu.returnTo === 'transcript' ? state.transcript?.session.title : state.rows.at(state.selected)?.session.title;
    return { prompt: <MenuView items={items} selected={state.menu.selected} title={title ?? 'the list'} width={columns} />, promptRows: menuRows(items) };
  }
  return { prompt: null, promptRows: 0 };
}
