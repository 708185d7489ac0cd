// warpwatch's operators' console (README.md): plain JavaScript, no framework, no build step.
// Hash-routed pages on the daemon's API (docs/api.md); charts with dygraphs (Debian's
// libjs-dygraphs, served by the daemon) and the explain module's plot.svg.
'use strict';

const TOKEN_KEY = 'warpwatch.token';
const $ = (sel, root = document) => root.querySelector(sel);
const main = $('#main');
let pageCleanup = [];   // timers and charts of the page shown
let tokenWaiters = [];  // API calls waiting for a token

// ---- small helpers ------------------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}
const fmt = (x, digits = 3) => (x === null || x === undefined || Number.isNaN(x)) ? '–'
  : Math.abs(x) >= 1000 || Number.isInteger(x) ? Math.round(x).toLocaleString('en') : Number(x).toPrecision(digits);
const nsDate = (ns) => new Date(Number(ns) / 1e6);
const when = (ns) => nsDate(ns).toISOString().replace('T', ' ').replace('Z', '');
const enc = encodeURIComponent;
function notice(text, kind = 'error') {
  const n = $('#notice');
  n.className = kind;
  n.textContent = text || '';
}
function every(ms, fn) {
  let stopped = false, timer = null;
  const tick = async () => {
    try { await fn(); } catch (e) { showError(e); }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  tick();
  pageCleanup.push(() => { stopped = true; clearTimeout(timer); });
}
function showError(e) {
  if (e && e.name === 'AbortError') return;
  notice(e && e.message ? e.message : String(e));
}

// ---- the API: bearer token from sessionStorage, asked once; 401 asks again ---------------
let tokensRequired = true;
function askToken(message) {
  const form = $('#token-form');
  form.hidden = false;
  notice(message || '', 'info');
  $('#token').focus();
  return new Promise((resolve) => tokenWaiters.push(resolve));
}
$('#token-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const t = $('#token').value.trim();
  if (!t) return;
  sessionStorage.setItem(TOKEN_KEY, t);
  $('#token').value = '';
  $('#token-form').hidden = true;
  $('#forget-token').hidden = false;
  notice('');
  const waiting = tokenWaiters;
  tokenWaiters = [];
  waiting.forEach((w) => w());
});
$('#forget-token').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  $('#forget-token').hidden = true;
  render();
});

class ApiError extends Error {
  constructor(status, detail, field) {
    super(detail);
    this.status = status;
    this.field = field;
  }
}

async function api(path, { method = 'GET', body, headers = {}, signal, raw = false } = {}) {
  for (let attempt = 0; attempt < 5; ++attempt) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (tokensRequired && !token) {
      await askToken('Enter an API token to continue.');
      continue;
    }
    const h = { ...headers };
    if (token) h.Authorization = 'Bearer ' + token;
    if (body !== undefined) h['Content-Type'] = 'application/json';
    const r = await fetch('api/v1/' + path, {
      method, headers: h, signal, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      await askToken('The token was refused (401): enter another.');
      continue;
    }
    if (!r.ok) {
      let p = {};
      try { p = await r.json(); } catch (e) { /* not problem+json */ }
      let detail = `${method} ${path}: ${r.status} ${p.detail || r.statusText}`;
      if (r.status === 403 && method !== 'GET') detail = 'read-only token: ' + detail;
      throw new ApiError(r.status, detail, p.field);
    }
    if (raw) return r;
    return { body: r.status === 204 ? null : await r.json(), etag: r.headers.get('ETag') };
  }
  throw new Error('no usable token');
}
const get = async (path, opts) => (await api(path, opts)).body;

