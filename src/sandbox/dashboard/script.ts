/**
 * The dashboard's script. Everything it shows and does goes through the admin API (`/__sandbox/*`), so a script can do
 * the same with curl. Live: `GET /__sandbox/events` (server-sent events) names what changed and the page re-reads that
 * part; while a shown task is unfinished, its page of tasks is re-read every second (progress moves with the clock,
 * not with events); so is an opened task's items. Until the first answer, the task list says it is loading. Text from
 * the server is set with textContent, never as HTML.
 * (Plain browser JavaScript in a string: no backticks or dollar-brace inside.)
 */
import { statusToneTable } from '../../lib/task-state.js';

/**
 * The vocabulary's table as JSON text, put in by scripts/build.ts (esbuild `define`) from lib/task-state.ts at build
 * time; run from source (tests, `npm run dev`) it is not defined and the same table is made here.
 */
declare const TASKCTL_STATUS_TONES: string | undefined;

/** The status vocabulary's copy in the page (word → tone): the script compares no status word of its own. */
const VOCABULARY_JS = `var STATUS_TONES = ${
  typeof TASKCTL_STATUS_TONES === 'string' ? TASKCTL_STATUS_TONES : JSON.stringify(statusToneTable())
};\n`;

/**
 * How the page asks the admin API, and what it says when that fails: `api` throws a `Failure` in words (the sandbox's
 * own message, or what to do when it did not answer); `problem(e)` is what a note shows for any error, never a
 * browser's or a script engine's own text. Its own string, so that a test can run it without a browser.
 */
export const REQUEST_JS = String.raw`
  function Failure(message) { this.message = message; }

  async function api(path, options) {
    options = options || {};
    var init = { method: options.method || 'GET', headers: {} };
    if (options.body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    var res;
    var text;
    try {
      res = await fetch('/__sandbox' + path, init);
      text = await res.text();
    } catch (e) {
      throw new Failure('the sandbox did not answer: if it has stopped, start it again and reload this page');
    }
    var json = null;
    try { json = JSON.parse(text); } catch (e) { json = null; }
    if (!res.ok) {
      var said = json && json.error && typeof json.error.message === 'string' ? json.error.message : '';
      throw new Failure(said !== '' ? said : 'the sandbox answered HTTP ' + res.status + ' without saying why; its log may tell more');
    }
    return json;
  }

  function problem(e) {
    if (e instanceof Failure) return e.message;
    console.error(e);
    return 'something went wrong in this page; reload it (the browser console has the details)';
  }
`;

