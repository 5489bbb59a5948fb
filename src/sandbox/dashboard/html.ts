/** The dashboard's page: static markup; script.ts fills it in through the admin API. */
export const PAGE_HTML = String.raw`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>taskctl sandbox</title>
<link rel="icon" href="/dashboard/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<a class="skip" href="#deliveries">Skip to the delivery log</a>
<header class="top">
  <h1>taskctl sandbox</h1>
  <p class="base">API <code id="base-url"></code></p>
  <p id="live" class="live" role="status" aria-live="polite">connecting…</p>
</header>
<main class="layout">
<div class="settings">
  <section class="card" aria-labelledby="key-h">
    <h2 id="key-h">API key</h2>
    <div class="row">
      <label class="sr" for="api-key">API key</label>
      <input id="api-key" class="mono grow" type="password" readonly autocomplete="off" spellcheck="false" value="">
      <button type="button" id="key-reveal" aria-pressed="false" aria-controls="api-key">Reveal</button>
      <button type="button" id="key-copy">Copy</button>
    </div>
    <div class="row">
      <button type="button" id="key-regenerate" class="danger">Regenerate key…</button>
    </div>
    <p id="key-note" class="note" role="status" aria-live="polite"></p>
  </section>

  <section class="card" aria-labelledby="balance-h">
    <h2 id="balance-h">Balance</h2>
    <form id="balance-form" class="row">
      <label for="balance">Coins</label>
      <input id="balance" class="mono" type="number" min="0" step="1" inputmode="numeric" required>
      <button type="submit">Save</button>
    </form>
    <p id="balance-note" class="note" role="status" aria-live="polite"></p>
  </section>

  <section class="card" aria-labelledby="webhook-h">
    <h2 id="webhook-h">Webhook URL</h2>
    <form id="webhook-form" class="row">
      <label class="sr" for="webhook-url">Webhook URL</label>
      <input id="webhook-url" class="mono grow" type="text" placeholder="http://127.0.0.1:8788/" autocomplete="off" spellcheck="false">
      <button type="submit">Save</button>
    </form>
    <div class="row">
      <button type="button" id="webhook-test">Send test event</button>
      <button type="button" id="webhook-clear">Clear</button>
    </div>
    <p id="webhook-note" class="note" role="status" aria-live="polite"></p>
  </section>

  <section class="card" aria-labelledby="faults-h">
    <h2 id="faults-h">Faults</h2>
    <div class="scroll"><table id="faults-table">
      <thead><tr><th scope="col">method</th><th scope="col">path</th><th scope="col">kind</th><th scope="col">left</th><th scope="col">detail</th></tr></thead>
      <tbody></tbody>
    </table></div>
    <p id="faults-empty" class="muted">No faults armed.</p>
    <form id="fault-form" class="fault-form">
      <label>Method <select id="fault-method"><option>*</option><option>GET</option><option>POST</option></select></label>
      <label>Path <input id="fault-path" class="mono" type="text" value="/tasks" spellcheck="false"></label>
      <label>Kind <select id="fault-kind">
        <option>status</option><option>delay</option><option>reset-before</option><option>reset-after</option><option>truncate</option><option>non-json</option>
      </select></label>
      <label>Count <input id="fault-count" type="number" min="1" step="1" value="1"></label>
      <label>Status <input id="fault-status" type="number" min="100" max="599" step="1" value="500"></label>
      <label>Delay ms <input id="fault-delay" type="number" min="0" step="1" value="2000"></label>
      <div class="row"><button type="submit">Add fault</button><button type="button" id="faults-clear">Clear all</button></div>
    </form>
    <p id="faults-note" class="note" role="status" aria-live="polite"></p>
  </section>
</div>

<div class="content">
<section class="card" aria-labelledby="tasks-h">
  <h2 id="tasks-h">Tasks <span id="tasks-count" class="muted"></span></h2>
  <div class="scroll"><table id="tasks-table" hidden>
    <thead><tr><th scope="col">id</th><th scope="col">service</th><th scope="col">status</th><th scope="col" class="num">done / failed / total</th><th scope="col" class="num">cost</th><th scope="col">created</th></tr></thead>
    <tbody></tbody>
  </table></div>
  <p id="tasks-loading" class="muted" role="status">Loading tasks…</p>
  <p id="tasks-empty" class="muted" hidden>No tasks yet. Try <code>taskctl create domain_check_availability a.com b.com</code>.</p>
  <nav class="row pager" aria-label="Task pages">
    <button type="button" id="tasks-prev">Newer</button>
    <span id="tasks-page" class="muted"></span>
    <button type="button" id="tasks-next">Older</button>
  </nav>
</section>

<section class="card" id="task-detail" aria-labelledby="task-detail-h" tabindex="-1" hidden>
  <div class="row">
    <h2 id="task-detail-h" class="grow">Task</h2>
    <button type="button" id="task-close">Close</button>
  </div>
  <p id="task-summary"></p>
  <div class="scroll"><table id="task-items">
    <thead><tr><th scope="col" class="num">#</th><th scope="col">target</th><th scope="col">status</th><th scope="col">result or error</th></tr></thead>
    <tbody></tbody>
  </table></div>
  <p id="task-items-note" class="muted"></p>
</section>

<section class="card" id="deliveries" aria-labelledby="deliveries-h" tabindex="-1">
  <h2 id="deliveries-h">Delivery log</h2>
  <div class="row">
    <label for="delivery-filter">Show</label>
    <select id="delivery-filter">
      <option value="">all</option><option value="sending">sending</option><option value="retrying">retrying</option>
      <option value="delivered">delivered</option><option value="abandoned">abandoned</option>
    </select>
  </div>
  <ol id="delivery-list" class="deliveries" reversed></ol>
  <p id="deliveries-empty" class="muted" hidden>No deliveries yet. Set a webhook URL, then create a task.</p>
  <p id="deliveries-note" class="note" role="status" aria-live="polite"></p>
</section>
</div>
</main>

<dialog id="confirm-regenerate" aria-labelledby="confirm-h">
  <form method="dialog">
    <h2 id="confirm-h">Regenerate the API key?</h2>
    <p>The current key stops working at once: every request that uses it gets 401. Webhooks are signed with the new key.</p>
    <div class="row end">
      <button value="cancel" autofocus>Cancel</button>
      <button value="confirm" id="confirm-yes" class="danger">Regenerate</button>
    </div>
  </form>
</dialog>
</body>
</html>
`;

/** A small favicon, so the browser's automatic request does not 404. */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2457c5"/><path d="M4 5h8M8 5v7" stroke="#fff" stroke-width="2"/></svg>';