// ---- routing ------------------------------------------------------------------------------
const routes = [
  [/^\/?$/, overviewPage, '#/'],
  [/^\/streams$/, streamsPage, '#/streams'],
  [/^\/streams\/(.+)$/, streamPage, '#/streams'],
  [/^\/events$/, eventsPage, '#/events'],
  [/^\/events\/(.+)$/, eventPage, '#/events'],
  [/^\/patterns$/, patternsPage, '#/patterns'],
];
function render() {
  pageCleanup.forEach((f) => f());
  pageCleanup = [];
  notice('');
  const hash = location.hash.replace(/^#/, '');
  const [pathPart, queryPart] = hash.split('?');
  const query = new URLSearchParams(queryPart || '');
  for (const [re, page, nav] of routes) {
    const m = pathPart.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll('header nav a')) {
      if (a.getAttribute('href') === nav) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    main.replaceChildren();
    page(m[1] ? decodeURIComponent(m[1]) : undefined, query).catch(showError);
    return;
  }
  main.replaceChildren(el('h1', { text: 'Not found' }), el('p', { text: 'No page ' + hash }));
}
window.addEventListener('hashchange', () => { render(); main.focus(); });

// The series' colours, and a legend of the console's own under each chart (classes of
// app.css): dygraphs' legend plugin writes inline style attributes, which the Content
// Security Policy refuses, so it is left out.
const COLORS = ['#1f5fbf', '#d9480f', '#2b8a3e', '#7048e8', '#c2255c', '#0b7285'];
if (window.Dygraph) Dygraph.PLUGINS = Dygraph.PLUGINS.filter((p) => p !== Dygraph.Plugins.Legend);
function chart(div, data, opts) {
  const legend = el('div', { class: 'legend', 'aria-live': 'off' });
  div.after(legend);
  const names = (g) => g.getLabels().slice(1).map((l, i) =>
    el('span', { class: 'lg lg-' + (i % COLORS.length), text: l }));
  const g = new Dygraph(div, data, Object.assign({
    colors: COLORS, connectSeparatedPoints: true, axes: { x: { axisLabelWidth: 70 } },
    highlightCallback: (ev, x, points) => legend.replaceChildren(
      el('span', { class: 'lg', text: typeof x === 'number' && x > 1e11 ? new Date(x).toISOString() : String(x) }),
      ...points.map((p) => el('span', { class: 'lg lg-' + ((g.getLabels().indexOf(p.name) - 1) % COLORS.length),
                                        text: `${p.name}: ${fmt(p.yval, 4)}` }))),
    unhighlightCallback: () => legend.replaceChildren(...names(g)),
    drawCallback: (graph, first) => { if (first) legend.replaceChildren(...names(graph)); },
  }, opts));
  pageCleanup.push(() => legend.remove());
  pageCleanup.push(() => g.destroy());
  return g;
}

// ---- overview -----------------------------------------------------------------------------
async function overviewPage() {
  document.title = 'Overview · warpwatch';
  const cards = el('div', { class: 'cards' });
  const card = (id, label) => el('div', { class: 'card' },
    el('div', { class: 'label', id: id + '-label', text: label }),
    el('div', { class: 'value', id, 'aria-labelledby': id + '-label', text: '–' }));
  [['ov-in', 'samples/s in'], ['ov-matched', 'samples/s matched'],
   ['ov-rejected', 'samples/s rejected'], ['ov-backlog', 'backlog (samples)'],
   ['ov-rounds', 'rounds/s'], ['ov-events', 'events/min'], ['ov-streams', 'streams'],
   ['ov-patterns', 'patterns'], ['ov-backend', 'backend'], ['ov-devices', 'devices'],
   ['ov-uptime', 'uptime'], ['ov-version', 'version']].forEach(([i, l]) => cards.append(card(i, l)));
  const sinks = el('tbody');
  main.append(el('h1', { text: 'Overview' }), cards, el('h2', { text: 'Sinks' }),
    el('div', { class: 'table-wrap' }, el('table', { id: 'sinks' },
      el('thead', {}, el('tr', {}, ...['sink', 'queued', 'sent', 'dropped', 'failed'].map(
        (h, i) => el('th', { class: i ? 'num' : null, scope: 'col', text: h })))), sinks)),
    el('p', { class: 'muted', text: 'Rates from two polls of GET /api/v1/status, every 2 s.' }));
  let last = null;
  const set = (id, v) => { $('#' + id).textContent = v; };
  every(2000, async () => {
    const s = await get('status');
    if (last && s.time_ns > last.time_ns) {
      const dt = (s.time_ns - last.time_ns) / 1e9;
      const rate = (k) => (s[k] - last[k]) / dt;
      set('ov-in', fmt(rate('samples_in')));
      $('#ov-in').dataset.value = rate('samples_in');
      set('ov-matched', fmt(rate('samples_matched')));
      set('ov-rejected', fmt(rate('samples_rejected')));
      set('ov-rounds', fmt(rate('rounds')));
      set('ov-events', fmt(rate('events') * 60));
    }
    set('ov-backlog', fmt(s.backlog_samples));
    set('ov-streams', fmt(s.streams));
    set('ov-patterns', fmt(s.patterns));
    set('ov-backend', s.backend);
    set('ov-devices', s.cuda.devices ? `${s.cuda.devices} CUDA: ${s.cuda.detail}`
      : (s.cuda.compiled ? 'no CUDA device' : 'cpu only'));
    const up = Math.floor(s.uptime_seconds);
    set('ov-uptime', `${Math.floor(up / 3600)}h ${Math.floor(up / 60) % 60}m ${up % 60}s`);
    set('ov-version', s.version);
    sinks.replaceChildren(...(s.sinks.length ? s.sinks.map((k) => el('tr', {},
      el('td', { text: k.name }), ...['queued', 'sent', 'dropped', 'failed'].map(
        (f) => el('td', { class: 'num', text: fmt(k[f]) }))))
      : [el('tr', {}, el('td', { colspan: 5, class: 'muted', text: 'no sinks configured' }))]));
    last = s;
  });
}

// ---- streams ------------------------------------------------------------------------------
function sparkline(canvas, values) {
  const w = canvas.width = 120, h = canvas.height = 24, ctx = canvas.getContext('2d');
  if (values.length < 2) return;
  let lo = Infinity, hi = -Infinity;
  for (const v of values) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const span = hi - lo || 1;
  ctx.strokeStyle = '#1f5fbf';
  ctx.lineWidth = 1.2;
  ctx.beginPath();
  values.forEach((v, i) => {
    const x = (i / (values.length - 1)) * (w - 2) + 1, y = h - 2 - ((v - lo) / span) * (h - 4);
    i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
  });
  ctx.stroke();
}

let latestEvents = { at: 0, byStream: new Map() };
async function lastEventByStream() {
  if (performance.now() - latestEvents.at < 5000) return latestEvents.byStream;
  const { events } = await get('events?limit=1000');
  const m = new Map();
  for (const e of events) if (!m.has(e.stream)) m.set(e.stream, e);
  latestEvents = { at: performance.now(), byStream: m };
  return m;
}

async function streamsPage(_, query) {
  document.title = 'Streams · warpwatch';
  const PAGE = 50;
  let q = query.get('q') || '', offset = 0, controller = null, generation = 0;
  const input = el('input', { id: 'stream-q', type: 'search', value: q, placeholder: 'part of an id',
                              autocomplete: 'off' });
  const tbody = el('tbody');
  const table = el('table', { id: 'streams', 'aria-describedby': 'streams-total' },
    el('thead', {}, el('tr', {}, ...[['stream'], ['dims', 'num'], ['rate Hz', 'num hide-narrow'],
      ['samples', 'num hide-narrow'], ['backlog', 'num hide-narrow'], ['patterns', 'num hide-narrow'],
      ['recent samples'], ['last event']].map(([h, c]) => el('th', { scope: 'col', class: c, text: h })))),
    tbody);
  const total = el('span', { id: 'streams-total', class: 'muted' });
  const prev = el('button', { type: 'button', class: 'secondary', text: '← Previous' });
  const next = el('button', { type: 'button', class: 'secondary', text: 'Next →' });
  main.append(el('h1', { text: 'Streams' }),
    el('div', { class: 'toolbar' }, el('label', { for: 'stream-q', text: 'Search streams' }), input,
      total, prev, next),
    el('div', { class: 'table-wrap' }, table));

  async function load() {
    const mine = ++generation;
    if (controller) controller.abort();
    controller = new AbortController();
    const { signal } = controller;
    // The page's sparklines come in the same answer (`recent`): one request a keystroke.
    const page = await get(`streams?q=${enc(q)}&offset=${offset}&limit=${PAGE}&recent=120`, { signal });
    if (mine !== generation) return;
    const rows = page.streams.map((s) => {
      const canvas = el('canvas', { class: 'spark', role: 'img', 'aria-label': 'recent samples of ' + s.id });
      const last = el('td', { class: 'last-event' });
      const tr = el('tr', { 'data-stream': s.id },
        el('td', {}, el('a', { href: '#/streams/' + enc(s.id), text: s.id })),
        el('td', { class: 'num', text: s.dims }),
        el('td', { class: 'num hide-narrow', text: fmt(s.rate_hz) }),
        el('td', { class: 'num hide-narrow', text: fmt(s.samples) }),
        el('td', { class: 'num hide-narrow', text: fmt(s.backlog) }),
        el('td', { class: 'num hide-narrow', text: s.patterns }),
        el('td', {}, canvas), last);
      return { s, tr, canvas, last };
    });
    tbody.replaceChildren(...rows.map((r) => r.tr));
    if (!rows.length) tbody.append(el('tr', {}, el('td', { colspan: 8, class: 'muted', text: 'no stream matches' })));
    table.dataset.q = q;
    total.textContent = `${page.total.toLocaleString('en')} streams` +
      (page.total ? `, ${offset + 1}–${offset + rows.length}` : '');
    prev.disabled = offset === 0;
    next.disabled = page.next_offset === null;
    // The slower part after the table is shown: the last events.
    lastEventByStream().then((m) => {
      if (mine !== generation) return;
      for (const r of rows) {
        const e = m.get(r.s.id);
        r.last.replaceChildren(e ? el('a', { href: '#/events/' + enc(e.id), text: `${e.pattern} ${when(e.end_ns)}` })
          : el('span', { class: 'muted', text: '–' }));
      }
    }).catch(showError);
    for (const r of rows) if (r.s.recent && r.s.recent.length) sparkline(r.canvas, r.s.recent);
  }
  input.addEventListener('input', () => {
    q = input.value;
    offset = 0;
    history.replaceState(null, '', '#/streams' + (q ? '?q=' + enc(q) : ''));
    load().catch(showError);
  });
  prev.addEventListener('click', () => { offset = Math.max(0, offset - PAGE); load().catch(showError); });
  next.addEventListener('click', () => { offset += PAGE; load().catch(showError); });
  await load();
  input.focus();
}

// ---- one stream: live chart, events as spans, select -> learn -> deploy -------------------
async function streamPage(id) {
  document.title = id + ' · warpwatch';
  const div = el('div', { class: 'chart', id: 'stream-chart', role: 'img',
                          'aria-label': 'recent samples of ' + id + ', events shaded' });
  const from = el('input', { id: 'sel-from', type: 'number', step: 1, inputmode: 'numeric' });
  const to = el('input', { id: 'sel-to', type: 'number', step: 1, inputmode: 'numeric' });
  const examples = el('ul', { class: 'examples', id: 'examples' });
  const learnOut = el('div', { id: 'learn-result' });
  const addBtn = el('button', { type: 'button', id: 'add-example', class: 'secondary', text: 'Add selection as example' });
  const learnBtn = el('button', { type: 'button', id: 'learn', text: 'Learn a pattern' });
  main.append(el('h1', { text: 'Stream ' + id }),
    el('p', { class: 'muted', text: 'Live, every 2 s. Events are shaded red; drag across the chart to select a shape (blue), ' +
      'or type its times. Double-click clears the selection.' }),
    div,
    el('div', { class: 'panel' },
      el('h2', { text: 'Make a pattern from a shape' }),
      el('div', { class: 'toolbar' },
        el('label', { for: 'sel-from', text: 'Selection from (ns)' }), from,
        el('label', { for: 'sel-to', text: 'to (ns)' }), to, addBtn),
      el('p', { class: 'muted', text: 'Examples (none: the selection is the one example). ' +
        'Negatives: this stream\'s recent history without them.' }),
      examples, learnBtn, learnOut),
    el('h2', { text: 'Events of this stream' }), el('div', { class: 'table-wrap', id: 'stream-events' }));

  let rows = [], events = [], g = null, chosen = [];
  const selection = () => {
    const a = Number(from.value), b = Number(to.value);
    return from.value && to.value && b > a ? { stream: id, from: a, to: b } : null;
  };
  const underlay = (ctx, area, graph) => {
    const span = (a, b, color) => {
      const x0 = graph.toDomXCoord(Number(a) / 1e6), x1 = graph.toDomXCoord(Number(b) / 1e6);
      ctx.fillStyle = color;
      ctx.fillRect(Math.min(x0, x1), area.y, Math.max(2, Math.abs(x1 - x0)), area.h);
    };
    for (const e of events) span(e.start_ns, e.end_ns, 'rgba(200, 30, 30, 0.22)');
    for (const x of chosen) span(x.from, x.to, 'rgba(30, 95, 191, 0.18)');
    const s = selection();
    if (s) span(s.from, s.to, 'rgba(30, 95, 191, 0.32)');
  };
  let dragStart = null;
  const interaction = {
    mousedown(ev, graph, ctx) {
      dragStart = graph.toDataXCoord(ev.offsetX);
      ctx.isSelecting = true;
    },
    mousemove(ev, graph) {
      if (dragStart === null) return;
      const x = graph.toDataXCoord(ev.offsetX);
      from.value = Math.round(Math.min(dragStart, x) * 1e6);
      to.value = Math.round(Math.max(dragStart, x) * 1e6);
      graph.updateOptions({});
    },
    mouseup() { dragStart = null; },
    dblclick(ev, graph) { from.value = ''; to.value = ''; graph.updateOptions({}); },
  };
  const redraw = () => g && g.updateOptions({});
  from.addEventListener('input', redraw);
  to.addEventListener('input', redraw);
  const showExamples = () => examples.replaceChildren(...chosen.map((x, i) => el('li', {},
    `${when(x.from)} – ${when(x.to)} `,
    el('button', { type: 'button', class: 'secondary', 'aria-label': 'remove example ' + (i + 1), text: 'Remove',
                   onclick: () => { chosen.splice(i, 1); showExamples(); redraw(); } }))));
  addBtn.addEventListener('click', () => {
    const s = selection();
    if (!s) return notice('Select a shape first (from < to).');
    chosen.push(s);
    from.value = ''; to.value = '';
    showExamples(); redraw();
  });
  learnBtn.addEventListener('click', () => learnFlow(id, chosen.length ? chosen : [selection()].filter(Boolean), learnOut)
    .catch(showError));

  const evTable = $('#stream-events');
  const KEEP = 4000;  // samples charted: the newest
  let lastNs = null, dims = 1;
  every(2000, async () => {
    // All the history first, then what came after the last sample charted.
    const h = await get(`streams/${enc(id)}/samples?limit=100000` + (lastNs === null ? '' : `&since=${lastNs}`))
      .catch((e) => {
        if (e.status === 404) return null;
        throw e;
      });
    events = (await get(`events?stream=${enc(id)}&limit=100`)).events;
    if (!h) { div.textContent = 'No samples held for this stream (unknown, or history off).'; return; }
    dims = h.dims;
    // (ns beyond 2^53 lose their last bits in JavaScript: a sample may come again)
    h.times_ns.forEach((t, i) => { if (lastNs === null || t > lastNs) rows.push([nsDate(t), ...h.values[i]]); });
    if (rows.length > KEEP) rows = rows.slice(rows.length - KEEP);
    if (h.times_ns.length) lastNs = h.times_ns[h.times_ns.length - 1];
    if (!rows.length) { div.textContent = 'No samples yet.'; return; }
    const labels = ['time', ...rows[0].slice(1).map((_, d) => dims > 1 ? 'value ' + d : 'value')];
    if (!g) {
      div.textContent = '';
      g = chart(div, rows, { labels, underlayCallback: underlay, interactionModel: interaction });
    } else {
      g.updateOptions({ file: rows });
    }
    div.dataset.samples = rows.length;
    evTable.replaceChildren(eventTable(events));
  });
}

async function learnFlow(stream, examples, out) {
  if (!examples.length) return notice('Select a shape first (from < to), or add examples.');
  out.replaceChildren(el('p', { class: 'muted', text: 'Learning…' }));
  const learnt = (await api('learn', { method: 'POST', body: { examples } })).body;
  let threshold = learnt.threshold;
  const fires = el('p', { id: 'backtest-result', 'aria-live': 'polite' });
  const preview = async () => {
    fires.textContent = 'Backtesting…';
    const bt = (await api('backtest', { method: 'POST', body: { stream, pattern: learnt.pattern, threshold } })).body;
    fires.textContent = `At threshold ${fmt(threshold, 4)} it would have fired ${bt.total} times over the ` +
      `recent history (${fmt(bt.samples)} samples).`;
    fires.dataset.total = bt.total;
  };
  const cols = ['threshold', 'recall', 'precision', 'f1', 'false_alarms', 'false_alarms_per_hour'];
  const table = el('table', { id: 'threshold-table' }, el('thead', {}, el('tr', {},
    el('th', { scope: 'col', text: 'use' }), ...cols.map((c) => el('th', { scope: 'col', class: 'num', text: c.replaceAll('_', ' ') })))),
  el('tbody', {}, ...learnt.table.map((row, i) => el('tr', {},
    el('td', {}, el('input', { type: 'radio', name: 'thr', id: 'thr-' + i, 'aria-label': 'use threshold ' + row.threshold,
      checked: row.threshold === learnt.threshold,
      onchange: () => { threshold = row.threshold; preview().catch(showError); } })),
    ...cols.map((c) => el('td', { class: 'num', text: fmt(row[c], 4) }))))));
  const name = el('input', { id: 'pat-name', required: true, value: stream.replace(/[^A-Za-z0-9_.-]/g, '_') + '-shape' });
  const lib = el('input', { id: 'pat-lib', list: 'pat-libs', required: true });
  const libs = el('datalist', { id: 'pat-libs' });
  get('libraries').then((l) => {
    libs.replaceChildren(...l.libraries.map((x) => el('option', { value: x.name })));
    if (!lib.value && l.libraries.length) lib.value = l.libraries[0].name;
  }).catch(showError);
  const deployed = el('p', { id: 'deploy-result', 'aria-live': 'polite' });
  const deploy = el('button', { type: 'button', id: 'deploy', text: 'Deploy', onclick: async () => {
    try {
      const body = { ...learnt.pattern, threshold };
      const r = await api(`libraries/${enc(lib.value)}/patterns/${enc(name.value)}`, { method: 'PUT', body });
      deployed.className = 'ok';
      deployed.textContent = `Deployed ${lib.value}/${name.value} (ETag ${r.etag}); its next occurrence shows up as an event.`;
    } catch (e) {
      deployed.className = 'bad';
      deployed.textContent = e.message;
    }
  } });
  out.replaceChildren(
    el('p', {}, `Learnt from ${learnt.examples} example(s), ${fmt(learnt.negative_samples)} negative samples: `,
      el('strong', { text: `${learnt.pattern.values.length} samples, threshold ${fmt(learnt.threshold, 4)}` }),
      ` (${learnt.settings ? [learnt.settings.metric, learnt.settings.mode].filter(Boolean).join(', ') : ''})`),
    learnt.why ? el('p', { class: 'muted', text: learnt.why }) : null,
    el('div', { class: 'table-wrap' }, table), fires,
    el('div', { class: 'toolbar' }, el('label', { for: 'pat-name', text: 'Pattern name' }), name,
      el('label', { for: 'pat-lib', text: 'Library' }), lib, libs, deploy),
    deployed);
  await preview();
}

// ---- events -------------------------------------------------------------------------------
function eventTable(events) {
  return el('table', { class: 'events' }, el('thead', {}, el('tr', {},
    ...['end', 'stream', 'library / pattern', 'distance', 'threshold'].map((h, i) =>
      el('th', { scope: 'col', class: i > 2 ? 'num' : null, text: h })))),
  el('tbody', {}, ...(events.length ? events.map((e) => el('tr', { 'data-event': e.id },
    el('td', {}, el('a', { href: '#/events/' + enc(e.id), text: when(e.end_ns) })),
    el('td', { text: e.stream }), el('td', { text: `${e.library} / ${e.pattern}` }),
    el('td', { class: 'num', text: fmt(e.distance, 4) }), el('td', { class: 'num', text: fmt(e.threshold, 4) })))
    : [el('tr', {}, el('td', { colspan: 5, class: 'muted', text: 'no events' }))])));
}

async function eventsPage(_, query) {
  document.title = 'Events · warpwatch';
  const fields = ['stream', 'pattern', 'library'];
  const form = el('form', { class: 'toolbar', id: 'event-filter' },
    ...fields.flatMap((f) => [el('label', { for: 'f-' + f, text: f }),
      el('input', { id: 'f-' + f, name: f, value: query.get(f) || '', autocomplete: 'off' })]),
    el('button', { type: 'submit', text: 'Filter' }));
  const list = el('div', { class: 'table-wrap', id: 'events' });
  main.append(el('h1', { text: 'Events' }), form, list,
    el('p', { class: 'muted', text: 'The events the daemon keeps, newest first; every 5 s.' }));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams();
    for (const f of fields) if ($('#f-' + f).value) p.set(f, $('#f-' + f).value);
    location.hash = '#/events' + (p.toString() ? '?' + p : '');
  });
  every(5000, async () => {
    const p = new URLSearchParams({ limit: 200 });
    for (const f of fields) if (query.get(f)) p.set(f, query.get(f));
    list.replaceChildren(eventTable((await get('events?' + p)).events));
  });
}

