import { Box, Text } from 'ink';
import { contentQuery, type BrowserState, type Mode } from '../state.js';
import { useTheme } from '../theme.js';

export interface FooterProps {
  readonly state: BrowserState;
  readonly width: number;
}

/** Each mode's main keys, each line short enough for 80 columns beside an empty query (the help has the rest). */
export const FOOTER_HINTS: Readonly<Record<Mode, string>> = {
  list: '↑↓ move · Enter resume · → read · Tab more · Ctrl-A all · Esc quit',
  menu: '↑↓ choose · Enter runs it · or its key · Esc close',
  transcript: '] [ turn · / find · n N match · e outputs · f fork · Tab resume… · Esc back',
  find: 'Enter find · Ctrl-W Ctrl-U erase · Esc cancel',
  fork: 'Enter fork · Tab agent · ↑↓ what it keeps · Esc cancel',
  confirm: 'y yes · n no',
  rename: 'Enter rename · Ctrl-U erase · Esc cancel',
  help: 'Esc close',
  problems: 'Esc close',
};

/** The fork prompt with no turn selected to fork before: the whole session is the only extent. */
export const WHOLE_FORK_HINTS = 'Enter fork · Tab agent · Esc cancel';
/** The question asked when the session to resume looks open in an agent. */
export const IN_USE_HINTS = 'r resume anyway · f fork and resume the fork · Esc cancel';
/** The question asked before a delete: only y deletes. */
export const REMOVE_HINTS = 'y move it to the trash · n Esc keep it';
/** The list's hints after a delete in this browser: its undo. */
export const UNDO_HINTS = '↑↓ move · Enter resume · Tab more · Ctrl-R undo delete · Esc quit';
/** The list's hints once a query is typed (Esc clears it before it quits). */
export const QUERY_HINTS = '↑↓ move · Enter resume · → read · Tab more · Esc clear';
/** The hints of a content search (`>text`): → opens the transcript at the match. */
export const CONTENT_HINTS = '↑↓ move · Enter resume · → at the match · Ctrl-G titles · Esc clear';

/** What the footer's input shows before the text: the list's query (always typed into) or the transcript's find. */
export const QUERY_PROMPT = 'search: ';

/** The bottom line: the text being typed (the query in the list, the find in a transcript), then the mode's main keys. */
export function Footer({ state, width }: FooterProps) {
  const theme = useTheme();
  const list = state.mode === 'list';
  const hints = state.mode === 'confirm' && state.confirm?.kind === 'inUse' ? IN_USE_HINTS : state.mode === 'confirm' && state.confirm?.kind === 'remove' ? REMOVE_HINTS : list && state.query === '' && state.lastDeleted !== null ? UNDO_HINTS : state.mode === 'fork' && state.fork && state.fork.atTurn < 2 ? WHOLE_FORK_HINTS : !list ? FOOTER_HINTS[state.mode] : contentQuery(state.query) !== null ? CONTENT_HINTS : state.query === '' ? FOOTER_HINTS.list : QUERY_HINTS;
  const input = list ? `${QUERY_PROMPT}${state.query}` : state.mode === 'find' ? `find: ${state.transcript?.findDraft ?? ''}` : state.mode === 'rename' ? `name: ${state.rename?.name ?? ''}` : null;
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text wrap="truncate-end">
        {input !== null && (
          <Text color={theme.match} bold>
            {input}
            <Text inverse> </Text>
            {'  '}
          </Text>
        )}
        <Text color={theme.dim}>{hints}</Text>
      </Text>
    </Box>
  );
}
