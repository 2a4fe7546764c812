// Orrery dashboard: live traffic, stubs, environments, recording and the traffic log, over the admin API.
// Plain JavaScript, no framework and no build step. Everything that comes from traffic is put in the page as text
// (textContent), never as markup.
'use strict';

(() => {
  const ADMIN = '/__admin';
  // Given once as /__admin/ui?token=…, the daemon puts the token in the page for its calls (see the README).
  const tokenMeta = document.querySelector('meta[name="orrery-admin-token"]');
  const token = tokenMeta ? tokenMeta.content : '';
  const hostMapMeta = document.querySelector('meta[name="orrery-host-map"]');
  const hasHostMap = !hostMapMeta || hostMapMeta.content !== 'absent';
  const MAX_ROWS = 1000;

  // ---------------------------------------------------------------- helpers

  const $ = (selector) => document.querySelector(selector);

  /** An element with attributes (`text`, `class`, `dataset`, `on…` handlers) and children (nodes or text). */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === 'class') node.className = value;
      else if (name === 'text') node.textContent = value;
      else if (name === 'dataset') Object.assign(node.dataset, value);
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  class AdminError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  /** One admin API call: JSON in and out, the token in a header when the page has one. */
  async function api(method, path, body) {
    const headers = { Accept: 'application/json' };
    if (token) headers['X-Orrery-Admin-Token'] = token;
    const init = { method, headers, cache: 'no-store' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(ADMIN + path, init);
    } catch (error) {
      throw new AdminError(0, 'The daemon did not answer (' + error.message + ').');
    }
    let json = null;
    try {
      json = await response.json();
    } catch (error) {
      json = null;
    }
    if (!response.ok) {
      const message = json && json.message ? json.message : response.status + ' ' + response.statusText;
      throw new AdminError(response.status, message);
    }
    return json;
  }

  let toastTimer = 0;
  function toast(message) {
    const node = $('#toast');
    node.textContent = message;
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { node.hidden = true; }, 4000);
  }

  /** Runs an action from a button or form, showing its failure instead of leaving it to the console. */
  function guarded(action, errorNode) {
    return async (event) => {
      if (event && event.type === 'submit') event.preventDefault();
      if (errorNode) errorNode.hidden = true;
      try {
        await action(event);
      } catch (error) {
        const message = error instanceof AdminError ? error.message : String(error);
        if (errorNode) {
          errorNode.textContent = message;
          errorNode.hidden = false;
        } else {
          toast(message);
        }
      }
    };
  }

  const two = (n) => String(n).padStart(2, '0');

  function clockTime(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso || '';
    return two(date.getHours()) + ':' + two(date.getMinutes()) + ':' + two(date.getSeconds()) + '.'
      + String(date.getMilliseconds()).padStart(3, '0');
  }

  function duration(ms) {
    if (typeof ms !== 'number') return '';
    if (ms < 1) return ms.toFixed(2) + ' ms';
    if (ms < 10) return ms.toFixed(1) + ' ms';
    if (ms < 1000) return Math.round(ms) + ' ms';
    return (ms / 1000).toFixed(2) + ' s';
  }

  function bytes(count) {
    if (count < 1024) return count + (count === 1 ? ' byte' : ' bytes');
    if (count < 1024 * 1024) return (count / 1024).toFixed(1) + ' KiB';
    return (count / 1024 / 1024).toFixed(1) + ' MiB';
  }

  function headerValue(headers, name) {
    const wanted = name.toLowerCase();
    const found = (headers || []).find((header) => String(header.name).toLowerCase() === wanted);
    return found ? found.value : '';
  }

  /** Text with each `[REDACTED]` marked, so that a redacted secret is seen as one. */
  function withRedactions(text) {
    const parts = String(text).split('[REDACTED]');
    const nodes = [];
    parts.forEach((part, index) => {
      if (index > 0) nodes.push(el('span', { class: 'redacted', text: '[REDACTED]' }));
      if (part) nodes.push(part);
    });
    return nodes;
  }

  function statusClass(status) {
    return 'status status-' + Math.max(0, Math.min(5, Math.floor((status || 0) / 100)));
  }

  // ---------------------------------------------------------------- views

  const VIEWS = ['traffic', 'stubs', 'environments', 'recording'];

  function currentView() {
    const name = location.hash.slice(1);
    return VIEWS.includes(name) ? name : 'traffic';
  }

  function showView() {
    const name = currentView();
    for (const view of VIEWS) {
      $('#view-' + view).hidden = view !== name;
      const link = document.querySelector('a[data-view="' + view + '"]');
      if (view === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    if (name === 'stubs') guarded(loadStubs)();
    if (name === 'environments') guarded(loadEnvironments)();
    if (name === 'recording') guarded(loadRecordingState)();
  }

  // ---------------------------------------------------------------- traffic

  const traffic = {
    entries: [], // as shown, newest first
    offset: 0, // where entries[0] stands in the journal, newest first
    total: 0,
    pageSize: 25,
    isPaused: false,
    missed: 0, // exchanges journaled since the view last showed the newest
    expanded: new Set(),
    rows: new Map(), // id -> <li>
    sessions: new Set(),
    loading: null, // exchanges that arrive while a page loads
    wasDisconnected: false,
  };

  const isShowingNewest = () => traffic.offset === 0 && !traffic.isPaused;

  function answerKind(entry) {
    if (entry.stub) return 'stub';
    if (entry.proxied) return 'proxied';
    return 'unmatched';
  }

  function sessionOf(entry) {
    const session = entry.session;
    if (!session) return '';
    if (typeof session === 'string') return session;
    return String(session.name || session.id || '');
  }

  function answerText(entry) {
    if (entry.stub) return entry.stub.name || entry.stub.id;
    if (entry.proxied) {
      return '→ ' + entry.proxied.environment + ' ' + entry.proxied.upstream + (entry.proxied.error ? ' (failed)' : '');
    }
    if (entry.rejected) return 'refused';
    return 'no stub matched';
  }

  function filters() {
    return {
      method: $('#filter-method').value,
      status: $('#filter-status').value,
      path: $('#filter-path').value.trim().toLowerCase(),
      answer: $('#filter-answer').value,
      stub: $('#filter-stub').value.trim().toLowerCase(),
      session: $('#filter-session').value,
    };
  }

  function isFiltering(f) {
    return Boolean(f.method || f.status || f.path || f.answer || f.stub || f.session);
  }

  function matches(entry, f) {
    const request = entry.request || {};
    if (f.method && request.method !== f.method) return false;
    if (f.status && String(Math.floor((entry.response.status || 0) / 100)) !== f.status) return false;
    const where = String(request.url || request.path || '') + ' ' + (request.graphqlOperation || '');
    if (f.path && !where.toLowerCase().includes(f.path)) return false;
    if (f.answer && answerKind(entry) !== f.answer) return false;
    if (f.stub) {
      if (!entry.stub) return false;
      const text = [entry.stub.name, entry.stub.id, entry.stub.source].join(' ').toLowerCase();
      if (!text.includes(f.stub)) return false;
    }
    if (f.session && sessionOf(entry) !== f.session) return false;
    return true;
  }

  function exchangeRow(entry) {
    const id = String(entry.id);
    const detailsId = 'exchange-' + id;
    const request = entry.request || {};
    const response = entry.response || {};
    const url = request.url || request.path || '';
    const session = sessionOf(entry);
    const summary = el('button', {
      type: 'button', class: 'summary', 'aria-expanded': 'false', 'aria-controls': detailsId,
    },
    el('span', { class: 'chevron', 'aria-hidden': 'true' }),
    el('span', { class: 'time', title: entry.time, text: clockTime(entry.time) }),
    el('span', { class: 'method', text: request.method }),
    el('span', { class: 'status-cell' }, el('span', { class: statusClass(response.status), text: response.status || 'fault' })),
    el('span', { class: 'path', title: url, text: url },
      request.graphqlOperation ? el('span', { class: 'operation', text: ' ' + request.graphqlOperation }) : null),
    el('span', { class: 'answer', text: (session ? '[' + session + '] ' : '') + answerText(entry) }),
    el('span', { class: 'duration', text: duration(entry.durationMs) }));
    const details = el('div', { id: detailsId, class: 'details', hidden: true });
    const row = el('li', { class: 'exchange', dataset: { id } }, summary, details);
    summary.addEventListener('click', () => setExpanded(row, entry, !traffic.expanded.has(id)));
    if (traffic.expanded.has(id)) setExpanded(row, entry, true);
    return row;
  }

  function setExpanded(row, entry, isExpanded) {
    const id = String(entry.id);
    const summary = row.querySelector('.summary');
    const details = row.querySelector('.details');
    if (isExpanded) {
      traffic.expanded.add(id);
      if (!details.firstChild) details.append(exchangeDetails(entry));
    } else {
      traffic.expanded.delete(id);
    }
    summary.setAttribute('aria-expanded', String(isExpanded));
    details.hidden = !isExpanded;
  }

  function facts(pairs) {
    const list = el('dl', { class: 'facts' });
    for (const [name, value] of pairs) {
      if (value === null || value === undefined || value === '') continue;
      list.append(el('dt', { text: name }), el('dd', {}, value instanceof Node ? value : withRedactions(value)));
    }
    return list;
  }

  function headersTable(headers, caption) {
    if (!headers || headers.length === 0) return el('p', { class: 'body-note', text: 'No headers.' });
    return el('table', { class: 'headers' },
      el('caption', { class: 'visually-hidden', text: caption }),
      el('tbody', {}, headers.map((header) => el('tr', {},
        el('th', { scope: 'row', text: header.name }),
        el('td', {}, withRedactions(header.value))))));
  }

  /** A body: text as it is, JSON pretty-printed, anything else as its size and type. */
  function bodyBlock(part) {
    const size = part.bodySize || 0;
    const type = headerValue(part.headers, 'Content-Type');
    const nodes = [];
    if (typeof part.bodyBase64 === 'string') {
      nodes.push(el('p', { class: 'body-note', text: 'Binary body: ' + bytes(size) + ', ' + (type || 'no Content-Type') + '.' }));
    } else if (size === 0 && !part.body) {
      nodes.push(el('p', { class: 'body-note', text: 'No body.' }));
    } else {
      let text = part.body || '';
      let isJSON = false;
      if (/json/i.test(type) || /^\s*[[{]/.test(text)) {
        try {
          text = JSON.stringify(JSON.parse(text), null, 2);
          isJSON = true;
        } catch (error) {
          isJSON = false;
        }
      }
      nodes.push(el('p', { class: 'body-note', text: bytes(size) + (type ? ', ' + type : '') + (isJSON ? ', pretty-printed' : '') }));
      nodes.push(el('pre', { class: 'body', tabindex: '0' }, withRedactions(text)));
    }
    if (part.bodyTruncated) {
      nodes.push(el('p', { class: 'body-note', text: 'Only the start of the body is kept (--journal-body-limit).' }));
    }
    return nodes;
  }

  function answeredBy(entry) {
    if (entry.stub) {
      return [el('h3', { text: 'Matched stub' }), facts([
        ['Name', entry.stub.name || '(unnamed)'], ['Id', entry.stub.id], ['Source', entry.stub.source],
      ])];
    }
    if (entry.proxied) {
      return [el('h3', { text: 'Forwarded upstream' }), facts([
        ['Environment', entry.proxied.environment], ['Upstream', entry.proxied.upstream], ['Error', entry.proxied.error],
      ])];
    }
    if (entry.rejected) return [el('h3', { text: 'Refused' }), facts([['Reason', entry.rejected]])];
    const closest = entry.closestStubs || [];
    return [
      el('h3', { text: 'No stub matched' }),
      closest.length === 0
        ? el('p', { class: 'body-note', text: 'No stub came close.' })
        : el('ul', { class: 'closest' }, closest.map((stub) => el('li', {},
          el('strong', { text: stub.name || stub.id }), ' ', el('span', { class: 'source', text: stub.source }),
          (stub.differences || []).map((difference) => el('div', { class: 'body-note' },
            difference.field + (difference.name ? ' ' + difference.name : '') + ': expected '
              + difference.expected + (difference.actual !== null && difference.actual !== undefined
              ? ', got ' + difference.actual : ', missing')))))),
    ];
  }

  function exchangeDetails(entry) {
    const request = entry.request || {};
    const response = entry.response || {};
    const session = sessionOf(entry);
    return el('div', { class: 'columns' },
      el('section', { 'aria-label': 'Request' },
        el('h3', { text: 'Request' }),
        facts([
          ['Method', request.method], ['URL', request.url], ['GraphQL operation', request.graphqlOperation],
          ['Host', request.host], ['Client', request.clientAddress],
          ['Session', session], ['Time', entry.time], ['Duration', duration(entry.durationMs)],
        ]),
        el('h4', { text: 'Headers' }),
        headersTable(request.headers, 'Request headers'),
        el('h4', { text: 'Body' }),
        bodyBlock(request)),
      el('section', { 'aria-label': 'Response' },
        el('h3', { text: 'Response' }),
        facts([['Status', el('span', { class: statusClass(response.status), text: response.status || 'fault' })]]),
        el('h4', { text: 'Headers' }),
        headersTable(response.headers, 'Response headers'),
        el('h4', { text: 'Body' }),
        bodyBlock(response),
        answeredBy(entry)));
  }

  function rowFor(entry) {
    const id = String(entry.id);
    let row = traffic.rows.get(id);
    if (!row) {
      row = exchangeRow(entry);
      traffic.rows.set(id, row);
    }
    return row;
  }

  /** Puts the rows in order without moving the ones already there, so focus and expansion stay where they are. */
  function renderTraffic(newIds) {
    const f = filters();
    const list = $('#exchanges');
    const shown = traffic.entries.filter((entry) => matches(entry, f));
    const wanted = new Set(shown.map((entry) => String(entry.id)));
    for (const [id, row] of traffic.rows) {
      if (!wanted.has(id)) {
        row.remove();
        if (!traffic.entries.some((entry) => String(entry.id) === id)) traffic.rows.delete(id);
      }
    }
    let cursor = list.firstChild;
    for (const entry of shown) {
      const row = rowFor(entry);
      if (newIds && newIds.has(String(entry.id))) row.classList.add('is-new');
      if (row === cursor) {
        cursor = cursor.nextSibling;
      } else {
        list.insertBefore(row, cursor);
      }
    }
    while (cursor) {
      const next = cursor.nextSibling;
      cursor.remove();
      cursor = next;
    }

    for (const entry of traffic.entries) {
      const session = sessionOf(entry);
      if (session && !traffic.sessions.has(session)) {
        traffic.sessions.add(session);
        $('#filter-session').append(el('option', { value: session, text: session }));
      }
    }
    $('#filter-session-label').hidden = traffic.sessions.size === 0;

    const first = traffic.offset + 1;
    const last = traffic.offset + traffic.entries.length;
    $('#page-range').textContent = traffic.entries.length === 0
      ? (traffic.total === 0 ? 'No exchanges' : 'Nothing here (' + traffic.total + ' in the journal)')
      : 'Exchanges ' + first + '–' + last + ' of ' + traffic.total;
    $('#traffic-summary').textContent = isFiltering(f)
      ? shown.length + ' of the ' + traffic.entries.length + ' exchanges loaded match the filters.'
      : '';
    $('#traffic-empty').hidden = traffic.entries.length > 0 || traffic.total > 0;
    $('#page-newer').disabled = traffic.offset === 0 && traffic.missed === 0;
    const hasOlder = last < traffic.total;
    $('#page-older').disabled = !hasOlder;
    $('#load-older').disabled = !hasOlder;
    const notice = $('#new-notice');
    notice.hidden = traffic.missed === 0;
    $('#show-newest').textContent = traffic.missed === 1
      ? '1 new exchange: show the newest'
      : traffic.missed + ' new exchanges: show the newest';
    updateStreamBadge();
  }

  async function fetchPage(offset, limit) {
    return api('GET', '/requests?limit=' + limit + '&offset=' + offset);
  }

  /** The pager: the page of exchanges that starts at `offset`, in place of the one shown. */
  async function loadPage(offset) {
    const arrived = [];
    traffic.loading = arrived;
    let page;
    try {
      page = await fetchPage(offset, traffic.pageSize);
    } finally {
      traffic.loading = null;
    }
    let entries = page.requests;
    let total = page.total;
    if (offset === 0) {
      // Exchanges the stream brought while the page was on its way, newer than the page's newest.
      const known = new Set(entries.map((entry) => String(entry.id)));
      const newer = arrived.filter((entry) => !known.has(String(entry.id))).reverse();
      entries = newer.concat(entries);
      total += newer.length;
      traffic.missed = 0;
    }
    traffic.entries = entries;
    traffic.offset = offset;
    traffic.total = total;
    renderTraffic();
  }

  /** The loader: the next older page, added below the exchanges shown. */
  async function loadOlder() {
    const page = await fetchPage(traffic.offset + traffic.entries.length, traffic.pageSize);
    const known = new Set(traffic.entries.map((entry) => String(entry.id)));
    traffic.entries = traffic.entries.concat(page.requests.filter((entry) => !known.has(String(entry.id))));
    traffic.total = page.total;
    renderTraffic();
  }

  function onExchange(entry) {
    if (traffic.loading) {
      traffic.loading.push(entry);
      return;
    }
    if (traffic.entries.some((shown) => String(shown.id) === String(entry.id))) return;
    traffic.total += 1;
    if (isShowingNewest()) {
      const index = traffic.entries.findIndex((shown) => Number(shown.id) < Number(entry.id));
      traffic.entries.splice(index === -1 ? traffic.entries.length : index, 0, entry);
      if (traffic.entries.length > MAX_ROWS) traffic.entries.length = MAX_ROWS;
      renderTraffic(new Set([String(entry.id)]));
    } else {
      // What is shown moved one place further from the newest.
      traffic.offset += 1;
      traffic.missed += 1;
      renderTraffic();
    }
  }

  function onCleared() {
    traffic.entries = [];
    traffic.offset = 0;
    traffic.total = 0;
    traffic.missed = 0;
    traffic.expanded.clear();
    renderTraffic();
  }

  let streamState = 'connecting';

  function updateStreamBadge() {
    const badge = $('#stream-state');
    badge.classList.remove('is-live', 'is-paused', 'is-down');
    if (streamState === 'down') {
      badge.textContent = 'Reconnecting…';
      badge.classList.add('is-down');
    } else if (streamState === 'connecting') {
      badge.textContent = 'Connecting…';
    } else if (!isShowingNewest()) {
      badge.textContent = traffic.isPaused ? 'Paused' : 'Live (older page shown)';
      badge.classList.add('is-paused');
    } else {
      badge.textContent = 'Live';
      badge.classList.add('is-live');
    }
  }

  function connectStream() {
    const source = new EventSource(ADMIN + '/requests/stream');
    source.addEventListener('open', () => {
      streamState = 'live';
      if (traffic.wasDisconnected) {
        // Exchanges may have come and gone while the stream was down.
        traffic.wasDisconnected = false;
        if (isShowingNewest()) guarded(() => loadPage(0))();
      }
      updateStreamBadge();
    });
    source.addEventListener('error', () => {
      streamState = 'down';
      traffic.wasDisconnected = true;
      updateStreamBadge();
    });
    source.addEventListener('exchange', (event) => {
      let entry;
      try {
        entry = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      onExchange(entry);
    });
    source.addEventListener('cleared', onCleared);
  }

  function setUpTraffic() {
    $('#live-toggle').addEventListener('click', guarded(async () => {
      traffic.isPaused = !traffic.isPaused;
      $('#live-toggle').setAttribute('aria-pressed', String(traffic.isPaused));
      if (!traffic.isPaused && traffic.offset > 0 && traffic.offset === traffic.missed) {
        // Paused on the newest page: catch up with what came meanwhile.
        await loadPage(0);
      }
      renderTraffic();
    }));
    $('#clear-journal').addEventListener('click', guarded(async () => {
      const answer = await api('DELETE', '/requests');
      onCleared();
      toast('Journal cleared (' + answer.cleared + ' exchanges).');
    }));
    $('#show-newest').addEventListener('click', guarded(() => loadPage(0)));
    $('#page-newer').addEventListener('click', guarded(() => loadPage(Math.max(0, traffic.offset - traffic.pageSize))));
    $('#page-older').addEventListener('click', guarded(() => loadPage(traffic.offset + traffic.pageSize)));
    $('#load-older').addEventListener('click', guarded(loadOlder));
    $('#page-size').addEventListener('change', guarded(() => {
      traffic.pageSize = Number($('#page-size').value) || 25;
      return loadPage(traffic.offset);
    }));
    const form = $('#filters');
    form.addEventListener('submit', (event) => event.preventDefault());
    form.addEventListener('input', () => renderTraffic());
    form.addEventListener('change', () => renderTraffic());
  }

  // ---------------------------------------------------------------- stubs

  // The route as requests reach it: a file's `base` path goes in front of the stub's own path or url.
  function stubRoute(definition) {
    const request = (definition && definition.request) || {};
    const base = (definition && definition.base) || {};
    const method = request.method || base.method || 'ANY';
    const prefix = typeof base.path === 'string' ? '/' + base.path.replace(/^\/+|\/+$/g, '') : '';
    const own = request.url || request.path;
    const where = (own !== undefined ? (prefix === '/' ? '' : prefix) + own : null)
      || (request.urlPattern && 'urlPattern ' + request.urlPattern)
      || (request.pathPattern && 'pathPattern ' + request.pathPattern) || (prefix ? prefix + '/…' : '(any path)');
    const host = request.host || base.host;
    return method + ' ' + where + (host ? '  (host ' + host + ')' : '');
  }

  async function loadStubs() {
    const data = await api('GET', '/stubs');
    const stubs = data.stubs || [];
    $('#stubs-summary').textContent = stubs.length === 1 ? '1 stub.' : stubs.length + ' stubs.';
    $('#stub-list').replaceChildren(...stubs.map((stub) => el('li', { class: 'card stub', dataset: { id: stub.id } },
      el('div', { class: 'stub-head' },
        el('span', { class: 'name', text: stub.name || stub.id }),
        stub.priority !== null && stub.priority !== undefined ? el('span', { class: 'badge', text: 'priority ' + stub.priority }) : null),
      el('div', { class: 'stub-route', text: stubRoute(stub.stub) }),
      el('div', { class: 'source', text: stub.source + '  ·  id ' + stub.id }),
      el('details', {},
        el('summary', { text: 'Definition' }),
        el('pre', { class: 'body', tabindex: '0', text: JSON.stringify(stub.stub, null, 2) })))));
    updateStubNames(stubs);
  }

  function updateStubNames(stubs) {
    const names = [...new Set(stubs.map((stub) => stub.name).filter(Boolean))].sort();
    $('#stub-names').replaceChildren(...names.map((name) => el('option', { value: name })));
  }

  // ---------------------------------------------------------------- environments (SquidKit's switcher)

  async function loadEnvironments(message) {
    if (!hasHostMap) {
      $('#environment-list').replaceChildren(el('p', { class: 'empty', text: 'There is no host map (config/hosts.json): Orrery serves stubs only.' }));
      return;
    }
    let data;
    try {
      data = await api('GET', '/environments');
    } catch (error) {
      if (error.status === 404) {
        $('#environment-list').replaceChildren(el('p', { class: 'empty', text: 'There is no host map (config/hosts.json): Orrery serves stubs only.' }));
        return;
      }
      throw error;
    }
    renderEnvironments(data, message);
  }

  function hostText(host) {
    return host.host ? host.protocol + '://' + host.host : 'no host yet';
  }

  function renderEnvironments(data, message) {
    const configurations = data.configurations || [];
    $('#environment-list').replaceChildren(...configurations.map((configuration, index) => configurationForm(configuration, index, message)));
  }

  function configurationForm(configuration, index, message) {
    const marker = (key) => {
      const roles = [];
      if (key === configuration.release_key) roles.push('release');
      if (key === configuration.prerelease_key) roles.push('prerelease');
      return roles.length ? el('span', { class: 'muted', text: ' (' + roles.join(', ') + ')' }) : null;
    };
    const canonical = configuration.canonical_host;
    const hosts = configuration.hosts || [];
    const active = hosts.find((host) => host.key === configuration.active) || { key: configuration.active };
    const user = hosts.find((host) => host.key === 'USER');
    const titleId = 'environment-title-' + index;
    const status = el('p', { class: 'form-ok', role: 'status' });
    const error = el('p', { class: 'form-error', role: 'alert', hidden: true });
    if (message && message.canonical === canonical) status.textContent = message.text;

    const choices = hosts.map((host) => {
      const id = 'environment-' + index + '-' + host.key;
      return el('label', { class: 'choice', for: id },
        el('input', { type: 'radio', name: 'key', value: host.key, id, checked: host.key === configuration.active }),
        el('span', {}, el('strong', { text: host.key }), ' ', el('span', { class: 'host', text: hostText(host) }),
          marker(host.key)));
    });

    const userFields = el('div', { class: 'user-host', hidden: configuration.active !== 'USER' },
      el('label', { class: 'grow' }, 'USER host',
        el('input', {
          name: 'host', autocomplete: 'off', spellcheck: 'false', placeholder: '127.0.0.1:9001',
          value: user && user.host ? user.host : '',
        })),
      el('label', {}, 'Protocol',
        el('select', { name: 'protocol' }, ['http', 'https'].map((name) => el('option', {
          value: name, text: name,
          selected: name === ((user && user.protocol) || configuration.canonical_protocol),
        })))));

    const form = el('form', { class: 'card environment', 'aria-labelledby': titleId, dataset: { canonicalHost: canonical } },
      el('h2', { id: titleId, text: canonical }),
      el('p', { class: 'active-line' }, 'Active: ', el('span', { class: 'active-key', text: configuration.active }),
        ' → ', el('span', { class: 'mono', text: hostText(active) }),
        configuration.default ? el('span', { class: 'muted', text: '  (default configuration)' }) : null),
      el('fieldset', {}, el('legend', { text: 'Environment' }), el('div', { class: 'choices' }, choices), user ? userFields : null),
      el('button', { type: 'submit', text: 'Apply' }),
      status, error);

    form.addEventListener('change', (event) => {
      if (event.target.name === 'key') userFields.hidden = event.target.value !== 'USER';
    });
    form.addEventListener('submit', guarded(async () => {
      status.textContent = '';
      const checked = form.querySelector('input[name="key"]:checked');
      if (!checked) throw new Error('Choose an environment.');
      const body = { key: checked.value };
      if (checked.value === 'USER') {
        body.host = form.querySelector('input[name="host"]').value.trim();
        body.protocol = form.querySelector('select[name="protocol"]').value;
        if (!body.host) throw new Error('Give the USER environment a host, such as 127.0.0.1:9001.');
      }
      const answer = await api('PUT', '/environments/' + encodeURIComponent(canonical), body);
      renderEnvironments(answer, { canonical, text: canonical + ' now uses ' + body.key + '.' });
      const again = [...document.querySelectorAll('form.environment')].find((node) => node.dataset.canonicalHost === canonical);
      if (again) again.querySelector('button[type="submit"]').focus();
    }, error));
    return form;
  }

  // ---------------------------------------------------------------- recording and the traffic log

  const recording = { isOn: false };
  const logging = { isOn: false };

  function renderRecording(state) {
    recording.isOn = Boolean(state.recording);
    $('#recording-badge').hidden = !recording.isOn;
    const folder = $('#recording-folder');
    if (!folder.value && state.folder) folder.value = state.folder;
    if (recording.isOn && state.mode) $('#recording-mode').value = state.mode;
    folder.disabled = recording.isOn;
    $('#recording-mode').disabled = recording.isOn;
    $('#recording-toggle').textContent = recording.isOn ? 'Stop recording' : 'Start recording';
    let text;
    if (recording.isOn) {
      text = 'Recording into ' + state.folder + ' (mode ' + state.mode + '): ' + state.exchangesRecorded + ' exchanges so far.';
    } else if (state.folder) {
      text = 'Off. The last session recorded ' + (state.exchangesRecorded || 0) + ' exchanges into ' + state.folder + '.';
    } else {
      text = 'Off. What the proxy forwards is written as fixture files once it is on.';
    }
    if (state.error) text += ' Stopped by an error: ' + state.error;
    $('#recording-state').textContent = text;
  }

  function renderLogging(state) {
    logging.isOn = Boolean(state.logging);
    $('#logging-badge').hidden = !logging.isOn;
    const file = $('#logging-file');
    if (!file.value && state.file) file.value = state.file;
    if (typeof state.includeHeaders === 'boolean') $('#logging-headers').checked = state.includeHeaders;
    if (typeof state.includeBody === 'boolean') $('#logging-bodies').checked = state.includeBody;
    for (const input of [file, $('#logging-headers'), $('#logging-bodies')]) input.disabled = logging.isOn;
    $('#logging-toggle').textContent = logging.isOn ? 'Stop the traffic log' : 'Start the traffic log';
    let text;
    if (logging.isOn) {
      text = 'Writing every exchange to ' + state.file + ': ' + (state.exchangesWritten || 0) + ' written.';
    } else if (state.file) {
      text = 'Off. Last written to ' + state.file + '.';
    } else {
      text = 'Off. Each exchange is written as one JSON line once it is on.';
    }
    if (state.error) text += ' Stopped by an error: ' + state.error;
    $('#logging-state').textContent = text;
  }

  async function loadRecordingState() {
    const [recordingState, loggingState] = await Promise.all([api('GET', '/recordings'), api('GET', '/logging')]);
    renderRecording(recordingState);
    renderLogging(loggingState);
  }

  function setUpRecording() {
    $('#recording-form').addEventListener('submit', guarded(async () => {
      if (recording.isOn) {
        await api('POST', '/recordings/stop');
      } else {
        const body = { mode: $('#recording-mode').value };
        const folder = $('#recording-folder').value.trim();
        if (folder) body.folder = folder;
        await api('POST', '/recordings/start', body);
      }
      renderRecording(await api('GET', '/recordings'));
    }, $('#recording-error')));
    $('#logging-form').addEventListener('submit', guarded(async () => {
      if (logging.isOn) {
        await api('POST', '/logging/stop');
      } else {
        const body = { includeHeaders: $('#logging-headers').checked, includeBody: $('#logging-bodies').checked };
        const file = $('#logging-file').value.trim();
        if (file) body.file = file;
        await api('POST', '/logging/start', body);
      }
      renderLogging(await api('GET', '/logging'));
    }, $('#logging-error')));
  }

  // ---------------------------------------------------------------- start

  async function start() {
    setUpTraffic();
    setUpRecording();
    $('#stubs-refresh').addEventListener('click', guarded(loadStubs));
    $('#environments-refresh').addEventListener('click', guarded(() => loadEnvironments()));
    window.addEventListener('hashchange', showView);
    showView();
    connectStream();
    await guarded(() => loadPage(0))();
    await guarded(async () => {
      const health = await api('GET', '/health');
      $('#version').textContent = 'v' + health.version;
    })();
    if (currentView() !== 'stubs') await guarded(async () => updateStubNames((await api('GET', '/stubs')).stubs || []))();
    if (currentView() !== 'recording') await guarded(loadRecordingState)();
    // The badges follow recording and logging started elsewhere (the API, the command line).
    setInterval(() => {
      if (!document.hidden) guarded(loadRecordingState)();
    }, 15000);
  }

  start();
})();
