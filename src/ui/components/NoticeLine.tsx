import { Box, Text } from 'ink';
import { noticeDetailRows, noticeRows } from '../geometry.js';
import type { BrowserState } from '../state.js';
import { useTheme } from '../theme.js';
import { safeLine } from '../../core/text.js';

export interface NoticeLineProps {
  readonly state: BrowserState;
  readonly width: number;
}

/** One line for what just happened (fork written, not found), why the scope is "all", or scan problems. */
export function NoticeLine({ state, width }: NoticeLineProps) {
  const theme = useTheme();
  let text = '';
  let color: string | undefined = theme.dim;
  if (state.notice) {
    text = state.notice.text;
    color = state.notice.tone === 'error' ? theme.error : state.notice.tone === 'success' ? theme.success : undefined;
  } else if (state.scopeNote && state.scope === 'all') {
    text = state.scopeNote;
  } else if (state.problems.length > 0 && !state.loading) {
    const first = state.problems[0]!;
    const more = state.problems.length > 1 ? ` (+${state.problems.length - 1} more)` : '';
    text = `⚠ ${first.path}: ${first.message}${more} · Tab ! shows all`;
    color = theme.error;
  }
  return (
    <Box width={width} height={noticeRows(state.notice, width)} flexShrink={0} flexDirection="column">
      <Text wrap="truncate-middle" color={color}>
        {safeLine(text)}
      </Text>
      {state.notice?.detail &&
        // A command to copy: wrapped whole, not cut.
        noticeDetailRows(state.notice.detail, width).map((row, index) => (
          <Text key={index} wrap="truncate-end" bold>
            {row}
          </Text>
        ))}
    </Box>
  );
}
