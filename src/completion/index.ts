/** Shell completion scripts generated from the commander tree: `taskctl completion SHELL` and `npm run completions`. */
import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { buildCompletionModel, type ArgumentHints } from './model.js';
import type { Shell } from './shells.js';
import { zshScript } from './zsh.js';

export { SHELLS, type Shell } from './shells.js';

/**
 * The completion script for `shell`, from the tree `program` belongs to (any command of it will do). `hints` name what
 * positional arguments complete to, by command path (default: taskctl's).
 */
export function completionScript(program: Command, shell: Shell, hints?: ArgumentHints): string {
  let root = program;
  while (root.parent) root = root.parent;
  const model = buildCompletionModel(root, hints);
  switch (shell) {
    case 'bash':
      return bashScript(model);
    case 'zsh':
      return zshScript(model);
    case 'fish':
      return fishScript(model);
  }
}
