// `sessions <command> …` defines that command alone (defining all of them was a share of `show`'s first byte): the
// command it defines is the one the whole program has, help and options alike.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';

const names = (program: Command): string[] => program.commands.map((command) => command.name());
const ALL = names(buildProgram());

/** What commander knows of a command: its help as printed, its options, its arguments. */
function described(command: Command): unknown {
  return {
    help: command.helpInformation(),
    options: command.options.map((option) => [option.flags, option.description, option.defaultValue, option.argChoices]),
    arguments: command.registeredArguments.map((argument) => [argument.name(), argument.required, argument.variadic]),
  };
}

describe('the program for a named command', () => {
  it('defines that command alone (rm and restore together)', () => {
    expect(names(buildProgram('show'))).toEqual(['show']);
    expect(names(buildProgram('grep'))).toEqual(['grep']);
    expect(names(buildProgram('restore'))).toEqual(['rm', 'restore']);
  });

  it('defines each command as the whole program does, and the program itself the same', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(10);
    for (const name of ALL) {
      const alone = buildProgram(name);
      const whole = buildProgram();
      expect(described(alone.commands.find((command) => command.name() === name)!), name).toEqual(described(whole.commands.find((command) => command.name() === name)!));
      expect(alone.options.map((option) => option.flags), name).toEqual(whole.options.map((option) => option.flags));
      expect(alone.description(), name).toBe(whole.description());
    }
  });

  it('defines every command for anything else: nothing, an option, help, a word that is no command', () => {
    for (const word of [undefined, '--all', '--home', 'help', 'shw']) expect(names(buildProgram(word)), String(word)).toEqual(ALL);
  });
});
