// ESLint 9 flat config: typescript-eslint's strict and stylistic type-checked rules over src, test and scripts.
// Formatting is Prettier's job (`npm run lint` runs both); nothing here overlaps with it. Every rule relaxed below
// says why on its line.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers of src/, top to bottom (src/README.md, "Layers"): a file may import its own layer and the layers below it,
// never one above. Each entry lists a layer's top-level names in src/ (folders, or files such as context.ts).
const LAYERS = [
  { name: 'entry', folders: ['boot', 'bundle', 'main', 'program', 'context', 'version', 'commands'] },
  { name: 'core', folders: ['core'] },
  { name: 'features', folders: ['report', 'webhook', 'completion', 'sandbox'] },
  { name: 'output', folders: ['output'] },
  { name: 'wire and disk', folders: ['api', 'store', 'net'] },
  { name: 'lib', folders: ['lib', 'errors'] },
];

/**
 * `no-restricted-imports` for the files of one layer: the names of the layers above, reached by exactly as many `../`
 * as the file is deep below src/ (so `../api.js` inside src/sandbox/dashboard/ would be sandbox/api.ts, not api/), and the
 * same for `await import()`, which that rule does not see (`no-restricted-syntax`).
 */
function layerRules(index, extra = {}) {
  const layer = LAYERS[index];
  const above = LAYERS.slice(0, index).flatMap((l) => l.folders);
  const message = `${layer.name} must not import a layer above it (${LAYERS.slice(0, index)
    .map((l) => l.name)
    .join(', ')}): arrows point down (src/README.md, "Layers"); take what you need as a parameter.`;
  return [1, 2, 3, 4].map((depth) => {
    const up = `^(\\.\\./){${depth}}`;
    const names = (list) => `${up}(${list.join('|')})(/|\\.js$)`;
    // Types too: core/ declares the Capabilities it needs (core/capabilities.ts), which the entry layer's class implements.
    const patterns = [{ regex: names(above), message }];
    return {
      files: layer.folders.flatMap((folder) =>
        folder === 'errors' ? (depth === 1 ? ['src/errors.ts'] : []) : [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
      ),
      rules: {
        '@typescript-eslint/no-restricted-imports': ['error', { paths: extra.paths ?? [], patterns }],
        'no-restricted-syntax': [
          'error',
          {
            // esquery's /regex/ cannot hold a slash: \x2F stands for one.
            selector: `ImportExpression[source.value=/${names(above).replaceAll('/', '\\x2F')}/]`,
            message,
          },
          ...(extra.syntax ?? []),
        ],
      },
    };
  });
}

// core/ decides; disk state is store/'s: no file system in core, types included.
const NO_FS_MESSAGE = 'core/ does no disk I/O: put the file part in store/ and call it.';
const NO_FS_IN_CORE = {
  paths: ['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({ name, message: NO_FS_MESSAGE })),
  syntax: [{ selector: 'ImportExpression[source.value=/^(node:)?fs(\\x2Fpromises)?$/]', message: NO_FS_MESSAGE }],
};

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.bench/', '.dist-building-*/', 'completions/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Numbers print the same everywhere; the rule's point (objects, undefined, unknown in text) stays on.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(x) => write(x)` as a callback is idiomatic; a void value used anywhere else is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // `T[]` for simple types; `Array<...>` reads better than `[]` after a tuple, union or function type.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      // `() => {}` is how a deliberate no-op reads; an empty function or method still needs a comment saying why.
      '@typescript-eslint/no-empty-function': ['error', { allow: ['arrowFunctions'] }],
      // Function-valued members as properties (`run: () => ...`): destructuring them is then safe (unbound-method), and
      // their parameters are checked strictly rather than bivariantly.
      '@typescript-eslint/method-signature-style': ['error', 'property'],
      // `text || 'fallback'` deliberately replaces the empty string too; `??` is still required for every other type.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // `const { key: _key, ...rest } = value` is how a copy leaves a key out.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // Control characters in patterns are deliberate here: server text and items are scrubbed of them, tests assert it.
      'no-control-regex': 'off',
    },
  },
  {
    // A command file declares flags and calls a run function of the layer below; no command imports another command
    // (docs/architecture.md). The shared helpers of this folder stay importable: help texts, flag parsers and shared
    // flag declarations. index.ts registers the commands, so it imports them all.
    files: ['src/commands/**'],
    ignores: ['src/commands/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\./(?!(help-text|parsers|shared-flags)\\.js$)',
              message: 'A command must not import another command: move what they share to core/ (or to a helper).',
            },
          ],
        },
      ],
    },
  },
  ...layerRules(1, NO_FS_IN_CORE),
  ...layerRules(2),
  ...layerRules(3),
  ...layerRules(4),
  ...layerRules(5),
  {
    // A function a reader can hold: at most 120 lines of code (blank lines and comments not counted); a nested function
    // counts toward its parent, so a long closure becomes a module of named functions.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    files: ['test/**'],
    rules: {
      // Fakes implement async interfaces: `async` makes their throws rejections, as in the real code, with nothing to await.
      '@typescript-eslint/require-await': 'off',
      // A test's wrong assumption about a value's presence fails the test either way; a check adds only noise.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read parsed JSON (any) and assert its shape; `no-explicit-any` still keeps any out of the tests' own code.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // The CommonJS shim and this file are plain JavaScript: no types to check them with.
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['bin/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly', setImmediate: 'readonly' },
    },
    // CommonJS on purpose (the shim's comment says why): require is how it loads.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
