/**
 * Status colours: the tone that lib/task-state.ts decides for a word or a task, painted with chalk. Every command that
 * shows a task or item status colours it here, so `list`, `show`, `watch`, `wait`'s live block and `webhook listen`
 * agree.
 */
import type { ChalkInstance } from 'chalk';
import { statusWord, taskTone, type StatusTone, type TaskStateFields } from '../lib/task-state.js';

/** `text` in the colour of `tone`: green, yellow, red, yellow, dim, or plain. */
export function paintTone(chalk: ChalkInstance, tone: StatusTone, text: string): string {
  switch (tone) {
    case 'success':
      return chalk.green(text);
    case 'partial':
    case 'working':
      return chalk.yellow(text);
    case 'failure':
      return chalk.red(text);
    case 'waiting':
      return chalk.dim(text);
    case 'plain':
      return text;
  }
}

/**
 * `status` in its colour: the task's tone when the task is known (a completed task with failed items is yellow, an
 * unknown word with a finish time has ended), else the word's own.
 */
export function paintStatus(chalk: ChalkInstance, status: string, task?: TaskStateFields): string {
  return paintTone(chalk, task ? taskTone(task) : statusWord(status).tone, status);
}
