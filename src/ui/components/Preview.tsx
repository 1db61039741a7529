import { Box, Text } from 'ink';
import type { CatalogSession } from '../../catalog/scan.js';
import type { SearchHit } from '../../catalog/search.js';
import type { Usage } from '../../core/model.js';
import { oneLine, tildePath } from '../../core/text.js';
import type { PreviewPlacement } from '../geometry.js';
import type { Exchange, PreviewData } from '../state.js';
import { useTheme } from '../theme.js';
import { localTimestamp } from '../time.js';
import { wrapText } from '../wrap-text.js';
import { Highlighted } from './Highlighted.js';

export interface PreviewProps {
  readonly session: CatalogSession | null;
  readonly hit: SearchHit | null;
  readonly data: PreviewData | null;
  readonly placement: PreviewPlacement;
  readonly homeDir: string;
}

/** Details of the selected session beside or under the list: ids, paths, model, usage, first and last exchange. */
export function Preview({ session, hit, data, placement, homeDir }: PreviewProps) {
  const theme = useTheme();
  if (placement.placement === 'none') return null;
  const side = placement.placement === 'side';
  const frame = {
    width: placement.width,
    height: placement.height,
    flexDirection: 'column' as const,
    overflow: 'hidden' as const,
    borderStyle: 'single' as const,
    borderColor: theme.dim,
    borderTop: !side,
    borderLeft: side,
    borderRight: false,
    borderBottom: false,
    paddingLeft: 1,
  };
  // Keyed by placement: Ink keeps stale border and padding when a mounted box switches from bottom to side.
  if (!session) return <Box key={placement.placement} {...frame} />;
  const fork = session.fork ?? (session.forkedFrom ? { id: session.forkedFrom } : null);
  const first = data?.first ?? (session.firstPrompt ? { prompt: session.firstPrompt, reply: '' } : null);
  const last = data?.last ?? (session.lastPrompt && session.userTurns > 1 ? { prompt: session.lastPrompt, reply: '' } : null);
  return (
    <Box key={placement.placement} {...frame}>
      <Field
        label="id"
        value={[session.id, session.agent, session.model, session.gitBranch ? `branch ${session.gitBranch}` : null, session.archived ? 'archived' : null]
          .filter(Boolean)
          .join(' · ')}
      />
      <Field label="cwd" value={session.cwd ?? '(not recorded)'} wrap="truncate-middle" />
      <Field label="path" value={tildePath(session.path, homeDir)} wrap="truncate-start" />
      <Field
        label="when"
        value={`created ${localTimestamp(session.createdAt)} · updated ${localTimestamp(session.updatedAt)}${session.usage ? ` · tokens ${formatUsage(session.usage)}` : ''}`}
      />
      {fork && (
        <Field
          label="fork"
          value={`from ${fork.id}${'atTurn' in fork && fork.atTurn ? ` before turn ${fork.atTurn}` : ''}${'branchName' in fork && fork.branchName ? ` "${oneLine(fork.branchName)}"` : ''}`}
        />
      )}
      {hit?.prompt && (
        <Box height={1} flexShrink={0}>
          <Text wrap="truncate-end">
            <Text color={theme.dim}>{'match  '}</Text>
            <Highlighted text={hit.prompt.text} ranges={hit.prompt.ranges} />
          </Text>
        </Box>
      )}
      {first && <ExchangeView label="first" exchange={first} lines={side ? 4 : 1} width={placement.width - 2} />}
      {last && <ExchangeView label="last" exchange={last} lines={side ? 4 : 1} width={placement.width - 2} />}
    </Box>
  );
}

function Field({ label, value, wrap = 'truncate-end' }: { readonly label: string; readonly value: string; readonly wrap?: 'truncate-end' | 'truncate-middle' | 'truncate-start' }) {
  const theme = useTheme();
  return (
    <Box height={1} flexShrink={0}>
      <Box width={7} flexShrink={0}>
        <Text color={theme.dim}>{label}</Text>
      </Box>
      <Text wrap={wrap}>{oneLine(value)}</Text>
    </Box>
  );
}

/** Columns before an exchange's text: the label, and the `› ` or `● ` mark. */
const EXCHANGE_INDENT = 9;

/** A prompt and its answer, each at most `lines` rows (wrapped at the pane's width, the last row truncated by Ink). */
function ExchangeView({ label, exchange, lines, width }: { readonly label: string; readonly exchange: Exchange; readonly lines: number; readonly width: number }) {
  const theme = useTheme();
  const rows = (text: string): string[] => (lines === 1 ? [oneLine(text)] : wrapText(oneLine(text), Math.max(10, width - EXCHANGE_INDENT)).slice(0, lines));
  return (
    <Box flexDirection="column" marginTop={1} flexShrink={0}>
      {rows(exchange.prompt).map((row, i) => (
        <Box key={`p${i}`} height={1} flexShrink={0}>
          <Box width={7} flexShrink={0}>
            <Text color={theme.dim}>{i === 0 ? label : ''}</Text>
          </Box>
          <Text wrap="truncate-end" color={theme.user} bold>
            {i === 0 ? '› ' : '  '}
            {row}
          </Text>
        </Box>
      ))}
      {exchange.reply &&
        rows(exchange.reply).map((row, i) => (
          <Box key={`r${i}`} height={1} paddingLeft={7} flexShrink={0}>
            <Text wrap="truncate-end">
              {i === 0 ? '● ' : '  '}
              {row}
            </Text>
          </Box>
        ))}
    </Box>
  );
}

function formatUsage(usage: Usage): string {
  const n = (value: number): string => (value >= 10_000 ? `${Math.round(value / 1000)}k` : String(value));
  const cache = usage.cacheRead || usage.cacheWrite ? ` · cache read ${n(usage.cacheRead)} write ${n(usage.cacheWrite)}` : '';
  return `in ${n(usage.input)} · out ${n(usage.output)}${cache}`;
}
