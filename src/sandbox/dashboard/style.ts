/** The dashboard's stylesheet: one column on a phone, a two-column grid from 900 px; readable at 1280×800. */
export const PAGE_CSS = String.raw`
:root {
  --bg: #f5f6f8; --card: #fff; --text: #1c2430; --muted: #5b6573; --line: #d9dee5; --accent: #2457c5;
  --ok: #1d7a3a; --bad: #b3261e; --warn: #8a5a00; --dim: #5b6573; --focus: #f0a500;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --card: #1d2229; --text: #e6e9ee; --muted: #a0a9b6; --line: #343b45; --accent: #7ea6ff;
    --ok: #5cc47d; --bad: #ff8a80; --warn: #f2c14e; --dim: #a0a9b6; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
code, .mono, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: var(--card); padding: 6px 10px; z-index: 2; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; padding: 10px 20px; background: var(--card); border-bottom: 1px solid var(--line); }
.top h1 { font-size: 18px; margin: 0; }
.top p { margin: 0; }
.base { color: var(--muted); overflow-wrap: anywhere; }
.live { margin-left: auto !important; color: var(--muted); font-size: 13px; }
.live.on::before { content: "● "; color: var(--ok); }
.live.off::before { content: "● "; color: var(--bad); }
main { padding: 12px 20px 24px; max-width: 1600px; margin: 0 auto; }
.layout, .settings, .content { display: grid; grid-template-columns: minmax(0, 1fr); gap: 12px; align-content: start; }
@media (min-width: 720px) { .settings { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
/* Wide screens: settings in a column on the left, tasks and deliveries beside them (all of it above the fold at 1280×800). */
@media (min-width: 1100px) {
  .layout { grid-template-columns: 390px minmax(0, 1fr); }
  .settings { grid-template-columns: minmax(0, 1fr); }
}
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 0; }
.card h2 { font-size: 15px; margin: 0 0 8px; }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 6px 0; }
.row.end { justify-content: flex-end; }
.grow { flex: 1 1 150px; min-width: 0; }
input, select, button { font: inherit; color: inherit; }
input, select { background: var(--card); border: 1px solid #9aa4b2; border-radius: 5px; padding: 5px 8px; }
input[type=number] { width: 9em; }
button { background: var(--card); border: 1px solid var(--line); border-radius: 5px; padding: 5px 12px; cursor: pointer; }
button:hover { border-color: var(--accent); }
button.danger { color: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
.note { margin: 4px 0 0; font-size: 13px; }
.note:empty { display: none; }
.note.error { color: var(--bad); }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; border: 1px solid currentColor; }
.tone-success { color: var(--ok); }
.tone-failure { color: var(--bad); }
.tone-partial, .tone-working { color: var(--warn); }
.tone-waiting { color: var(--dim); }
.fault-form { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: end; margin-top: 8px; }
.fault-form label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
.fault-form input[type=number] { width: 6.5em; }
.fault-form input[type=text] { width: 9em; }
.pager { justify-content: flex-start; }
button.link { border: none; background: none; padding: 0; color: var(--accent); text-decoration: underline; }
td.wrap { white-space: normal; overflow-wrap: anywhere; }
#task-detail h2 { margin: 0; }
.deliveries { list-style: none; margin: 8px 0 0; padding: 0; }
.delivery { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: start; }
.delivery > details > summary { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; padding: 6px 10px; cursor: pointer; }
.delivery .head-actions { margin-left: auto; }
.delivery .body { padding: 4px 10px 10px; }
.delivery pre { background: var(--bg); border: 1px solid var(--line); border-radius: 5px; padding: 8px; overflow-x: auto; margin: 4px 0 8px; white-space: pre; }
.delivery h3 { font-size: 13px; margin: 8px 0 2px; color: var(--muted); }
.delivery .actions { padding: 3px 8px 0 0; margin: 0; }
.delivery button { padding: 2px 10px; }
dialog { border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--text); max-width: min(92vw, 460px); }
dialog::backdrop { background: rgba(0, 0, 0, .45); }
dialog h2 { font-size: 16px; margin-top: 0; }
@media (max-width: 520px) {
  body { font-size: 14px; }
  .top, main { padding-left: 10px; padding-right: 10px; }
  .live { margin-left: 0 !important; }
}
`;
