/** `taskctl completion` (a shell's script) and `__complete` (cached values, or one quick API call on an empty cache). */
import type { Command } from 'commander';
import type { ApiClient } from '../api/client.js';
import type { Output, Runtime, Service, Store } from './capabilities.js';
import type { DynamicKind, Shell } from '../completion/shells.js';

/**
 * With an empty cache, `__complete` asks the API once. The scripts pass `--request-timeout 1500ms`; this deadline stops
 * resends, so a TAB never hangs for long on a dead network.
 */
const NETWORK_BUDGET_MS = 1500;

export async function runCompletion(ctx: Output, command: Command, shell: Shell): Promise<void> {
  const { completionScript } = await import('../completion/index.js');
  // A script, not records: written as is (the Printer's line() would escape its newlines).
  ctx.io.stdout.write(completionScript(command, shell));
}

/** One candidate a line; for tasks `id<TAB>service status` (fish and zsh show the part after the tab). */
export async function runDynamicCompletion(ctx: Output & Runtime & Store & Service, kind: DynamicKind): Promise<void> {
  let lines: string[];
  try {
    if (kind === 'jobs') {
      lines = await jobValues(ctx);
    } else {
      const baseUrl = await ctx.bindCacheAccount();
      if (baseUrl === undefined) return;
      lines = cachedValues(ctx, kind, baseUrl);
      if (lines.length === 0)
        lines = await fetchValues(ctx, await ctx.api({ deadline: ctx.clock.now() + NETWORK_BUDGET_MS }), kind);
    }
  } catch {
    // Completion must never print an error into the user's command line: no values is the answer.
    return;
  }
  if (lines.length > 0) ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

/** Control characters (tabs, newlines, escapes) would break a completion line: server text loses them. */
function clean(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

/** This machine's jobs of the current profile, newest first: `id<TAB>service state` (local files only, no request). */
async function jobValues(ctx: Store & Runtime): Promise<string[]> {
  const { currentJobs, glanceJobs } = await import('./jobs.js');
  const { jobStore } = await import('./job/registry.js');
  const { cacheDirectory } = await import('../store/cache-dir.js');
  // A glance at each journal (its first record and its end), never a full read: a TAB stays quick whatever their sizes.
  const jobs = await currentJobs(ctx, glanceJobs(jobStore(ctx.env), cacheDirectory(ctx.env)), false);
  // An unreadable job has no service to show: its state alone.
  return jobs.map((job) => `${job.id}\t${[clean(job.service), job.state].filter(Boolean).join(' ')}`);
}

function cachedValues(ctx: Store, kind: Exclude<DynamicKind, 'jobs'>, baseUrl: string): string[] {
  return kind === 'services'
    ? ctx.cache.services(baseUrl).map(clean).filter(Boolean)
    : ctx.cache.recentTasks().map((task) => `${task.id}\t${clean(task.service)} ${clean(task.status)}`);
}

async function fetchValues(ctx: Store, api: ApiClient, kind: Exclude<DynamicKind, 'jobs'>): Promise<string[]> {
  if (kind === 'services') ctx.cache.rememberServices(await api.listServices(), api.baseUrl);
  else ctx.cache.rememberTasks((await api.listTasks({ page: 1, perPage: 25 })).tasks);
  return cachedValues(ctx, kind, api.baseUrl);
}
