import { readRegularFileSync, SMALL_FILE_MAX_BYTES } from './core/io/regular.js';
import { join } from 'node:path';
import { AGENTS, type Agent } from './core/model.js';
import { DEFAULT_EXEC_TEMPLATES, DEFAULT_RESUME_TEMPLATES, type ResumeTemplates } from './core/resume.js';
import { isRecord } from './core/json.js';

/** User configuration: `$XDG_CONFIG_HOME/sessions/config.json` (or the file named by SESSIONS_CONFIG). */
export interface Config {
  /** Interactive resume commands (Enter in the browser, `sessions resume ID`). */
  readonly resume: ResumeTemplates;
  /** Non-interactive resume with a prompt (`sessions resume ID --prompt TEXT`). */
  readonly exec: ResumeTemplates;
  /** Other machines whose sessions are listed too: ssh destinations (`devbox`, `me@vm.example`, a ~/.ssh/config alias). */
  readonly hosts: readonly string[];
  /** The ssh command and options put before a destination (default `["ssh"]`). */
  readonly ssh: readonly string[];
  /** Seconds a host has to answer (ssh's ConnectTimeout) before it is shown unreachable. */
  readonly connectTimeout: number;
  /** Seconds between re-reads of mirrored hosts in the browser. */
  readonly hostRefresh: number;
  /** Where the config was read from, or null for defaults. */
  readonly source: string | null;
}

/** Hosts settings when the config names none. */
export const DEFAULT_HOST_SETTINGS = { hosts: [], ssh: ['ssh'], connectTimeout: 10, hostRefresh: 60 } as const;

export function configPath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  if (env.SESSIONS_CONFIG) return env.SESSIONS_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homeDir, '.config');
  return join(base, 'sessions', 'config.json');
}

/** Read the config file if it exists; a broken file is an error the user must see, not a silent default. */
export function loadConfig(path: string): Config {
  let text: string;
  try {
    text = readRegularFileSync(path, SMALL_FILE_MAX_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { resume: DEFAULT_RESUME_TEMPLATES, exec: DEFAULT_EXEC_TEMPLATES, ...DEFAULT_HOST_SETTINGS, source: null };
    throw new Error(`cannot read config ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`config ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new Error(`config ${path} must be a JSON object`);
  return {
    resume: templates(value.resume, DEFAULT_RESUME_TEMPLATES, `${path}: resume`),
    exec: templates(value.exec, DEFAULT_EXEC_TEMPLATES, `${path}: exec`),
    hosts: strings(value.hosts, DEFAULT_HOST_SETTINGS.hosts, `${path}: hosts`, false),
    ssh: strings(value.ssh, DEFAULT_HOST_SETTINGS.ssh, `${path}: ssh`, true),
    connectTimeout: seconds(value.connectTimeout, DEFAULT_HOST_SETTINGS.connectTimeout, `${path}: connectTimeout`),
    hostRefresh: seconds(value.hostRefresh, DEFAULT_HOST_SETTINGS.hostRefresh, `${path}: hostRefresh`),
    source: path,
  };
}

function templates(value: unknown, defaults: ResumeTemplates, where: string): ResumeTemplates {
  if (value === undefined) return defaults;
  if (!isRecord(value)) throw new Error(`${where} must be an object mapping agent to an argv array`);
  const out: Record<Agent, readonly string[]> = { ...defaults };
  for (const [agent, argv] of Object.entries(value)) {
    if (!(AGENTS as readonly string[]).includes(agent)) throw new Error(`${where}: unknown agent "${agent}" (expected ${AGENTS.join(', ')})`);
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((part) => typeof part === 'string')) {
      throw new Error(`${where}.${agent} must be a non-empty array of strings, e.g. ["codex", "resume", "{id}"]`);
    }
    out[agent as Agent] = argv as string[];
  }
  return out;
}

function strings(value: unknown, defaults: readonly string[], where: string, nonEmpty: boolean): readonly string[] {
  if (value === undefined) return defaults;
  if (!Array.isArray(value) || !value.every((one) => typeof one === 'string' && one !== '') || (nonEmpty && value.length === 0)) {
    throw new Error(`${where} must be ${nonEmpty ? 'a non-empty' : 'an'} array of non-empty strings`);
  }
  return value as string[];
}

function seconds(value: unknown, fallback: number, where: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`${where} must be a whole number of seconds, at least 1`);
  return value;
}
