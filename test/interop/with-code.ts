// What the `fork --with-code` recordings and interop test share: the repository the agents edit, the prompts that ask
// for each turn's edit and the stand-in's script that makes it (Claude Code: its Write tool, which its file history
// tracks; Codex: a shell command, its ghost commit taken before the turn).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runProcess } from './agents.js';
import type { StandInScript } from './model-stand-in.js';

export const EDIT_KEYWORD = 'EDIT-THE-FILE';
/** Turns 1..EDITED_TURNS rewrite notes.txt; the next one creates added.txt; later ones only talk. */
export const EDITED_TURNS = 3;

/** The content turn N writes into notes.txt. */
export function notesAt(turn: number): string {
  return `version ${turn}\n`;
}

/** The file turn N writes: notes.txt for turns 1..3, added.txt for turn 4, none after. */
export function editedFile(turn: number): string | null {
  return turn <= EDITED_TURNS ? 'notes.txt' : turn === EDITED_TURNS + 1 ? 'added.txt' : null;
}

export function editPrompt(repo: string, turn: number): string {
  const file = editedFile(turn);
  return file === null ? `[w] turn ${turn}: thanks, that is all.` : `[w] turn ${turn}: ${EDIT_KEYWORD} ${join(repo, file)}`;
}

/** A prompt for a resumed fork: a shell command, run where the agent runs, prints its directory and rewrites notes.txt there. */
export const FORK_EDIT_PROMPT = '[w] in the fork: EDIT-HERE notes.txt';
export const FORK_EDIT_CONTENT = 'edited in the fork\n';

/**
 * The stand-in's turn for an edit prompt: a Write (Claude Code) or a shell command (Codex) putting turn N's content in
 * the file; for FORK_EDIT_PROMPT, a relative shell command (Claude Code: Bash), so the edit lands where the agent runs.
 */
export const editScript: StandInScript = {
  turn(prompt) {
    if (prompt.includes('EDIT-HERE notes.txt')) {
      return { answer: 'Edited notes.txt here.', command: `pwd && printf '${FORK_EDIT_CONTENT.replace(/\n/g, '\\n')}' > notes.txt` };
    }
    // opencode run quotes a message that holds a space: the path ends before a quote.
    const match = /turn (\d+): EDIT-THE-FILE ([^\s"]+)/.exec(prompt);
    if (!match) return undefined;
    const turn = Number(match[1]);
    const path = match[2]!;
    const content = path.endsWith('added.txt') ? 'added at turn 4\n' : notesAt(turn);
    return {
      answer: `Wrote turn ${turn}'s change.`,
      tool: { name: 'Write', input: { file_path: path, content } },
      // printf reads the \n in its format (the contents hold no % and no quote).
      command: `printf '${content.replace(/\n/g, '\\n')}' > '${path}'`,
    };
  },
};

/** git's identity and config for the recordings and tests: nothing of the machine's. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    GIT_AUTHOR_NAME: 'Dev',
    GIT_AUTHOR_EMAIL: 'dev@example.com',
    GIT_COMMITTER_NAME: 'Dev',
    GIT_COMMITTER_EMAIL: 'dev@example.com',
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
  };
}

async function git(repo: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const result = await runProcess('git', args, { cwd: repo, env, timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} in ${repo}: ${result.stderr}`);
  return result.stdout;
}

/** A repository on branch main whose one commit holds notes.txt (`version 0`) and README.md. */
export async function makeRepository(repo: string, env: NodeJS.ProcessEnv): Promise<string> {
  await mkdir(repo, { recursive: true });
  await git(repo, env, ['init', '-q', '-b', 'main']);
  await writeFile(join(repo, 'notes.txt'), notesAt(0));
  await writeFile(join(repo, 'README.md'), '# notes\n');
  await git(repo, env, ['add', '.']);
  await git(repo, env, ['commit', '-q', '-m', 'start']);
  return repo;
}
