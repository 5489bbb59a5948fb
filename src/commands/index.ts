import type { Command } from 'commander';
import type { RunAction } from './help-text.js';
import { registerApi } from './api.js';
import { registerAuth } from './auth.js';
import { registerBalance } from './balance.js';
import { registerCompletion } from './completion.js';
import { registerConfig } from './config.js';
import { registerCreate } from './create.js';
import { registerList } from './list.js';
import { registerResume } from './resume.js';
import { registerRetry } from './retry.js';
import { registerSandbox } from './sandbox.js';
import { registerServices } from './services.js';
import { registerShow } from './show.js';
import { registerWait } from './wait.js';
import { registerWatch } from './watch.js';
import { registerWebhook } from './webhook.js';

/** Registration order is the order of `taskctl --help`. */
export function registerCommands(program: Command, run: RunAction): void {
  registerServices(program, run);
  registerBalance(program, run);
  registerList(program, run);
  registerShow(program, run);
  registerCreate(program, run);
  registerRetry(program, run);
  registerResume(program, run);
  registerWait(program, run);
  registerWatch(program, run);
  registerApi(program, run);
  registerAuth(program, run);
  registerConfig(program, run);
  registerWebhook(program, run);
  registerSandbox(program, run);
  registerCompletion(program, run);
}
