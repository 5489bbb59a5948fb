/** The environment as the context hands it in (never `process.env` read directly): one type for every layer. */
export type Env = Readonly<Record<string, string | undefined>>;
