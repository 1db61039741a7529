/**
 * Claude Code sessions: `<config dir>/projects/<cwd with non-alphanumerics as ->/<session uuid>.jsonl`.
 *
 * A file is a tree of lines linked by `parentUuid` (rewinds leave dead branches); the transcript is the chain
 * from the active leaf back to the root, crossing `/compact` boundaries through `logicalParentUuid`.
 */
import { UUID_EXACT } from '../../ids.js';
import { claudeRootInHead } from '../../io/heads.js';
import { unmarkMessages, withPromptLines } from '../../io/clip.js';
import { type Message, type Session, type SessionSummary } from '../../model.js';
import { CLAUDE_NON_CONVERSATION_NEEDLES, isClaudeNonConversationLine } from './rules.js';
import { homeFolderRoots } from '../roots.js';
import type { AdapterContext, FormatAdapter, ReadSessionOptions, SessionFileGroup } from '../types.js';
import { discoverClaude, claudeRowFolders, groupClaudeFiles } from './discovery.js';
import { readClaudeDisplay, readClipped } from './display.js';
import { indexClaude } from './fold.js';
import { forkClaude } from './fork.js';
import { claudeMessages, mayHoldPrompt } from './messages.js';
import { ClaudeScan, scanFile } from './scan.js';
import { streamClaudeMessages } from './stream.js';
import { livePath, readTitleSidecar, summarize } from './summary.js';
import { writeClaudeHandoff } from './handoff.js';
import { requireHome } from '../../handoff/types.js';
import { claudeRename } from './rename.js';
import { claudeSessionPaths } from './remove.js';
import { claudeCodeAt, claudeTurns } from './checkpoints.js';
import { uuidv4 } from '../../ids.js';

export const claudeAdapter: FormatAdapter = {
  agent: 'claude',
  label: 'Claude Code',
  locations: {
    flag: '--claude-dir <dir>',
    flagHelp: 'a Claude Code config dir (repeatable; default $CLAUDE_CONFIG_DIR or ~/.claude)',
    homeFolder: '.claude',
    defaultRoots: (environment) => homeFolderRoots('.claude', 'CLAUDE_CONFIG_DIR', environment),
    readme: {
      where: '`$CLAUDE_CONFIG_DIR/projects/*/*.jsonl` (default `~/.claude`)',
      options: '`--claude-dir DIR` (repeatable), `--home DIR` (= `DIR/.claude`)',
    },
    describeRoot: (dir) => `${dir}/projects (Claude Code)`,
  },
  // ~/.claude/projects/<project>/<uuid>.jsonl (subagent transcripts deeper down belong to their parent).
  watch: { roots: 'configured', depth: 2, wanted: (parts) => parts[0] === 'projects', fileSuffixes: ['.jsonl', '.json'] },
  mirror: { variables: ['CLAUDE_CONFIG_DIR'], filter: ['+ projects/', '+ projects/*/', '+ projects/*/*.jsonl'] },
  resume: {
    interactive: ['claude', '{args}', '--resume', '{id}', '{prompt}'],
    exec: ['claude', '-p', '{args}', '--resume', '{id}', '{prompt}'],
    homeEnvironment: (root) => ({ CLAUDE_CONFIG_DIR: root }),
  },
  idShape: { pattern: UUID_EXACT, description: 'a UUID' },
  forkTarget: 'in the same project folder as the original, <new id>.jsonl',
  lineageInHead: claudeRootInHead,
  lineageLineKey: '"parentUuid":null',
  lineageIsRootUuid: true,

  rowFolders: claudeRowFolders,
  isNonConversationLine: isClaudeNonConversationLine,
  nonConversationNeedles: CLAUDE_NON_CONVERSATION_NEEDLES,
  // Attachments (skill listings, environment), system prompts and request shapes.
  notConversation: /"attachment"\s*:\s*\{[^{}]*$|"system"\s*:\s*(\[\s*\{[^{}]*)?$|"type"\s*:\s*"(api-request-shape|api-request|system)"[^{}]*$/,

  groupFiles: groupClaudeFiles,
  discover: discoverClaude,

  async readSummary(group: SessionFileGroup, context: AdapterContext): Promise<SessionSummary | null> {
    return (await indexClaude(group, context)).summary;
  },

  indexSession: indexClaude,

  async readSession(group: SessionFileGroup, _context: AdapterContext, options: ReadSessionOptions = {}): Promise<Session> {
    const path = livePath(group);
    const shown = (messages: Message[]): Message[] => (options.clip === undefined ? messages : unmarkMessages(messages));
    const onPartial = options.onPartial;
    if (options.clip !== undefined) {
      // What the TUI shows: no line's parsed value is kept while the file is read (a 200 MB session is ~300k lines).
      const read = await readClipped(path, withPromptLines(options.clip, mayHoldPrompt)!, onPartial && ((start) => onPartial(shown(start))));
      return {
        ...summarize({ group, sidecar: await readTitleSidecar(path), scan: read.scan, chain: read.chain, size: read.size, mtimeMs: read.mtimeMs }),
        messages: shown(read.messages),
        malformedLines: read.stats.malformed,
      };
    }
    // The start's chain ends at the last leaf read so far: the conversation's opening, unless a later rewind moves it.
    const onStart = onPartial && ((start: ClaudeScan) => onPartial(shown(claudeMessages(start.activeChain(), path, start.usageById))));
    const { scan, stats, size, mtimeMs } = await scanFile(path, withPromptLines(options.clip, mayHoldPrompt), onStart);
    const chain = scan.activeChain();
    const sidecar = await readTitleSidecar(path);
    return {
      ...summarize({ group, sidecar, scan, chain, size, mtimeMs }),
      messages: shown(claudeMessages(chain, path, scan.usageById)),
      malformedLines: stats.malformed,
    };
  },

  streamMessages: streamClaudeMessages,
  readDisplay: (group, _context, { clip, sink }) => readClaudeDisplay(livePath(group), clip, sink),
  readsAlone: true,


  fork: forkClaude,
  checkpoints: { rewind: "Claude Code's /rewind (file checkpoints)", codeAt: claudeCodeAt, newId: () => uuidv4(), turns: claudeTurns },
  sessionPaths: (group) => claudeSessionPaths(group),
  rename: claudeRename,
  handoff: {
    write: (conversation, write, home) => writeClaudeHandoff(conversation, write, requireHome(home, 'claude')),
    where: '<Claude config dir>/projects/<cwd with non-alphanumerics as ->/<new id>.jsonl (the note names the source)',
    newId: () => uuidv4(),
  },
};

export { claudeUserText, isClaudeCommandCaveat, isClaudeUserTurn } from './lines.js';
export { indexedValue } from './indexed.js';
export { rewriteSessionId } from './fork.js';
export { claudeMessages, mayHoldPrompt } from './messages.js';
export { scanFile } from './scan.js';
