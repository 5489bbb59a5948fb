// Writes completions/taskctl.{bash,zsh,fish} from the built CLI (`npm run completions` builds first): the same code
// path as `taskctl completion SHELL`, so the checked-in files are exactly what users get. A unit test keeps them in sync.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Bundle from '../src/bundle.ts';
import { systemClock } from '../src/lib/time.ts';
import { createMemoryIO } from '../src/output/memory-io.ts';

const { main } = createRequire(import.meta.url)('../dist/taskctl.cjs') as typeof Bundle;

const SHELLS = ['bash', 'zsh', 'fish'];
const outDir = new URL('../completions/', import.meta.url);
mkdirSync(outDir, { recursive: true });

for (const shell of SHELLS) {
  const memory = createMemoryIO();
  // An empty environment: the script must not depend on the machine that generated it.
  const code = await main(['completion', shell], {
    io: memory.io,
    env: {},
    clock: systemClock,
    signal: new AbortController().signal,
  });
  if (code !== 0) {
    process.stderr.write(`taskctl completion ${shell} failed (exit ${code}):\n${memory.stderr.text()}`);
    process.exit(1);
  }
  writeFileSync(new URL(`taskctl.${shell}`, outDir), memory.stdout.text());
  process.stdout.write(`completions/taskctl.${shell}\n`);
}
