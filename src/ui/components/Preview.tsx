import { Box, Text } from 'ink';
import type { CatalogSession } from '../../catalog/scan.js';
import type { SearchHit } from '../../catalog/search.js';
import type { Usage } from '../../core/model.js';
import { oneLine } from '../../core/text.js';
import type { PreviewPlacement } from '../geometry.js';
import type { Exchange, PreviewData } from '../state.js';
import { useTheme } from '../theme.js';
import { localTimestamp, tildePath } from '../time.js';
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
  if (!session) return <Box {...frame} />;
  const fork = session.fork ?? (session.forkedFrom ? { id: session.forkedFrom } : null);
  const first = data?.first ?? (session.firstPrompt ? { prompt: session.firstPrompt, reply: '' } : null);
  const last = data?.last ?? (session.lastPrompt && session.userTurns > 1 ? { prompt: session.lastPrompt, reply: '' } : null);
  return (
    <Box {...frame}>
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
      {first && <ExchangeView label="first" exchange={first} lines={side ? 3 : 1} />}
      {last && <ExchangeView label="last" exchange={last} lines={side ? 3 : 1} />}
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

/** A prompt and its answer, each clipped to `lines` rows (wrapped by Ink when there is more than one). */
function ExchangeView({ label, exchange, lines }: { readonly label: string; readonly exchange: Exchange; readonly lines: number }) {
  const theme = useTheme();
  const wrap = lines > 1 ? 'wrap' : 'truncate-end';
  return (
    <Box flexDirection="column" marginTop={1} flexShrink={0}>
      <Box height={lines} overflow="hidden" flexShrink={0}>
        <Box width={7} flexShrink={0}>
          <Text color={theme.dim}>{label}</Text>
        </Box>
        <Text wrap={wrap} color={theme.user} bold>
          › {oneLine(exchange.prompt)}
        </Text>
      </Box>
      {exchange.reply && (
        <Box height={lines} overflow="hidden" paddingLeft={7} flexShrink={0}>
          <Text wrap={wrap}>● {oneLine(exchange.reply)}</Text>
        </Box>
      )}
    </Box>
  );
}

function formatUsage(usage: Usage): string {
  const n = (value: number): string => (value >= 10_000 ? `${Math.round(value / 1000)}k` : String(value));
  const cache = usage.cacheRead || usage.cacheWrite ? ` · cache read ${n(usage.cacheRead)} write ${n(usage.cacheWrite)}` : '';
  return `in ${n(usage.input)} · out ${n(usage.output)}${cache}`;
}
