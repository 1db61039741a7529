import type { CatalogSession } from '../catalog/scan.js';
import { AGENTS, type Agent, type Usage } from '../core/model.js';

/**
 * A row another machine's `sessions list --json` printed, as a catalog row of that host. Everything in it is
 * untrusted (it crossed the network from a program we did not run): a value of the wrong type drops the row.
 */
export function rowFromListJson(value: unknown, host: string): CatalogSession | null {
  if (!isRecord(value)) return null;
  const { id, agent, path, cwd, title, createdAt, updatedAt, userTurns } = value;
  if (typeof id !== 'string' || typeof agent !== 'string' || !(AGENTS as readonly string[]).includes(agent)) return null;
  if (typeof path !== 'string' || typeof title !== 'string' || typeof createdAt !== 'string' || typeof updatedAt !== 'string') return null;
  if (typeof userTurns !== 'number' || !Number.isFinite(userTurns)) return null;
  const paths = Array.isArray(value.paths) && value.paths.every((one) => typeof one === 'string') ? (value.paths as string[]) : [path];
  const firstPrompt = stringOrNull(value.firstPrompt);
  const lastPrompt = stringOrNull(value.lastPrompt);
  const forkedFrom = stringOrNull(value.forkedFrom);
  const branchName = stringOrNull(value.branchName);
  const subagent = isRecord(value.subagent) && typeof value.subagent.kind === 'string' ? { kind: value.subagent.kind, parentId: stringOrNull(value.subagent.parentId) } : undefined;
  return {
    id,
    agent: agent as Agent,
    path,
    paths,
    cwd: stringOrNull(cwd),
    title,
    name: stringOrNull(value.name),
    firstPrompt,
    lastPrompt,
    userTurns,
    userTurnsExact: value.userTurnsExact !== false,
    prompts: [firstPrompt, lastPrompt].filter((one): one is string => one !== null && one !== ''),
    createdAt,
    updatedAt,
    forkedFrom,
    fork: forkedFrom === null ? null : { id: forkedFrom, ...(branchName === null ? {} : { branchName }) },
    gitBranch: stringOrNull(value.gitBranch),
    model: stringOrNull(value.model),
    archived: value.archived === true,
    usage: usageOf(value.usage),
    subagents: Array.isArray(value.subagents) ? value.subagents.filter((one): one is string => typeof one === 'string') : [],
    ...(subagent ? { subagent } : {}),
    size: 0,
    mtimeMs: Date.parse(updatedAt) || 0,
    root: '',
    host,
  };
}

function usageOf(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const n = (field: unknown): number => (typeof field === 'number' && Number.isFinite(field) ? field : 0);
  return { input: n(value.input), output: n(value.output), cacheRead: n(value.cacheRead), cacheWrite: n(value.cacheWrite) };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