async function eventPage(id) {
  document.title = 'Event ' + id + ' · warpwatch';
  const e = await get('events/' + enc(id));
  const x = e.explanation || {};
  const seg = e.segment;
  const patternId = typeof e.pattern === 'object' ? e.pattern.id : e.pattern;  // the detail holds it whole
  main.append(el('h1', { text: `Event ${e.id}: ${e.stream} / ${e.library} / ${patternId}` }));
  const ratio = e.threshold > 0 ? e.distance / e.threshold : 0;
  main.append(el('div', { class: 'panel' },
    el('p', {}, `${when(e.start_ns)} – ${when(e.end_ns)}, samples ${e.start_index}–${e.end_index}, `,
      `${e.metric}, ${e.mode}, rule ${e.rule}`),
    el('p', {}, el('label', { for: 'dist-meter', text: `distance ${fmt(e.distance, 5)} against threshold ${fmt(e.threshold, 5)}` }),
      ' ', el('meter', { id: 'dist-meter', min: 0, max: 1, value: Math.min(1, ratio), high: 0.999, optimum: 0 }),
      ` ${fmt(ratio * 100, 3)} % of the threshold`)));
  const overlay = el('div', { class: 'chart', id: 'overlay-chart', role: 'img',
    'aria-label': 'the segment with the pattern overlaid along the alignment path' });
  const costs = el('div', { class: 'chart small', id: 'cost-chart', role: 'img', 'aria-label': 'cost of each step of the path' });
  main.append(el('h2', { text: 'Segment and pattern along the alignment path' }), overlay);
  const steps = Array.isArray(x.steps) ? x.steps : [];
  if (seg && seg.times_ns.length && steps.length) {
    const dims = seg.dims, first = seg.first_index;
    const aligned = new Map();  // stream index -> pattern rows mapped there
    for (const [i, j] of steps) {
      const row = e.pattern.values[j - 1];  // rows are 1-based; 0 is erp's gap: no row
      if (!row) continue;
      if (!aligned.has(i)) aligned.set(i, []);
      aligned.get(i).push(row);
    }
    const data = seg.times_ns.map((t, k) => {
      const rowsHere = aligned.get(first + k);
      const pat = [];
      for (let d = 0; d < dims; ++d)
        pat.push(rowsHere ? rowsHere.reduce((a, r) => a + r[d], 0) / rowsHere.length : null);
      return [nsDate(t), ...seg.values[k], ...pat];
    });
    const labels = ['time'];
    for (let d = 0; d < dims; ++d) labels.push(dims > 1 ? 'segment ' + d : 'segment');
    for (let d = 0; d < dims; ++d) labels.push(dims > 1 ? 'pattern ' + d + ' (aligned)' : 'pattern (aligned)');
    const t0 = Number(e.start_ns) / 1e6, t1 = Number(e.end_ns) / 1e6;
    chart(overlay, data, { labels, connectSeparatedPoints: true, drawPoints: true, pointSize: 2,
      underlayCallback: (ctx, area, g) => {
        const a = g.toDomXCoord(t0), b = g.toDomXCoord(t1);
        ctx.fillStyle = 'rgba(200, 30, 30, 0.12)';
        ctx.fillRect(a, area.y, Math.max(2, b - a), area.h);
      } });
    overlay.dataset.drawn = 'true';
    main.append(el('h2', { text: 'Cost of each step' }), costs);
    chart(costs, steps.map(([i, j, c], k) => [k, c]), { labels: ['step', 'cost'], stepPlot: true, fillGraph: true });
    main.append(el('details', {}, el('summary', { text: `The ${steps.length} steps: [stream index, pattern row, cost]` }),
      el('div', { class: 'table-wrap' }, el('table', { id: 'steps' },
        el('thead', {}, el('tr', {}, ...['stream index', 'pattern row', 'cost'].map((h) => el('th', { scope: 'col', class: 'num', text: h })))),
        el('tbody', {}, ...steps.map((s) => el('tr', {}, ...s.map((v) => el('td', { class: 'num', text: fmt(v, 4) })))))))));
  } else {
    overlay.textContent = x.note || 'No alignment path for this event.';
  }
  if (x.note) main.append(el('p', { class: 'muted', text: x.note }));
  main.append(el('h2', { text: 'Plot (explain module)' }));
  const img = el('img', { class: 'plot', id: 'event-plot', alt: `plot of event ${e.id}: segment, pattern and path` });
  main.append(img);
  api(`events/${enc(id)}/plot.svg`, { raw: true }).then(async (r) => {
    const url = URL.createObjectURL(await r.blob());
    img.src = url;
    pageCleanup.push(() => URL.revokeObjectURL(url));
  }).catch(showError);
  main.append(el('h2', { text: 'JSON' }),
    el('p', { class: 'muted' }, 'GET ', el('code', { text: 'api/v1/events/' + e.id }), ' (with the token) answers it:'),
    el('pre', { class: 'json', id: 'event-json', tabindex: 0, text: JSON.stringify(e, null, 2) }));
}

