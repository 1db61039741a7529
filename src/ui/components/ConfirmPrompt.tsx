import { Box, Text } from 'ink';
import type { ConfirmState } from '../state.js';
import { useTheme } from '../theme.js';
import { safeLine } from '../../core/text.js';

export interface ConfirmPromptProps {
  readonly confirm: ConfirmState;
  readonly cwd: string;
  readonly width: number;
}

export const CONFIRM_PROMPT_ROWS = 4;

/** The question of a resume that cannot go as is: the recorded directory is gone, or the session looks open in an agent. */
export function ConfirmPrompt({ confirm, cwd, width }: ConfirmPromptProps) {
  const theme = useTheme();
  return (
    <Box width={width} height={CONFIRM_PROMPT_ROWS} flexShrink={0} flexDirection="column" borderStyle="round" borderColor={theme.error} paddingX={1} overflow="hidden">
      <Text wrap="truncate-end">{safeLine(confirm.message)}</Text>
      {confirm.kind === 'remove' ? (
        <Text wrap="truncate-end" bold>
          <Text color={theme.accent}>y</Text>
          {' move it to the trash · '}
          <Text color={theme.accent}>n Esc</Text>
          {' keep it'}
        </Text>
      ) : confirm.kind === 'inUse' ? (
        <Text wrap="truncate-end" bold>
          <Text color={theme.accent}>r</Text>
          {' resume anyway · '}
          <Text color={theme.accent}>f</Text>
          {' fork it and resume the fork · '}
          <Text color={theme.accent}>Esc</Text>
          {' cancel (two agents would append to one file)'}
        </Text>
      ) : (
        <Text wrap="truncate-end" bold>
          {`Resume it in the current directory (${safeLine(cwd)}) instead? `}
          <Text color={theme.accent}>y/n</Text>
        </Text>
      )}
    </Box>
  );
}
