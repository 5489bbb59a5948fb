// Writes completions/taskctl.{bash,zsh,fish} from the built CLI (`npm run completions` builds first): the same code
// path as `taskctl completion SHELL`, so the checked-in files are exactly what users get. A unit test keeps them in sync.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { main } = createRequire(import.meta.url)('../dist/taskctl.cjs');

const SHELLS = ['bash', 'zsh', 'fish'];
const outDir = new URL('../completions/', import.meta.url);
mkdirSync(outDir, { recursive: true });

for (const shell of SHELLS) {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { isTTY: false, write: (chunk) => ((stdout += chunk), true) },
    stderr: { isTTY: false, write: (chunk) => ((stderr += chunk), true) },
    stdin: { isTTY: false, async *[Symbol.asyncIterator]() {} },
  };
  // An empty environment: the script must not depend on the machine that generated it.
  const code = await main(['completion', shell], {
    io,
    env: {},
    clock: { now: Date.now, sleep: async () => {} },
    signal: new AbortController().signal,
  });
  if (code !== 0) {
    process.stderr.write(`taskctl completion ${shell} failed (exit ${code}):\n${stderr}`);
    process.exit(1);
  }
  writeFileSync(new URL(`taskctl.${shell}`, outDir), stdout);
  process.stdout.write(`completions/taskctl.${shell}\n`);
}