export const PAGE_JS =
  String.raw`'use strict';
` +
  VOCABULARY_JS +
  String.raw`(function () {
  var PER_PAGE = 25;
  /** An opened task shows this many of its items (a task may have 10,000); taskctl show prints them all. */
  var ITEMS_SHOWN = 500;
  var state = { key: '', revealed: false, taskPage: 1, totalPages: 0, filter: '', openDeliveries: new Set(), openTask: null };

  function $(id) { return document.getElementById(id); }
` +
  REQUEST_JS +
  String.raw`

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) for (var name in attrs) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) continue;
      if (name === 'text') el.textContent = String(value);
      else if (name === 'class') el.className = value;
      else if (name.slice(0, 2) === 'on') el.addEventListener(name.slice(2), value);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === undefined || child === null) continue;
      el.append(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return el;
  }

  function note(id, text, isError) {
    var el = $(id);
    el.textContent = text;
    el.classList.toggle('error', Boolean(isError));
  }

  function masked(key) {
    if (key.length <= 8) return '••••••••';
    return key.slice(0, 4) + '••••••••••••' + key.slice(-4);
  }

  function showKey() {
    var input = $('api-key');
    input.value = state.revealed ? state.key : masked(state.key);
    input.type = state.revealed ? 'text' : 'password';
    input.setAttribute('aria-label', state.revealed ? 'API key (shown)' : 'API key (masked)');
    var button = $('key-reveal');
    button.textContent = state.revealed ? 'Hide' : 'Reveal';
    button.setAttribute('aria-pressed', String(state.revealed));
  }

  function localTime(iso) {
    if (!iso) return '';
    var d = new Date(iso);
    return isNaN(d.getTime()) ? iso : d.toLocaleTimeString([], { hour12: false });
  }

  // Counts as the CLI prints them for a person (1,234), whatever the browser's locale.
  function count(n) {
    return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  }

  function localDateTime(iso) {
    if (!iso) return '';
    var d = new Date(iso);
    return isNaN(d.getTime()) ? iso : d.toLocaleString([], { hour12: false });
  }

  // A task's tone comes with it from the server (its verdict, the CLI's own rule); a delivery's from its state.
  var DELIVERY_TONES = { delivered: 'success', abandoned: 'failure', retrying: 'working', sending: 'working' };
  /** An item's tone by the vocabulary (STATUS_TONES); a word it does not know is waiting, as for the CLI. */
  function itemTone(status) {
    var tone = Object.prototype.hasOwnProperty.call(STATUS_TONES, String(status).toLowerCase()) ? STATUS_TONES[String(status).toLowerCase()] : 'plain';
    return tone === 'plain' ? 'waiting' : tone;
  }

  function badge(text, tone) {
    return h('span', { class: 'badge tone-' + String(tone || 'plain').replace(/[^a-z-]/g, ''), text: text });
  }

  // ---- state: key, balance, webhook URL ----
  var shown = {};
  function syncField(id, value) {
    var input = $(id);
    var edited = document.activeElement === input && input.value !== shown[id];
    if (!edited) input.value = value;
    shown[id] = value;
  }

  async function loadState() {
    var s = await api('/state?tasks=false');
    state.key = s.apiKey;
    showKey();
    // A field being edited keeps what the user typed; an unedited one follows the server.
    syncField('balance', String(s.balance));
    syncField('webhook-url', s.webhookUrl || '');
    $('webhook-clear').disabled = !s.webhookUrl;
    $('webhook-test').disabled = !s.webhookUrl;
  }

  // ---- tasks ----
  var taskTimer = null;
  async function loadTasks() {
    var r = await api('/tasks?page=' + state.taskPage + '&per_page=' + PER_PAGE);
    if (r.tasks.length === 0 && state.taskPage > 1 && r.meta.total_pages > 0) {
      state.taskPage = r.meta.total_pages;
      return loadTasks();
    }
    state.totalPages = r.meta.total_pages;
    var body = $('tasks-table').tBodies[0];
    body.replaceChildren.apply(body, r.tasks.map(function (t) {
      return h('tr', { 'data-task': t.id },
        h('td', { class: 'num' }, h('button', { type: 'button', class: 'link', 'data-focus': 'open-' + t.id,
          'aria-label': 'Open task ' + t.id + ' and its items', text: t.id, onclick: function () { openTask(t.id); } })),
        h('td', { text: t.service }),
        h('td', null, badge(t.status, t.verdict && t.verdict.tone)),
        h('td', { class: 'num', text: (t.completed_items || 0) + ' / ' + (t.failed_items || 0) + ' / ' + t.total_items }),
        h('td', { class: 'num', text: t.cost }),
        h('td', { text: localDateTime(t.created_at), title: t.created_at }));
    }));
    $('tasks-loading').hidden = true;
    $('tasks-empty').hidden = r.meta.total_count > 0;
    $('tasks-table').hidden = r.meta.total_count === 0;
    $('tasks-count').textContent = r.meta.total_count > 0 ? '(' + count(r.meta.total_count) + ')' : '';
    $('tasks-page').textContent = r.meta.total_pages > 0 ? 'page ' + r.meta.current_page + ' of ' + r.meta.total_pages : '';
    $('tasks-prev').disabled = state.taskPage <= 1;
    $('tasks-next').disabled = state.taskPage >= r.meta.total_pages;
    var unfinished = r.tasks.some(function (t) { return !(t.verdict && t.verdict.ended); });
    clearTimeout(taskTimer);
    if (unfinished) taskTimer = setTimeout(function () { refresh('tasks'); }, 1000);
  }

  // ---- one task and its items ----
  var openTimer = null;
  function itemResult(item) {
    if (itemTone(item.status) === 'failure') return item.error || '';
    return item.data === null || item.data === undefined ? '' : JSON.stringify(item.data);
  }

  async function loadTask() {
    clearTimeout(openTimer);
    var panel = $('task-detail');
    if (state.openTask === null) { panel.hidden = true; return; }
    var t = (await api('/tasks/' + state.openTask)).task;
    $('task-detail-h').textContent = 'Task ' + t.id + ' · ' + t.service;
    var summary = $('task-summary');
    summary.replaceChildren(badge(t.status, t.verdict && t.verdict.tone),
      ' ' + (t.completed_items || 0) + ' completed, ' + (t.failed_items || 0) + ' failed of ' + t.total_items +
      (t.error_message ? ' · ' + t.error_message : ''));
    var items = t.items || [];
    var body = $('task-items').tBodies[0];
    body.replaceChildren.apply(body, items.slice(0, ITEMS_SHOWN).map(function (item, i) {
      return h('tr', { 'data-item': i + 1 },
        h('td', { class: 'num', text: i + 1 }),
        h('td', { class: 'mono', text: item.target }),
        h('td', null, badge(item.status, itemTone(item.status))),
        h('td', { class: 'mono wrap', text: itemResult(item) }));
    }));
    $('task-items-note').textContent = items.length > ITEMS_SHOWN
      ? 'The first ' + count(ITEMS_SHOWN) + ' of ' + count(items.length) + ' items; all of them: taskctl show ' + t.id
      : '';
    panel.hidden = false;
    if (!(t.verdict && t.verdict.ended)) openTimer = setTimeout(function () { refresh('task'); }, 1000);
  }

  async function openTask(id) {
    state.openTask = id;
    await refresh('task');
    $('task-detail').focus();
  }

  // ---- deliveries ----
  function attemptOutcome(a) {
    if (a.statusCode !== null && a.statusCode !== undefined) return 'HTTP ' + a.statusCode;
    return a.error || 'no answer';
  }

  function deliveryItem(d) {
    var last = d.attempts[d.attempts.length - 1];
    var stateText = d.state === 'retrying' && d.nextAttemptAt ? 'next attempt ' + localTime(d.nextAttemptAt) : '';
    var details = h('details', { 'data-delivery': d.id, ontoggle: function () {
      if (details.open) state.openDeliveries.add(d.id); else state.openDeliveries.delete(d.id);
    } },
      h('summary', null,
        h('span', { class: 'mono', text: '#' + d.id }),
        h('strong', { text: d.event }),
        h('span', { text: d.test ? 'test event' : 'task ' + d.taskId }),
        badge(d.state, DELIVERY_TONES[d.state]),
        stateText ? h('span', { class: 'muted', text: stateText }) : null,
        h('span', { class: 'muted', text: d.attempts.length + (d.attempts.length === 1 ? ' attempt' : ' attempts') +
          (last ? ', last ' + attemptOutcome(last) + ' in ' + last.durationMs + ' ms' : '') })),
      h('div', { class: 'body' },
        h('h3', { text: 'Attempts' }),
        h('div', { class: 'scroll' }, h('table', { class: 'attempts' },
          h('thead', null, h('tr', null, h('th', { text: '#' }), h('th', { text: 'time' }), h('th', { text: 'outcome' }),
            h('th', { class: 'num', text: 'response time' }), h('th', { text: '' }))),
          h('tbody'))),
        h('h3', { text: 'Request headers' }),
        h('pre', { text: Object.keys(d.headers || {}).map(function (k) { return k + ': ' + d.headers[k]; }).join('\n') }),
        h('h3', { text: 'Payload' }),
        h('pre', { text: JSON.stringify(d.payload, null, 2) }),
        h('p', { class: 'muted', text: 'to ' + d.url })));
    var rows = details.querySelector('table.attempts tbody');
    if (d.attempts.length === 0) rows.append(h('tr', null, h('td', { colspan: 5, class: 'muted', text: 'sending…' })));
    d.attempts.forEach(function (a) {
      rows.append(h('tr', null,
        h('td', { class: 'num', text: a.attempt }),
        h('td', { text: localTime(a.at), title: a.at }),
        h('td', null, h('span', { class: a.statusCode === 200 ? 'tone-success' : 'tone-failure', text: attemptOutcome(a) })),
        h('td', { class: 'num', text: a.durationMs + ' ms' }),
        h('td', { class: 'muted', text: a.replay ? 'replay' : '' })));
    });
    if (state.openDeliveries.has(d.id)) details.open = true;
    var replay = h('button', { type: 'button', class: 'replay', 'data-focus': 'replay-' + d.id,
      'aria-label': 'Replay delivery ' + d.id + ' (' + d.event + ', task ' + d.taskId + ')', text: 'Replay',
      onclick: function () { replayDelivery(d.id, replay); } });
    return h('li', { class: 'delivery', 'data-state': d.state, id: 'delivery-' + d.id }, details,
      h('div', { class: 'actions row' }, replay));
  }

  async function loadDeliveries() {
    var q = '/deliveries?limit=100' + (state.filter ? '&state=' + encodeURIComponent(state.filter) : '');
    var r = await api(q);
    var list = $('delivery-list');
    var focused = document.activeElement && document.activeElement.getAttribute('data-focus');
    var items = r.deliveries.slice().reverse().map(deliveryItem);
    list.replaceChildren.apply(list, items);
    $('deliveries-empty').hidden = items.length > 0;
    $('deliveries-empty').textContent = state.filter
      ? 'No ' + state.filter + ' deliveries.'
      : 'No deliveries yet. Set a webhook URL, then create a task.';
    if (focused) {
      var again = list.querySelector('[data-focus="' + focused + '"]');
      if (again) again.focus();
    }
  }

  async function replayDelivery(id, button) {
    button.disabled = true;
    note('deliveries-note', 'replaying delivery ' + id + '…');
    try {
      var r = await api('/deliveries/' + id + '/replay', { method: 'POST' });
      var a = r.delivery.attempts[r.delivery.attempts.length - 1];
      note('deliveries-note', 'delivery ' + id + ' replayed: ' + (a ? attemptOutcome(a) + ' in ' + a.durationMs + ' ms' : 'not sent') + ' (' + r.delivery.state + ')', !a || a.statusCode !== 200);
    } catch (e) {
      note('deliveries-note', 'replay failed: ' + problem(e), true);
    }
    button.disabled = false;
    await refresh('deliveries');
  }

  // ---- faults ----
  async function loadFaults() {
    var r = await api('/faults');
    var body = $('faults-table').tBodies[0];
    body.replaceChildren.apply(body, r.faults.map(function (f) {
      var detail = f.kind === 'status' || f.kind === 'non-json' ? (f.status ? 'HTTP ' + f.status : '') : f.kind === 'delay' ? f.delayMs + ' ms' : '';
      return h('tr', null, h('td', { text: f.method }), h('td', { class: 'mono', text: f.path }), h('td', { text: f.kind }),
        h('td', { class: 'num', text: f.remaining }), h('td', { text: detail }));
    }));
    $('faults-table').hidden = r.faults.length === 0;
    $('faults-empty').hidden = r.faults.length > 0;
    $('faults-clear').disabled = r.faults.length === 0;
  }

  // ---- refresh and live feed ----
  var loaders = { state: loadState, tasks: loadTasks, task: loadTask, deliveries: loadDeliveries, faults: loadFaults };
  var running = {};
  var again = {};
  async function refresh(topic) {
    if (running[topic]) { again[topic] = true; return; }
    running[topic] = true;
    try { await loaders[topic](); } catch (e) { note('live', 'could not read ' + topic + ': ' + problem(e), true); }
    running[topic] = false;
    if (again[topic]) { again[topic] = false; await refresh(topic); }
  }
  function refreshAll() {
    return Promise.all(Object.keys(loaders).map(refresh));
  }

  function connect() {
    if (!window.EventSource) { setInterval(refreshAll, 2000); return; }
    var source = new EventSource('/__sandbox/events');
    var live = $('live');
    source.addEventListener('hello', function () {
      live.textContent = 'live';
      live.className = 'live on';
      refreshAll();
    });
    source.addEventListener('change', function (event) {
      var topic = JSON.parse(event.data).topic;
      if (topic === 'state') { refresh('state'); refresh('tasks'); }
      else if (loaders[topic]) refresh(topic);
    });
    source.addEventListener('error', function () {
      live.textContent = 'reconnecting…';
      live.className = 'live off';
    });
  }

  // ---- actions ----
  function wire() {
    $('base-url').textContent = location.origin + '/api/v1';
    $('key-reveal').addEventListener('click', function () { state.revealed = !state.revealed; showKey(); });
    $('key-copy').addEventListener('click', async function () {
      try {
        await navigator.clipboard.writeText(state.key);
        note('key-note', 'Key copied to the clipboard.');
      } catch (e) {
        var input = $('api-key');
        state.revealed = true; showKey(); input.select();
        note('key-note', 'Copy is blocked here: the key is selected, press Ctrl+C.', true);
      }
    });
    var dialog = $('confirm-regenerate');
    $('key-regenerate').addEventListener('click', function () { dialog.returnValue = ''; dialog.showModal(); });
    dialog.addEventListener('close', async function () {
      if (dialog.returnValue !== 'confirm') { $('key-regenerate').focus(); return; }
      try {
        var r = await api('/rotate-key', { method: 'POST', body: {} });
        state.key = r.apiKey;
        state.revealed = true;
        showKey();
        note('key-note', 'New key shown once here; copy it now. The old key now gets 401.');
        $('key-copy').focus();
      } catch (e) {
        note('key-note', 'Could not regenerate: ' + problem(e), true);
      }
    });
    $('balance-form').addEventListener('submit', async function (event) {
      event.preventDefault();
      var text = $('balance').value.trim();
      try {
        var r = await api('/balance', { method: 'POST', body: { balance: /^\d+$/.test(text) ? Number(text) : text } });
        shown['balance'] = String(r.balance);
        note('balance-note', 'Balance set to ' + count(r.balance) + ' coins.');
      } catch (e) { note('balance-note', problem(e), true); }
    });
    $('webhook-form').addEventListener('submit', async function (event) {
      event.preventDefault();
      var url = $('webhook-url').value.trim();
      try {
        var r = await api('/webhook', { method: 'POST', body: { url: url === '' ? null : url } });
        shown['webhook-url'] = r.webhookUrl || '';
        note('webhook-note', r.webhookUrl ? 'Events now go to ' + r.webhookUrl + '.' : 'Webhook URL cleared.');
        await refresh('state');
      } catch (e) { note('webhook-note', problem(e), true); }
    });
    $('webhook-clear').addEventListener('click', async function () {
      try {
        await api('/webhook', { method: 'POST', body: { url: null } });
        $('webhook-url').value = '';
        note('webhook-note', 'Webhook URL cleared.');
        await refresh('state');
      } catch (e) { note('webhook-note', problem(e), true); }
    });
    $('webhook-test').addEventListener('click', async function () {
      note('webhook-note', 'sending a test event…');
      try {
        var r = await api('/webhook/test', { method: 'POST', body: {} });
        var a = r.delivery.attempts[0];
        var ok = a && a.statusCode === 200;
        note('webhook-note', 'Test event: ' + (a ? attemptOutcome(a) + ' in ' + a.durationMs + ' ms' : 'not sent') + (ok ? '' : ' (the service counts only HTTP 200)'), !ok);
      } catch (e) { note('webhook-note', problem(e), true); }
      await refresh('deliveries');
    });
    $('fault-form').addEventListener('submit', async function (event) {
      event.preventDefault();
      var kind = $('fault-kind').value;
      var body = { method: $('fault-method').value, path: $('fault-path').value.trim(), kind: kind, count: Number($('fault-count').value) };
      if (kind === 'status' || kind === 'non-json') body.status = Number($('fault-status').value);
      if (kind === 'delay') body.delayMs = Number($('fault-delay').value);
      try {
        var r = await api('/faults', { method: 'POST', body: body });
        note('faults-note', 'Armed: the next ' + r.fault.remaining + ' ' + r.fault.method + ' ' + r.fault.path + ' → ' + r.fault.kind + '.');
        await refresh('faults');
      } catch (e) { note('faults-note', problem(e), true); }
    });
    $('faults-clear').addEventListener('click', async function () {
      try {
        await api('/faults', { method: 'DELETE' });
        note('faults-note', 'All faults cleared.');
        await refresh('faults');
      } catch (e) { note('faults-note', problem(e), true); }
    });
    $('task-close').addEventListener('click', function () {
      var id = state.openTask;
      state.openTask = null;
      $('task-detail').hidden = true;
      var opener = document.querySelector('[data-focus="open-' + id + '"]');
      if (opener) opener.focus();
    });
    $('tasks-prev').addEventListener('click', function () { state.taskPage = Math.max(1, state.taskPage - 1); refresh('tasks'); });
    $('tasks-next').addEventListener('click', function () { state.taskPage = Math.min(state.totalPages, state.taskPage + 1); refresh('tasks'); });
    $('delivery-filter').addEventListener('change', function () { state.filter = $('delivery-filter').value; refresh('deliveries'); });
  }

  wire();
  refreshAll().then(connect);
})();
`;
