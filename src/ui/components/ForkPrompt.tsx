import { Box, Text } from 'ink';
import type { ForkState } from '../state.js';
import { useTheme } from '../theme.js';
import { keptTurns } from './TranscriptView.js';
import { continueChoices } from '../../core/handoff/index.js';
import { safeLine } from '../../core/text.js';

export interface ForkPromptProps {
  readonly fork: ForkState;
  readonly width: number;
}

/** Rows the fork prompt takes (border included). */
export const FORK_PROMPT_ROWS = 6;

/**
 * Asks before forking: which turn the fork stops before, what it keeps, an optional branch name, and the agent the
 * new session is for (Tab: another agent hands the conversation off to it).
 */
export function ForkPrompt({ fork, width }: ForkPromptProps) {
  const theme = useTheme();
  const kept = fork.whole ? fork.turns : fork.atTurn - 1;
  const handOff = fork.target !== fork.session.agent;
  const keeps = fork.whole ? `every turn (${fork.turns})` : keptTurns(kept);
  const what = fork.withCode
    ? `A new ${fork.target} session keeps ${keeps} and runs in a new git worktree holding the files as they were when turn ${fork.atTurn} was typed (branch sessions/<its id>); your working tree is not touched.`
    : handOff
      ? `A new ${fork.target} session, handed off from ${fork.session.agent}, keeps ${keeps} and ${kept === 1 ? 'its answer' : 'their answers'} (no reasoning); the original is not touched.`
      : `A new ${fork.session.agent} session keeps ${keeps} and ${kept === 1 ? 'its answer' : 'their answers'}; the original is not touched.`;
  const verb = handOff ? `Hand off to ${fork.target}` : 'Fork';
  // ↑↓ choose the extent only where there is a choice (a turn ≥ 2 selected in the transcript).
  const code = fork.codeRecorded;
  const other =
    fork.atTurn < 2 ? '' : fork.whole ? `  (↑↓: before turn ${fork.atTurn})` : fork.withCode ? `  (↑↓: all ${fork.turns} turns · without the code)` : code ? `  (↑↓: with the code as it was · all ${fork.turns} turns)` : `  (↑↓: all ${fork.turns} turns)`;
  return (
    <Box width={width} height={FORK_PROMPT_ROWS} flexShrink={0} flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} overflow="hidden">
      <Text wrap="truncate-end" bold>
        {fork.whole ? `${verb}: all ${fork.turns} turn${fork.turns === 1 ? '' : 's'}, the whole conversation` : `${verb} before turn ${fork.atTurn}${fork.withCode ? ', with the code as it was' : ''}: `}
        {fork.whole ? '' : <Text color={theme.user}>{fork.turnText || '(empty prompt)'}</Text>}
        <Text color={theme.dim}>{other}</Text>
      </Text>
      <Text wrap="truncate-end" color={theme.dim}>
        {what}
      </Text>
      <Text wrap="truncate-end">
        {'Branch name (optional): '}
        <Text bold>{safeLine(fork.branchName)}</Text>
        {fork.status === 'editing' ? (
          <>
            <Text inverse> </Text>
            <Text color={theme.dim}>{`  · Enter ${handOff ? 'hands off' : 'forks'} · Esc cancels`}</Text>
          </>
        ) : ''}
      </Text>
      <Text wrap="truncate-end" color={fork.status === 'error' ? theme.error : theme.dim}>
        {fork.status === 'working' ? (handOff ? 'handing off…' : 'forking…') : fork.status === 'error' ? `fork failed: ${safeLine(fork.error ?? '')} (Esc)` : ''}
        {fork.status === 'editing' ? (
          <>
            {/* Each choice is padded on both sides (the selected one shows inverse): those spaces are the separators, so at 100 columns every agent and "(Tab)" fit. */}
            {'Continue in:'}
            {continueChoices(fork.session.agent).map((agent) => (
              <Text key={agent} bold={agent === fork.target} inverse={agent === fork.target} color={agent === fork.target ? undefined : theme.dim}>{` ${agent} `}</Text>
            ))}
            {'(Tab)'}
          </>
        ) : ''}
      </Text>
    </Box>
  );
}
