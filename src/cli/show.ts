// `sessions show ID`: a whole transcript as text, Markdown or JSON.
import { type Command, Option } from 'commander';
import { resolveOne } from '../app/list.js';
import { showTranscript } from '../app/read.js';
import { markdownTranscriptWriter, textTranscriptWriter, transcriptToMarkdown, transcriptToText, writeTranscript } from '../core/export.js';
import { stripControl } from '../core/text.js';
import { CliError, hereOf, listSetup, ownProblems, readConfig, reportProblems, warnMissingLocations, warnSkippedLines, withLocations, writeStdout, type CommonOptions } from './common.js';

type ShowOptions = CommonOptions & { format: 'text' | 'md' | 'json'; system?: boolean };

/** `--json` is `--format json` (as `list --json`); with another --format it is a contradiction. */
function formatOf(options: ShowOptions): 'text' | 'md' | 'json' {
  if (options.json && options.format === 'md') throw new CliError('--json prints JSON: leave out --format md, or --json');
  return options.json ? 'json' : options.format;
}

export function showCommand(program: Command): void {
  withLocations(program.command('show'))
    .description('print a whole transcript')
    .argument('<id>', 'session id, unique id prefix, Codex thread name, or path to a session file')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'md', 'json']).default('text'))
    .option('--json', 'the transcript as JSON (the same as --format json)')
    .option('--system', 'include injected context and system messages')
    .addHelpText(
      'after',
      `
Examples:
  sessions show 01a200ed-60a4
  sessions show 01a200ed-60a4 --format md > transcript.md
  sessions show 5a1999c3 --json | jq '.messages | length'
  sessions show ~/.claude/projects/-home-dev-src-a-api-server/5a1999c3-3fef-4a8c-8969-b584a1892bda.jsonl`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      const given = command.optsWithGlobals<ShowOptions>();
      const options = { ...given, format: formatOf(given) };
      const config = readConfig();
      const setup = listSetup(options, config);
      if (setup.local) warnMissingLocations(options);
      const found = await resolveOne(setup, id, { cached: true });
      const { session, problems } = found;
      const shown = await showTranscript(session, found.place, hereOf(setup, config, found), { format: options.format, system: options.system ?? false, ...(found.cache ? { cache: found.cache } : {}) });
      switch (shown.kind) {
        case 'printed':
          // The host's own `sessions` printed it (its files are there); text from another machine is sanitised here too.
          process.stdout.write(options.format === 'json' ? shown.text : stripControl(shown.text));
          return;
        case 'stream': {
          // Streamed: the header is the row (the catalog just folded the same file), each message is written as it is
          // read, and the transcript is never held whole.
          const writer = options.format === 'md' ? markdownTranscriptWriter({ includeSystem: options.system }) : textTranscriptWriter({ includeSystem: options.system });
          await writeTranscript(writer, session, shown.stream.messages, (text) => writeStdout(text));
          warnSkippedLines(session.path, shown.stream.malformedLines());
          break;
        }
        case 'session': {
          const full = shown.session;
          if (options.format === 'json') process.stdout.write(`${JSON.stringify(full, null, 2)}\n`);
          else if (options.format === 'md') process.stdout.write(transcriptToMarkdown(full, { includeSystem: options.system }));
          else process.stdout.write(transcriptToText(full, { includeSystem: options.system }));
          warnSkippedLines(session.path, full.malformedLines);
          break;
        }
      }
      reportProblems(ownProblems(problems, session));
    });
}
