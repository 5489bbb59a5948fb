import type { Command } from 'commander';
import type { RunAction } from './help-text.js';
import { registerApi } from './api.js';
import { registerAuth } from './auth.js';
import { registerBalance } from './balance.js';
import { registerCompletion } from './completion.js';
import { registerConfig } from './config.js';
import { registerCreate } from './create.js';
import { registerDiff } from './diff.js';
import { registerJobs } from './jobs.js';
import { registerList } from './list.js';
import { registerResume } from './resume.js';
import { registerRetry } from './retry.js';
import { registerSandbox } from './sandbox.js';
import { registerServices } from './services.js';
import { registerShow } from './show.js';
import { registerWait } from './wait.js';
import { registerWatch } from './watch.js';
import { registerWebhook } from './webhook.js';

/**
 * Commands that work without the rest of the tree, by the names a person types (aliases included). `completion` and
 * `__complete` read the whole tree, and `help` or a mistyped name needs every command's name: those get all of them.
 */
const ALONE: Record<string, (program: Command, run: RunAction) => void> = {
  services: registerServices,
  balance: registerBalance,
  list: registerList,
  ls: registerList,
  show: registerShow,
  get: registerShow,
  create: registerCreate,
  retry: registerRetry,
  resume: registerResume,
  jobs: registerJobs,
  diff: registerDiff,
  wait: registerWait,
  watch: registerWatch,
  api: registerApi,
  auth: registerAuth,
  config: registerConfig,
  webhook: registerWebhook,
  sandbox: registerSandbox,
};

/**
 * Registration order is the order of `taskctl --help`. `only`: the command typed, when known; then only that one is
 * registered, and a run parses, errs and helps exactly as with all of them (start-up: building every command's flags
 * is ~3 ms that `balance` does not need).
 */
export function registerCommands(program: Command, run: RunAction, only?: string): void {
  const alone = only === undefined ? undefined : ALONE[only];
  if (alone) {
    alone(program, run);
    return;
  }
  registerServices(program, run);
  registerBalance(program, run);
  registerList(program, run);
  registerShow(program, run);
  registerCreate(program, run);
  registerRetry(program, run);
  registerResume(program, run);
  registerJobs(program, run);
  registerDiff(program, run);
  registerWait(program, run);
  registerWatch(program, run);
  registerApi(program, run);
  registerAuth(program, run);
  registerConfig(program, run);
  registerWebhook(program, run);
  registerSandbox(program, run);
  registerCompletion(program, run);
}
