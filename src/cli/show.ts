// `sessions show ID`: a whole transcript as text, Markdown or JSON.
import { type Command, Option } from 'commander';
import { resolveOne } from '../app/list.js';
import { turnFiles, type TurnFiles } from '../app/turn-files.js';
import type { CatalogSession } from '../catalog/scan.js';
import { showTranscript } from '../app/read.js';
import { markdownTranscriptWriter, textTranscriptWriter, wholeTranscript, writeTranscript, type TranscriptWriter } from '../core/export.js';
import { htmlTranscriptWriter } from '../core/export-html.js';
import type { Session } from '../core/model.js';
import { redactBatches, redactMessage, redactSecrets } from '../core/redact.js';
import { stripControl } from '../core/text.js';
import { CliError, hereOf, listSetup, ownProblems, readConfig, reportProblems, warnMissingLocations, warnSkippedLines, withLocations, writeStdout, type CommonOptions } from './common.js';

type Format = 'text' | 'md' | 'json' | 'html';
type ShowOptions = CommonOptions & { format: Format; system?: boolean; redact?: boolean; files?: boolean };

/** `--json` is `--format json` (as `list --json`); with another --format it is a contradiction. */
function formatOf(options: ShowOptions): Format {
  if (options.json && (options.format === 'md' || options.format === 'html')) throw new CliError(`--json prints JSON: leave out --format ${options.format}, or --json`);
  return options.json ? 'json' : options.format;
}

export function showCommand(program: Command): void {
  withLocations(program.command('show'))
    .description('print a whole transcript')
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path to a session file')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'md', 'json', 'html']).default('text'))
    .option('--json', 'the transcript as JSON (the same as --format json)')
    .option('--system', 'include injected context and system messages')
    .option('--redact', 'mask API keys, tokens and private keys (AWS, GitHub, OpenAI, Anthropic, JWTs, PEM blocks) before printing')
    .option('--files', 'per user turn instead of the transcript: whether its files as they were are recorded (fork --at N --with-code) and the files it changed (Claude Code, Codex, opencode)')
    .addHelpText(
      'after',
      `
Examples:
  sessions show 01a200ed-60a4
  sessions show 01a200ed-60a4 --format md > transcript.md
  sessions show 3e88d315 --format html --redact > checkout.html
                                             one page to share: no script, nothing fetched
  sessions show 5a1999c3 --json | jq '.messages | length'
  sessions show 5a1999c3 --files          per user turn: ✓ where its files are recorded, the files it changed
  sessions show ~/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const given = command.optsWithGlobals<ShowOptions>();
      const options = { ...given, format: formatOf(given) };
      const config = readConfig();
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      // Nothing else runs meanwhile: the catalog cache is read in one synchronous read.
      const found = await resolveOne(setup, id, { cached: true, synchronous: true });
      const { session, problems } = found;
      if (options.files) {
        if (options.format === 'md' || options.format === 'html' || options.redact || options.system) throw new CliError('--files lists files per turn: give it alone, or with --json');
        if (found.place.kind !== 'local') throw new CliError(`${found.place.host}: the files are in the repository on ${found.place.host}: run sessions show --files there`);
        const turns = await turnFiles(session, await hereOf(setup, config, found).context());
        process.stdout.write(options.format === 'json' ? `${JSON.stringify({ id: session.id, agent: session.agent, cwd: session.cwd, turns }, null, 2)}\n` : filesTable(session, turns));
        reportProblems(ownProblems(problems, session));
        return;
      }
      // A host's own `sessions` is asked for its session as JSON when the page or the redaction is made here.
      const asked = found.place.kind === 'host' && (options.format === 'html' || options.redact) ? 'json' : options.format;
      const shown = await showTranscript(session, found.place, hereOf(setup, config, found), { format: asked, system: options.system ?? false, ...(found.cache ? { cache: found.cache } : {}) });
      const redact = options.redact === true;
      const header = redact ? redactHeader(session) : session;
      switch (shown.kind) {
        case 'printed':
          // The host's own `sessions` printed it (its files are there); text from another machine is sanitised here too.
          if (asked === 'json' && options.format !== 'json') {
            const full = JSON.parse(shown.text) as Session;
            const read = redact ? { ...redactHeader(full), messages: full.messages.map(redactMessage) } : full;
            process.stdout.write(wholeTranscript(writerFor(options.format, options.system), read));
          } else {
            process.stdout.write(options.format === 'json' ? (redact ? redactSecrets(shown.text) : shown.text) : stripControl(shown.text));
          }
          return;
        case 'stream': {
          // Streamed: the header is the row (the catalog just folded the same file), each message is written as it is
          // read, and the transcript is never held whole.
          const messages = redact ? redactBatches(shown.stream.messages) : shown.stream.messages;
          // (JSON is never streamed: showTranscript reads it whole.)
          await writeTranscript(writerFor(options.format === 'json' ? 'text' : options.format, options.system), header, messages, (text) => writeStdout(text));
          warnSkippedLines(session.path, shown.stream.malformedLines());
          break;
        }
        case 'session': {
          const full = redact ? { ...redactHeader(shown.session), messages: shown.session.messages.map(redactMessage) } : shown.session;
          if (options.format === 'json') process.stdout.write(`${JSON.stringify(full, null, 2)}\n`);
          else process.stdout.write(wholeTranscript(writerFor(options.format, options.system), full));
          warnSkippedLines(session.path, full.malformedLines);
          break;
        }
      }
      reportProblems(ownProblems(problems, session));
    });
}

function writerFor(format: Exclude<Format, 'json'>, system: boolean | undefined): TranscriptWriter {
  const options = { includeSystem: system };
  return format === 'md' ? markdownTranscriptWriter(options) : format === 'html' ? htmlTranscriptWriter(options) : textTranscriptWriter(options);
}

/** A session's fields that quote its prompts, redacted (the title is the first prompt when nothing names it). */
function redactHeader<T extends Pick<Session, 'title' | 'firstPrompt' | 'lastPrompt' | 'prompts'>>(session: T): T {
  return { ...session, title: redactSecrets(session.title), firstPrompt: session.firstPrompt === null ? null : redactSecrets(session.firstPrompt), lastPrompt: session.lastPrompt === null ? null : redactSecrets(session.lastPrompt), prompts: session.prompts.map(redactSecrets) };
}

/** `show --files` as text: a line per user turn. */
function filesTable(session: CatalogSession, turns: readonly TurnFiles[]): string {
  const width = String(turns.length).length;
  const lines = [`${'turn'.padStart(Math.max(width, 4))}  code  changed`];
  for (const { turn, recorded, files } of turns) {
    const changed = files === null ? '(not recorded)' : files.length === 0 ? '-' : files.map(stripControl).join(', ');
    lines.push(`${String(turn).padStart(Math.max(width, 4))}  ${recorded ? '✓' : ' '}     ${changed}`);
  }
  const any = turns.some((turn) => turn.recorded);
  lines.push('', any ? `✓: the files as they were when the turn was typed are recorded: sessions fork ${session.id} --at N --with-code` : 'No turn has its files recorded: --with-code cannot restore them.');
  return `${lines.join('\n')}\n`;
}
