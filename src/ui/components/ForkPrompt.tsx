import { Box, Text } from 'ink';
import type { ForkState } from '../state.js';
import { useTheme } from '../theme.js';
import { keptTurns } from './TranscriptView.js';
import { safeLine } from '../../core/text.js';

export interface ForkPromptProps {
  readonly fork: ForkState;
  readonly width: number;
}

/** Rows the fork prompt takes (border included). */
export const FORK_PROMPT_ROWS = 6;

/** Asks before forking: which turn the fork stops before, what it keeps, an optional branch name. */
export function ForkPrompt({ fork, width }: ForkPromptProps) {
  const theme = useTheme();
  const kept = fork.atTurn - 1;
  return (
    <Box width={width} height={FORK_PROMPT_ROWS} flexShrink={0} flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} overflow="hidden">
      <Text wrap="truncate-end" bold>
        {`Fork before turn ${fork.atTurn}: `}
        <Text color={theme.user}>{fork.turnText || '(empty prompt)'}</Text>
      </Text>
      <Text wrap="truncate-end" color={theme.dim}>
        {`A new ${fork.session.agent} session keeps ${keptTurns(kept)} and ${kept === 1 ? 'its answer' : 'their answers'}; the original is not touched.`}
      </Text>
      <Text wrap="truncate-end">
        {'Branch name (optional): '}
        <Text bold>{safeLine(fork.branchName)}</Text>
        {fork.status === 'editing' ? <Text inverse> </Text> : ''}
      </Text>
      <Text wrap="truncate-end" color={fork.status === 'error' ? theme.error : theme.dim}>
        {fork.status === 'working' ? 'forking…' : fork.status === 'error' ? `fork failed: ${safeLine(fork.error ?? '')} (Esc)` : 'Enter forks · Esc cancels'}
      </Text>
    </Box>
  );
}
