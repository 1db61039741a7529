import type { ESLint, Rule } from 'eslint';

export declare function resolveSpecifier(from: string, specifier: string): string | null;
export declare const noImportCycle: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
