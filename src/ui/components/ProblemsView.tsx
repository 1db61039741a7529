import { Box, Text } from 'ink';
import type { Problem } from '../../core/formats/types.js';
import { useTheme } from '../theme.js';
import { safeLine } from '../../core/text.js';

export interface ProblemsViewProps {
  readonly problems: readonly Problem[];
  readonly width: number;
  readonly height: number;
}

/** Files and directories that could not be read: listed, never fatal. */
export function ProblemsView({ problems, width, height }: ProblemsViewProps) {
  const theme = useTheme();
  const shown = problems.slice(0, Math.max(0, height - 1));
  return (
    <Box width={width} height={height} flexDirection="column" overflow="hidden" paddingLeft={2}>
      <Text bold>{problems.length === 0 ? 'No problems: every file could be read.' : `${problems.length} problem${problems.length === 1 ? '' : 's'} while scanning:`}</Text>
      {shown.map((problem, i) => (
        // The reason whole, then as much of the path as fits, cut at its start (the file name is at the end).
        <Box key={i} height={1} flexShrink={0}>
          <Box flexShrink={0}>
            <Text color={theme.error}>{safeLine(problem.message)}</Text>
          </Box>
          <Box flexShrink={1} minWidth={0} marginLeft={2}>
            <Text wrap="truncate-start">{safeLine(problem.path)}</Text>
          </Box>
        </Box>
      ))}
    </Box>
  );
}
