/** The shells `taskctl completion` supports; kept apart from the generators so registering the command loads nothing. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What the completion scripts ask `taskctl __complete` for. */
export const DYNAMIC_KINDS = ['services', 'tasks', 'jobs'] as const;
export type DynamicKind = (typeof DYNAMIC_KINDS)[number];
