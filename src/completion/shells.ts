/** The shells `taskctl completion` supports; kept apart from the generators so registering the command loads nothing. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
