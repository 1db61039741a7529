import { Box, Text } from 'ink';
import type { RenameState } from '../state.js';
import { useTheme } from '../theme.js';
import { safeLine } from '../../core/text.js';

export interface RenamePromptProps {
  readonly rename: RenameState;
  readonly width: number;
}

/** Rows the rename prompt takes (border included). */
export const RENAME_PROMPT_ROWS = 4;

/** The name being typed for the selected session (the footer shows the text); Enter writes it the agent's own way. */
export function RenamePrompt({ rename, width }: RenamePromptProps) {
  const theme = useTheme();
  const status = rename.status === 'working' ? 'renaming…' : rename.status === 'error' ? safeLine(rename.error ?? '') : "Enter writes it where the agent reads names: its own picker shows it too.";
  return (
    <Box width={width} height={RENAME_PROMPT_ROWS} flexShrink={0} flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} overflow="hidden">
      <Text wrap="truncate-end" bold>
        {`Rename ${rename.session.agent} session "${safeLine(rename.session.title)}" to: `}
        <Text color={theme.match}>{safeLine(rename.name)}</Text>
      </Text>
      <Text wrap="truncate-end" color={rename.status === 'error' ? theme.error : theme.dim}>
        {status}
      </Text>
    </Box>
  );
}
