import { Box, Text } from 'ink';
import { contentQuery, type BrowserState } from '../state.js';
import { useTheme } from '../theme.js';

export interface FooterProps {
  readonly state: BrowserState;
  readonly width: number;
}

const HINTS: Readonly<Record<string, string>> = {
  list: '/ search · Enter open · Tab all/here · s sort · r resume · ? help · q quit',
  search: '↑↓ move · Enter open · Tab all/here · Ctrl-G in transcripts · Esc clear',
  transcript: 'n/p turn · / find · e output · t reasoning · f fork · r resume · Esc back · ? help',
  find: 'Enter find · Ctrl-U clear · Esc cancel',
  fork: 'Enter fork · Esc cancel',
  confirm: 'y yes · n no',
  help: 'Esc close',
  problems: 'Esc close',
};

/** The bottom line: the main keys of the current mode, or the text being typed. */
export function Footer({ state, width }: FooterProps) {
  const theme = useTheme();
  const content = state.mode === 'search' && contentQuery(state.query) !== null;
  const hints = content ? '↑↓ move · Enter open at the match · Tab all/here · Ctrl-G titles · Esc clear' : (HINTS[state.mode] ?? '');
  const input = state.mode === 'search' ? `/ ${state.query}` : state.mode === 'find' ? `find: ${state.transcript?.findDraft ?? ''}` : null;
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
