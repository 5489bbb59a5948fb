/**
 * Commands without arguments or flags of their own that, typed alone (`taskctl balance`), run without commander and
 * the command tree (src/main.ts) from dist/plain.cjs, a bundle without them (src/boot.ts): start-up speed,
 * docs/performance.md#where-start-up-time-goes-and-what-was-done. Here rather than in main.ts so that boot.ts, which
 * picks the bundle, stays free of the CLI's modules.
 */
const PLAIN_COMMAND_WORDS = ['balance'] as const;

export type PlainCommandWord = (typeof PLAIN_COMMAND_WORDS)[number];

/** The command word when `argv` is a plain command typed alone, else undefined. */
export function plainCommandWord(argv: readonly string[]): PlainCommandWord | undefined {
  const [word] = argv;
  return argv.length === 1 && (PLAIN_COMMAND_WORDS as readonly string[]).includes(word ?? '')
    ? (word as PlainCommandWord)
    : undefined;
}
