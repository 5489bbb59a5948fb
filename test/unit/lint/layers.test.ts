/**
 * The layers of src/ (docs/architecture.md#layers) are eslint's rules (eslint.config.js, `layerRules`): an import that
 * points up, or node:fs in core/, fails `npm run lint`. Linted in process, as text standing in for a real file.
 */
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// By URL: eslint.config.js is plain JavaScript without types.
const configUrl = new URL('../../../eslint.config.js', import.meta.url).href;
const { default: config } = (await import(configUrl)) as { default: Linter.Config[] };

const LAYER_RULES = ['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax'];

// The project's own config reduced to the layer rules: no type information needed, so linting takes milliseconds.
const layerConfig = config.flatMap((entry) => {
  const rules = Object.fromEntries(Object.entries(entry.rules ?? {}).filter(([name]) => LAYER_RULES.includes(name)));
  return entry.files && Object.keys(rules).length > 0 ? [{ files: entry.files, rules }] : [];
});

const eslint = new ESLint({
  cwd: new URL('../../..', import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [
    { languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } },
    ...layerConfig,
  ],
});

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

describe('layers', () => {
  it('refuses node:fs in core/, static or dynamic', async () => {
    const errors = await layerErrors(
      'src/core/settings.ts',
      "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\nexport const g = () => import('node:fs/promises');\n",
    );
    expect(layerConfig.length).toBeGreaterThan(0);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/core\/ does no disk I\/O/);
  });

  it('refuses an arrow pointing up, at any depth, and a dynamic one', async () => {
    expect(await layerErrors('src/lib/time.ts', "export { f } from '../api/client.js';\n")).toHaveLength(1);
    expect(await layerErrors('src/output/io.ts', "import '../core/settings.js';\n")).toHaveLength(1);
    expect(await layerErrors('src/store/config-file.ts', "import '../output/io.js';\n")).toHaveLength(1);
    expect(await layerErrors('src/core/follow/wait-loop.ts', "import '../../sandbox/launch.js';\n")).toHaveLength(0);
    expect(await layerErrors('src/core/follow/wait-loop.ts', "import '../../commands/wait.js';\n")).toHaveLength(1);
    expect(
      await layerErrors('src/webhook/catch-up.ts', "export const f = () => import('../core/settings.js');\n"),
    ).toHaveLength(1);
  });

  it('lets a layer import below it; core names its own Context, and not even the type of the class above', async () => {
    expect(await layerErrors('src/store/config-file.ts', "import '../lib/env.js';\nimport '../errors.js';\n")).toEqual(
      [],
    );
    // src/sandbox/dashboard/: `../api.js` is sandbox/api-routes.ts, not api/ (exact depth).
    expect(
      await layerErrors('src/sandbox/dashboard/x.ts', "import '../api.js';\nimport '../../net/listen.js';\n"),
    ).toEqual([]);
    expect(
      await layerErrors('src/core/submit/prepare-items.ts', "import type { Context } from '../context.js';\n"),
    ).toEqual([]);
    expect(
      await layerErrors('src/core/submit/prepare-items.ts', "import type { Context } from '../../context.js';\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('src/report/write.ts', "import type { Context } from '../core/context.js';\n"),
    ).toHaveLength(1);
  });
});
