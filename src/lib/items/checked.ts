/** A normalised item, or why the input is not one. */
export type Checked = { ok: true; value: string } | { ok: false; reason: string };