// ---- patterns: libraries, thresholds with a backtest preview, delete ----------------------
async function patternsPage() {
  document.title = 'Patterns · warpwatch';
  main.append(el('h1', { text: 'Patterns' }));
  const box = el('div', { id: 'libraries' });
  main.append(box);
  const load = async () => {
    const l = await get('libraries');
    box.replaceChildren(...l.libraries.map((lib) => el('section', { class: 'panel' },
      el('h2', { text: `Library ${lib.name}` + (lib.exclusive ? ' (exclusive)' : '') }),
      el('div', { class: 'table-wrap' }, el('table', {},
        el('thead', {}, el('tr', {}, ...['pattern', 'length', 'metric', 'mode', 'origin', 'threshold', ''].map(
          (h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, ...lib.patterns.map((p) => patternRow(lib.name, p, load))))))),
    el('p', { class: 'muted', text: l.persisted ? 'Changes are kept in ' + l.overlay : 'Changes are not kept (no state.dir).' }));
  };
  await load();
}

function patternRow(lib, p, reload) {
  const key = `${lib}-${p.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const thr = el('input', { id: 'thr-' + key, type: 'number', step: 'any', value: p.threshold, 'aria-label': `threshold of ${lib}/${p.id}` });
  const out = el('span', { class: 'muted', 'aria-live': 'polite' });
  const preview = el('button', { type: 'button', class: 'secondary', text: 'Preview', onclick: async () => {
    out.textContent = 'Backtesting…';
    try {
      const bt = (await api('backtest', { method: 'POST', body: { library: lib, id: p.id, threshold: Number(thr.value) } })).body;
      out.textContent = `would have fired ${bt.total} times over the recent history`;
    } catch (e) { out.textContent = e.message; }
  } });
  const save = el('button', { type: 'button', text: 'Save', onclick: async () => {
    try {
      await api(`libraries/${enc(lib)}/patterns/${enc(p.id)}/threshold`, { method: 'PUT',
        body: { threshold: Number(thr.value) }, headers: { 'If-Match': p.etag } });
      await reload();
      notice(`Threshold of ${lib}/${p.id} set to ${thr.value}.`, 'info');
    } catch (e) { out.textContent = e.message; }
  } });
  const del = el('button', { type: 'button', class: 'danger', text: 'Delete', onclick: async () => {
    if (!confirm(`Delete ${lib}/${p.id}?`)) return;
    try {
      await api(`libraries/${enc(lib)}/patterns/${enc(p.id)}`, { method: 'DELETE', headers: { 'If-Match': p.etag } });
      await reload();
    } catch (e) { out.textContent = e.message; }
  } });
  return el('tr', { 'data-pattern': `${lib}/${p.id}` }, el('td', { text: p.id }), el('td', { class: 'num', text: p.length }),
    el('td', { text: p.metric }), el('td', { text: p.mode }), el('td', { text: p.origin }),
    el('td', {}, thr), el('td', {}, preview, ' ', save, ' ', del, ' ', out));
}

// ---- start --------------------------------------------------------------------------------
fetch('console.json').then((r) => r.json()).then((c) => {
  tokensRequired = c.tokens_required;
  $('#forget-token').hidden = !sessionStorage.getItem(TOKEN_KEY);
}).catch(() => {}).finally(render);
