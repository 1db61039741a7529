import { Text } from 'ink';
import type { MatchRanges } from '../../catalog/search.js';
import { useTheme } from '../theme.js';
import { safeLine } from '../../core/text.js';

export interface HighlightedProps {
  readonly text: string;
  /** Inclusive ranges into the original string. */
  readonly ranges?: MatchRanges | undefined;
  /** How many characters of the original string are missing from the front of `text` (e.g. `~` for the home dir). */
  readonly shift?: number;
}

/** Text with matched characters highlighted; meant to sit inside a truncating <Text>. */
export function Highlighted({ text: raw, ranges, shift = 0 }: HighlightedProps) {
  const theme = useTheme();
  const text = safeLine(raw);
  if (!ranges || ranges.length === 0) return <>{text}</>;
  const parts: { text: string; matched: boolean }[] = [];
  let at = 0;
  for (const [rawStart, rawEnd] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const start = Math.max(at, rawStart - shift);
    const end = Math.min(text.length - 1, rawEnd - shift);
    if (end < start) continue;
    if (start > at) parts.push({ text: text.slice(at, start), matched: false });
    parts.push({ text: text.slice(start, end + 1), matched: true });
    at = end + 1;
  }
  if (at < text.length) parts.push({ text: text.slice(at), matched: false });
  return (
    <>
      {parts.map((part, i) =>
        part.matched ? (
          <Text key={i} color={theme.match} bold underline={!theme.color}>
            {part.text}
          </Text>
        ) : (
          part.text
        ),
      )}
    </>
  );
}
