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

/** The recorded directory cannot be used: offer to resume in the current one. */
export function ConfirmPrompt({ confirm, cwd, width }: ConfirmPromptProps) {
  const theme = useTheme();
  return (
    <Box width={width} height={CONFIRM_PROMPT_ROWS} flexShrink={0} flexDirection="column" borderStyle="round" borderColor={theme.error} paddingX={1} overflow="hidden">
      <Text wrap="truncate-end">{safeLine(confirm.message)}</Text>
      <Text wrap="truncate-end" bold>
        {`Resume it in the current directory (${safeLine(cwd)}) instead? `}
        <Text color={theme.accent}>y/n</Text>
      </Text>
    </Box>
  );
}
