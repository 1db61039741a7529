import { Box, Text } from 'ink';
import type { MenuItem } from '../menu.js';
import { useTheme } from '../theme.js';
import { oneLine } from '../../core/text.js';

export interface MenuViewProps {
  readonly items: readonly MenuItem[];
  readonly selected: number;
  /** What the menu acts on: the selected row's or the transcript's title. */
  readonly title: string;
  readonly width: number;
}

/** Rows the menu takes: its border, its title line and one row per item. */
export function menuRows(items: readonly MenuItem[]): number {
  return items.length + 3;
}

/**
 * The actions Tab opens: one per row, the highlighted one marked (Enter runs it), each with the key that runs it here
 * (none for those that start an agent or write a file) and, dimmed, the key that does the same outside the menu.
 */
export function MenuView({ items, selected, title, width }: MenuViewProps) {
  const theme = useTheme();
  // The labels in one column, the outside keys lined up after the longest.
  const labelWidth = Math.max(...items.map((item) => item.label.length), 0) + 3;
  return (
    <Box width={width} height={menuRows(items)} flexShrink={0} flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} overflow="hidden">
      <Text wrap="truncate-end" bold>
        {'Actions · '}
        <Text color={theme.accent}>{oneLine(title) || '(untitled)'}</Text>
      </Text>
      {items.map((item, index) => (
        <Box key={`${item.key}:${item.label}`} height={1} flexShrink={0}>
          <Box width={5} flexShrink={0}>
            <Text color={theme.accent} bold>
              {index === selected ? '› ' : '  '}
              {item.key}
            </Text>
          </Box>
          <Box width={labelWidth} flexShrink={1}>
            <Text wrap="truncate-end" inverse={index === selected && !theme.color} bold={index === selected} color={index === selected ? theme.accent : undefined}>
              {item.label}
            </Text>
          </Box>
          <Text wrap="truncate-end" color={theme.dim}>
            {item.shortcut !== undefined && item.shortcut !== item.key ? item.shortcut : ''}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
