// The dashboard's script: plain browser JavaScript, no build step and no dependency. It talks to the
// same HTTP API as any client (the Client-Token header from session storage, instance tokens in the
// path) and follows the account's event stream (GET /events) with fetch, for the header.
// Kept free of backticks and template placeholders: it lives inside this String.raw literal.
export const DASHBOARD_JS = String.raw`'use strict';
(function () {
  var CT_KEY = 'zapgate.clientToken';
  var INST_KEY = 'zapgate.instanceTokens';
  var S = { token: null, instances: [], selected: null, tokens: {}, events: [], media: {}, sends: {},
    abort: null, lastEventId: null, qrTimer: null, qrFor: null, timers: {}, healthTimer: null };

  function $(id) { return document.getElementById(id); }
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === 'text') el.textContent = v;
      else if (k === 'on') Object.keys(v).forEach(function (e) { el.addEventListener(e, v[e]); });
      else el.setAttribute(k, v === true ? '' : String(v));
    });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) el.appendChild(typeof x === 'string' ? document.createTextNode(x) : x); });
      else el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return el;
  }
  function clear(el) { while (el && el.firstChild) el.removeChild(el.firstChild); return el; }
  function time(ms) { return ms ? new Date(ms).toLocaleString() : ''; }
  function toast(msg) {
    var t = $('toast'); t.textContent = msg; t.className = 'toast show';
    clearTimeout(S.timers.toast); S.timers.toast = setTimeout(function () { t.className = 'toast'; }, 4000);
  }
  function later(key, ms, fn) { clearTimeout(S.timers[key]); S.timers[key] = setTimeout(fn, ms); }

  function api(method, path, body, extra) {
    var headers = { 'Client-Token': S.token };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (extra) Object.keys(extra).forEach(function (k) { headers[k] = extra[k]; });
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' })
      .then(function (res) {
        return res.text().then(function (text) {
          var data = null;
          try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
          if (!res.ok) {
            var err = new Error((data && (data.message || data.error)) || ('HTTP ' + res.status));
            err.status = res.status;
            throw err;
          }
          return data;
        });
      });
  }
  function prefix(id) { return '/instances/' + encodeURIComponent(id) + '/token/' + encodeURIComponent(S.tokens[id] || ''); }
  function iapi(method, path, body, extra) { return api(method, prefix(S.selected) + path, body, extra); }
  function fail(err) {
    if (err && err.status === 401 && /Client-Token/.test(err.message)) return signOut('Your Client-Token was refused; sign in again.');
    toast(err && err.message ? err.message : String(err));
  }
  function saveTokens() { sessionStorage.setItem(INST_KEY, JSON.stringify(S.tokens)); }

  // ---- sign in / out ----
  function signIn(token) {
    S.token = token;
    return api('GET', '/instances').then(function (list) {
      sessionStorage.setItem(CT_KEY, token);
      try { S.tokens = JSON.parse(sessionStorage.getItem(INST_KEY) || '{}') || {}; } catch (e) { S.tokens = {}; }
      S.instances = list;
      $('signin').hidden = true; $('app').hidden = false; $('signout').hidden = false; $('live').hidden = false;
      renderInstances(); renderHealth(); connectStream();
      S.healthTimer = setInterval(refreshHealth, 15000);
      refreshHealth();
      $('main').focus();
    });
  }
  function signOut(message) {
    if (S.abort) S.abort.abort();
    S.abort = null; S.token = null; S.selected = null; S.lastEventId = null;
    stopQr(); clearInterval(S.healthTimer);
    sessionStorage.removeItem(CT_KEY); sessionStorage.removeItem(INST_KEY);
    $('app').hidden = true; $('signout').hidden = true; $('live').hidden = true; $('signin').hidden = false;
    clear($('detail')).appendChild(h('p', { class: 'muted', text: 'Select or create an instance.' }));
    $('signin-error').textContent = message || '';
    $('signin-token').value = '';
    $('signin-token').focus();
  }

  // ---- instances ----
  function refreshInstances() {
    return api('GET', '/instances').then(function (list) {
      S.instances = list; renderInstances(); renderHealth();
      if (S.selected) renderHead();
    }, fail);
  }
  function current() { for (var i = 0; i < S.instances.length; i++) if (S.instances[i].instanceId === S.selected) return S.instances[i]; return null; }
  function badge(status) { return h('span', { class: 'badge ' + status, text: String(status).replace('_', ' ') }); }
  function renderInstances() {
    var ul = clear($('instance-list'));
    if (S.instances.length === 0) ul.appendChild(h('li', { class: 'muted', text: 'No instances yet.' }));
    S.instances.forEach(function (inst) {
      ul.appendChild(h('li', null, h('button', { type: 'button', 'aria-current': inst.instanceId === S.selected ? 'true' : 'false',
        'data-instance': inst.instanceId, on: { click: function () { select(inst.instanceId); } } },
        h('span', null, inst.name, inst.phone ? h('span', { class: 'muted', text: ' +' + inst.phone }) : null), badge(inst.status))));
    });
  }
  function create(name) {
    return api('POST', '/instances', { name: name }).then(function (created) {
      S.tokens[created.instanceId] = created.instanceToken; saveTokens();
      return refreshInstances().then(function () { select(created.instanceId, true); });
    });
  }

  // ---- detail ----
  function select(id, pairNow) {
    stopQr(); S.codeFor = null;
    S.selected = id;
    renderInstances();
    var d = clear($('detail'));
    var inst = current();
    if (!inst) return;
    if (!S.tokens[id]) {
      d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'unlock-title' },
        h('h2', { id: 'unlock-title', text: inst.name }),
        h('p', { class: 'muted', text: 'The API never shows an instance token again after creating or rotating it. Paste this instance\u2019s token to manage it from this tab.' }),
        h('form', { id: 'unlock-form', class: 'row', on: { submit: function (ev) {
          ev.preventDefault();
          S.tokens[id] = $('unlock-token').value.trim();
          iapi('GET', '/status').then(function () { saveTokens(); select(id); }, function (err) { delete S.tokens[id]; fail(err); });
        } } }, h('label', { for: 'unlock-token', text: 'Instance token' }), h('input', { id: 'unlock-token', type: 'password', required: true, autocomplete: 'off' }),
          h('button', { type: 'submit', text: 'Open' }))));
      return;
    }
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'inst-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'inst-title' }), h('span', { id: 'inst-badge', role: 'status', 'aria-live': 'polite' })),
      h('p', { id: 'inst-facts', class: 'muted' }),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'secondary', text: 'Restart', on: { click: function () { act('POST', '/restart', 'Restarting'); } } }),
        h('button', { type: 'button', class: 'secondary', text: 'Disconnect', on: { click: function () { if (confirm('Log out this number? It will need a new QR scan.')) act('POST', '/disconnect', 'Disconnected'); } } }),
        h('button', { type: 'button', class: 'danger', text: 'Delete', on: { click: removeInstance } })),
      h('form', { class: 'row', on: { submit: function (ev) { ev.preventDefault(); var v = $('rename').value.trim();
        iapi('PUT', '/update-name', { value: v }).then(function () { toast('Renamed'); refreshInstances(); }, fail); } } },
        h('label', { for: 'rename', text: 'Name' }), h('input', { id: 'rename', required: true, maxlength: 100, value: inst.name }), h('button', { type: 'submit', class: 'secondary', text: 'Rename' }))));
    d.appendChild(h('section', { id: 'pairing', class: 'card', 'aria-labelledby': 'pair-title' }, h('h2', { id: 'pair-title', text: 'Pairing' }), h('div', { id: 'pair-body' })));
    d.appendChild(h('div', { class: 'grid2' },
      h('section', { class: 'card', 'aria-labelledby': 'send-title' }, h('h2', { id: 'send-title', text: 'Test send' }),
        h('form', { id: 'send-form', on: { submit: sendTest } },
          h('label', { for: 'send-phone', text: 'Phone (digits, with country code)' }), h('input', { id: 'send-phone', required: true, inputmode: 'tel', pattern: '\\+?[0-9 ]{6,32}' }),
          h('label', { for: 'send-text', text: 'Message or caption' }), h('input', { id: 'send-text' }),
          h('label', { for: 'send-image', text: 'Image (optional)' }), h('input', { id: 'send-image', type: 'file', accept: 'image/*' }),
          h('div', { class: 'actions' }, h('button', { type: 'submit', text: 'Send' }))),
        h('div', { class: 'scroll' }, h('table', null, h('caption', { text: 'Sent from this tab' }),
          h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'To' }), h('th', { scope: 'col', text: 'Message id' }), h('th', { scope: 'col', text: 'Status' }))),
          h('tbody', { id: 'sent-body' })))),
      h('section', { class: 'card', 'aria-labelledby': 'settings-title' }, h('h2', { id: 'settings-title', text: 'Settings' }),
        h('label', { class: 'inline' }, h('input', { id: 'antiban', type: 'checkbox', on: { change: function (ev) {
          iapi('PUT', '/update-antiban', { value: ev.target.checked }).then(function () { toast('Anti-ban ' + (ev.target.checked ? 'on' : 'off')); }, fail); } } }), 'Anti-ban strategy'),
        h('form', { class: 'row', on: { submit: function (ev) { ev.preventDefault();
          iapi('PUT', '/update-list-mode', { value: $('list-mode').value }).then(function () { toast('List mode: ' + $('list-mode').value); }, fail); } } },
          h('label', { for: 'list-mode', text: 'List mode' }),
          h('select', { id: 'list-mode' }, h('option', { value: 'poll', text: 'poll (default)' }), h('option', { value: 'text', text: 'numbered text' }), h('option', { value: 'native', text: 'native (experimental)' })),
          h('button', { type: 'submit', class: 'secondary', text: 'Apply' })),
        h('h3', { text: 'Webhooks' }),
        h('dl', { id: 'hooks', class: 'facts' }),
        h('form', { class: 'row', on: { submit: setHooks } },
          h('label', { for: 'hook-url', text: 'URL for every webhook' }), h('input', { id: 'hook-url', type: 'url', placeholder: 'https://hooks.example.com/zapgate' }),
          h('button', { type: 'submit', class: 'secondary', text: 'Save' })),
        h('label', { class: 'inline' }, h('input', { id: 'hook-me', type: 'checkbox' }), 'Also deliver messages sent by this instance'),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'secondary', text: 'Show secret', on: { click: function () { iapi('GET', '/webhook-secret').then(showSecret, fail); } } }),
          h('button', { type: 'button', class: 'secondary', text: 'Rotate secret', on: { click: function () {
            if (confirm('Rotate the signing secret? Deliveries carry both signatures until the next rotation.')) iapi('POST', '/webhook-secret/rotate').then(showSecret, fail); } } })),
        h('p', { id: 'secret', class: 'secret' }))));
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'queue-title' }, h('h2', { id: 'queue-title', text: 'Queue' }),
      h('p', null, h('span', { id: 'queue-count', role: 'status' }), ' ',
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh queue', on: { click: refreshQueue } }), ' ',
        h('button', { type: 'button', class: 'danger', text: 'Clear queue', on: { click: function () {
          if (confirm('Remove every message that has not started sending?')) iapi('DELETE', '/queue').then(function () { toast('Queue cleared'); refreshQueue(); }, fail); } } })),
      h('div', { class: 'scroll' }, h('table', null, h('caption', { text: 'Waiting messages, oldest first' }),
        h('thead', null, h('tr', null, ['Created', 'To', 'Type', 'State', 'Attempts', 'Error', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', { id: 'queue-body' })))));
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'dlv-title' }, h('h2', { id: 'dlv-title', text: 'Webhook deliveries' }),
      h('div', { class: 'row' }, h('label', { for: 'dlv-filter', text: 'Show' }),
        h('select', { id: 'dlv-filter', on: { change: refreshDeliveries } }, h('option', { value: '', text: 'all' }), h('option', { value: 'failed', text: 'failed' }),
          h('option', { value: 'retrying', text: 'retrying' }), h('option', { value: 'pending', text: 'pending' }), h('option', { value: 'delivered', text: 'delivered' })),
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh deliveries', on: { click: refreshDeliveries } })),
      h('div', { class: 'scroll' }, h('table', null, h('caption', { text: 'Newest first' }),
        h('thead', null, h('tr', null, ['Created', 'Event', 'Webhook', 'Status', 'Attempts', 'Last answer', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', { id: 'dlv-body' })))));
    d.appendChild(h('div', { class: 'grid2' },
      h('section', { class: 'card', 'aria-labelledby': 'media-title' }, h('h2', { id: 'media-title', text: 'Received media' }), h('div', { id: 'media', class: 'media' })),
      h('section', { class: 'card', 'aria-labelledby': 'hist-title' }, h('h2', { id: 'hist-title', text: 'Status history' }), h('ol', { id: 'history', class: 'log' }))));
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'ev-title' }, h('h2', { id: 'ev-title', text: 'Live events' }), h('ol', { id: 'events', class: 'log' })));
    renderHead(); renderSent(); renderMedia(); renderEvents();
    refreshStatus(pairNow); refreshHistory(); refreshQueue(); refreshDeliveries(); refreshHooks();
  }
  function renderHead() {
    var inst = current(); if (!inst || !$('inst-title')) return;
    $('inst-title').textContent = inst.name;
    clear($('inst-badge')).appendChild(badge(inst.status));
    $('inst-facts').textContent = (inst.phone ? 'Phone +' + inst.phone + ' \u00b7 ' : '') + 'id ' + inst.instanceId;
  }
  function act(method, path, done) { iapi(method, path).then(function () { toast(done); refreshInstances(); refreshStatus(); }, fail); }
  function removeInstance() {
    var inst = current(); if (!inst) return;
    if (!confirm('Delete "' + inst.name + '" with everything queued? A paired device is unlinked.')) return;
    iapi('DELETE', '').then(function () {
      delete S.tokens[inst.instanceId]; saveTokens(); stopQr(); S.selected = null;
      clear($('detail')).appendChild(h('p', { class: 'muted', text: 'Deleted.' })); toast('Deleted'); refreshInstances();
    }, fail);
  }

  // ---- status, pairing, history ----
  function refreshStatus(pairNow) {
    var id = S.selected; if (!id) return Promise.resolve();
    return iapi('GET', '/status').then(function (st) {
      if (id !== S.selected) return;
      var inst = current();
      if (inst && (inst.status !== st.status || inst.phone !== st.phone)) { inst.status = st.status; inst.phone = st.phone; renderInstances(); renderHead(); renderHealth(); }
      var ab = $('antiban'); if (ab) ab.checked = !!(st.antiban && st.antiban.enabled);
      renderPairing(st, pairNow);
    }, fail);
  }
  function renderPairing(st, pairNow) {
    var body = $('pair-body'); if (!body) return;
    if (st.connected) {
      stopQr(); S.codeFor = null;
      clear(body).appendChild(h('p', { id: 'pair-state' }, badge('connected'), ' Connected' + (st.phone ? ' as +' + st.phone : '') + '.'));
      return;
    }
    if (S.qrFor === S.selected) return; // the QR loop is showing it
    if (S.codeFor === S.selected && $('pair-code') && $('pair-code').textContent) return; // a pairing code is shown
    clear(body).appendChild(h('p', { id: 'pair-state' }, badge(st.status), ' Not connected' + (st.statusReason ? ' (' + st.statusReason + ')' : '') + '. '));
    body.appendChild(h('div', { class: 'actions' },
      h('button', { type: 'button', text: 'Show QR code', on: { click: startQr } })));
    body.appendChild(h('form', { class: 'row', on: { submit: pairByCode } },
      h('label', { for: 'code-phone', text: 'Or pair with a code: this number (with country code)' }), h('input', { id: 'code-phone', inputmode: 'tel', required: true }),
      h('button', { type: 'submit', class: 'secondary', text: 'Get code' })));
    body.appendChild(h('p', { id: 'pair-code', class: 'code', role: 'status' }));
    if (pairNow) startQr();
  }
  function startQr() {
    var body = $('pair-body'); if (!body) return;
    S.qrFor = S.selected;
    clear(body).appendChild(h('div', { class: 'qr' },
      h('img', { id: 'qr', alt: 'QR code: scan it with WhatsApp, Settings, Linked devices', width: 264, height: 264 }),
      h('div', null, h('p', { id: 'pair-state', role: 'status', 'aria-live': 'polite', text: 'Waiting for the QR code\u2026' }),
        h('p', { class: 'muted', text: 'The code changes every few seconds; this page follows it and turns to \u201cconnected\u201d once the phone has scanned it.' }),
        h('button', { type: 'button', class: 'secondary', text: 'Stop', on: { click: function () { stopQr(); refreshStatus(); } } }))));
    pollQr();
  }
  function pollQr() {
    var id = S.qrFor; if (!id || id !== S.selected) return;
    iapi('GET', '/qr-code/image', undefined, { accept: 'application/json' }).then(function (r) {
      if (S.qrFor !== id) return;
      var img = $('qr'); if (img && img.getAttribute('src') !== r.value) img.setAttribute('src', r.value);
      $('pair-state').textContent = 'Scan this code with the phone.';
      S.qrTimer = setTimeout(pollQr, 2000);
    }, function (err) {
      if (S.qrFor !== id) return;
      // 404 once connected (or when no QR can be had): the status says which.
      if (err.status === 404) { stopQr(); refreshStatus(); refreshInstances(); return; }
      $('pair-state').textContent = err.message;
      S.qrTimer = setTimeout(pollQr, 3000);
    });
  }
  function stopQr() { clearTimeout(S.qrTimer); S.qrTimer = null; S.qrFor = null; }
  function pairByCode(ev) {
    ev.preventDefault();
    var phone = $('code-phone').value.replace(/[^0-9]/g, '');
    var ask = function () { return iapi('GET', '/phone-code/' + encodeURIComponent(phone)); };
    $('pair-code').textContent = 'Asking the network for a code\u2026';
    // A code needs a pairing session: when none runs yet (409), asking for the QR starts one.
    ask().catch(function (err) {
      if (err.status !== 409) throw err;
      return iapi('GET', '/qr-code').then(ask);
    }).then(function (r) {
      $('pair-code').textContent = r.value + '  \u2014 on the phone: WhatsApp \u203a Linked devices \u203a Link with phone number';
      S.codeFor = S.selected;
      later('code-status', 2000, watchCode);
    }, function (err) { $('pair-code').textContent = ''; fail(err); });
  }
  function watchCode() {
    // Until the phone has entered the code (the stream's ConnectedCallback also ends this).
    if (S.codeFor !== S.selected) return;
    refreshStatus().then(function () {
      var inst = current();
      if (inst && inst.status !== 'connected' && S.codeFor === S.selected) later('code-status', 2000, watchCode);
    });
  }
  function refreshHistory() {
    var id = S.selected;
    return iapi('GET', '/status-history?limit=30').then(function (list) {
      if (id !== S.selected || !$('history')) return;
      var ol = clear($('history'));
      list.forEach(function (c) { ol.appendChild(h('li', null, time(c.at) + ' ', badge(c.status), ' ' + (c.reason || ''))); });
    }, fail);
  }

  // ---- webhooks ----
  function refreshHooks() {
    var id = S.selected;
    return Promise.all([iapi('GET', '/webhooks'), iapi('GET', '/me')]).then(function (r) {
      if (id !== S.selected || !$('hooks')) return;
      var dl = clear($('hooks'));
      if (r[0].length === 0) dl.appendChild(h('dd', { class: 'muted', text: 'No webhook URL set.' }));
      r[0].forEach(function (w) { dl.appendChild(h('dt', { text: w.kind })); dl.appendChild(h('dd', { text: w.url + (w.disabledReason ? ' (disabled: ' + w.disabledReason + ')' : '') })); });
      $('hook-me').checked = !!r[1].receiveCallbackSentByMe;
    }, fail);
  }
  function setHooks(ev) {
    ev.preventDefault();
    iapi('PUT', '/update-every-webhooks', { value: $('hook-url').value.trim(), notifySentByMe: $('hook-me').checked })
      .then(function () { toast('Webhooks saved'); refreshHooks(); }, fail);
  }
  function showSecret(r) { $('secret').textContent = 'Current: ' + r.value + (r.previous ? ' \u00b7 previous (still signing): ' + r.previous : ''); }

  // ---- test send ----
  function sendTest(ev) {
    ev.preventDefault();
    var phone = $('send-phone').value.replace(/[^0-9]/g, '');
    var text = $('send-text').value;
    var file = $('send-image').files[0];
    var sent = function (r) {
      S.sends[r.messageId] = { to: phone, status: 'queued', instanceId: S.selected };
      renderSent(); refreshQueue(); toast('Queued');
    };
    if (!file) {
      if (!text) return toast('Write a message or choose an image.');
      return iapi('POST', '/send-text', { phone: phone, message: text }).then(sent, fail);
    }
    var reader = new FileReader();
    reader.onload = function () {
      var body = { phone: phone, image: reader.result };
      if (text) body.caption = text;
      iapi('POST', '/send-image', body).then(sent, fail);
    };
    reader.readAsDataURL(file);
  }
  function renderSent() {
    var tb = $('sent-body'); if (!tb) return; clear(tb);
    Object.keys(S.sends).forEach(function (id) {
      var s = S.sends[id]; if (s.instanceId !== S.selected) return;
      tb.appendChild(h('tr', { 'data-message-id': id }, h('td', { text: '+' + s.to }), h('td', { class: 'secret', text: id }), h('td', null, badge(s.status))));
    });
  }

  // ---- queue ----
  function refreshQueue() {
    var id = S.selected; if (!id || !$('queue-body')) return Promise.resolve();
    return Promise.all([iapi('GET', '/queue/count'), iapi('GET', '/queue?pageSize=50')]).then(function (r) {
      if (id !== S.selected || !$('queue-body')) return;
      $('queue-count').textContent = r[0].count + ' waiting';
      var tb = clear($('queue-body'));
      r[1].messages.forEach(function (m) {
        tb.appendChild(h('tr', null, h('td', { text: m.Created || '' }), h('td', { text: m.phone || m.Phone || '' }), h('td', { text: m.type || '' }),
          h('td', { text: m.state || m.status || '' }), h('td', { text: String(m.attempts == null ? '' : m.attempts) }), h('td', { text: m.error || '' }),
          h('td', null, h('button', { type: 'button', class: 'secondary', 'aria-label': 'Remove message ' + m.zaapId, text: 'Remove', on: { click: function () {
            iapi('DELETE', '/queue/' + encodeURIComponent(m.zaapId)).then(function () { toast('Removed'); refreshQueue(); }, fail); } } }))));
      });
    }, fail);
  }

  // ---- deliveries ----
  function refreshDeliveries() {
    var id = S.selected; if (!id || !$('dlv-body')) return Promise.resolve();
    var f = $('dlv-filter').value;
    return iapi('GET', '/webhook-deliveries?pageSize=1000' + (f ? '&status=' + f : '')).then(function (r) {
      if (id !== S.selected || !$('dlv-body')) return;
      var tb = clear($('dlv-body'));
      var list = r.deliveries.slice(-50).reverse();
      if (list.length === 0) tb.appendChild(h('tr', null, h('td', { colspan: 7, class: 'muted', text: 'No deliveries (set a webhook URL to get some).' })));
      list.forEach(function (d) {
        tb.appendChild(h('tr', { 'data-delivery': d.id }, h('td', { text: time(d.createdAt) }), h('td', { text: d.type }), h('td', { text: d.kind }),
          h('td', null, badge(d.status)), h('td', { text: String(d.attempts) }),
          h('td', { text: (d.lastStatus ? 'HTTP ' + d.lastStatus + ' ' : '') + (d.lastError || '') }),
          h('td', null, d.status === 'failed' ? h('button', { type: 'button', class: 'secondary', 'aria-label': 'Replay delivery ' + d.id, text: 'Replay', on: { click: function () {
            iapi('POST', '/webhook-deliveries/' + encodeURIComponent(d.id) + '/retry').then(function () {
              toast('Replaying'); refreshDeliveries();
              // The attempt goes out in the background: look again shortly.
              setTimeout(refreshDeliveries, 1000); setTimeout(refreshDeliveries, 4000);
            }, fail); } } }) : null)));
      });
    }, fail);
  }

  // ---- media and events ----
  var MEDIA = { image: ['imageUrl', 'caption'], sticker: ['stickerUrl', null], video: ['thumbnailUrl', 'caption'], document: ['thumbnailUrl', 'fileName'], audio: [null, null] };
  function samePath(url) {
    // Links carry the public base URL; the page loads them from this origin (the CSP allows only it).
    try { var u = new URL(url, location.href); return u.pathname + u.search; } catch (e) { return null; }
  }
  function noteMedia(ev) {
    Object.keys(MEDIA).forEach(function (kind) {
      var m = ev[kind]; if (!m) return;
      var link = m[kind + 'Url'] || m.imageUrl || m.stickerUrl || m.videoUrl || m.documentUrl || m.audioUrl;
      var preview = MEDIA[kind][0] ? m[MEDIA[kind][0]] : null;
      var list = S.media[ev.instanceId] || (S.media[ev.instanceId] = []);
      list.unshift({ kind: kind, link: samePath(link), preview: preview ? samePath(preview) : null, label: (MEDIA[kind][1] && m[MEDIA[kind][1]]) || kind, from: ev.phone, at: ev.momment });
      if (list.length > 24) list.pop();
    });
  }
  function renderMedia() {
    var box = $('media'); if (!box) return; clear(box);
    var list = S.media[S.selected] || [];
    if (list.length === 0) box.appendChild(h('p', { class: 'muted', text: 'Images, stickers, videos and documents received while this page is open appear here.' }));
    list.forEach(function (m) {
      box.appendChild(h('figure', null, m.preview ? h('a', { href: m.link, target: '_blank', rel: 'noopener' }, h('img', { src: m.preview, alt: m.kind + ' from +' + m.from })) : h('a', { href: m.link, target: '_blank', rel: 'noopener', text: 'Open ' + m.kind }),
        h('figcaption', { text: m.label + ' \u00b7 +' + m.from })));
    });
  }
  function renderEvents() {
    var ol = $('events'); if (!ol) return; clear(ol);
    S.events.filter(function (e) { return e.body.instanceId === S.selected; }).slice(0, 50).forEach(function (e) {
      var b = e.body;
      ol.appendChild(h('li', { text: time(b.momment) + ' ' + e.type + (b.status ? ' ' + b.status : '') + (b.phone ? ' +' + b.phone : '') + (b.notification ? ' ' + b.notification : '') }));
    });
  }
  var RANK = { queued: 0, sent: 1, SENT: 1, RECEIVED: 2, READ: 3, PLAYED: 4 };
  function setSendStatus(id, status) {
    var s = S.sends[id]; if (!s) return;
    if (status !== 'failed' && (RANK[status] || 0) < (RANK[s.status] || 0)) return;
    s.status = status; renderSent();
  }
  function onEvent(type, body) {
    S.events.unshift({ type: type, body: body }); if (S.events.length > 200) S.events.pop();
    var mine = body.instanceId === S.selected;
    if (type === 'ConnectedCallback' || type === 'DisconnectedCallback') {
      later('instances', 100, refreshInstances);
      if (mine) { refreshStatus(); refreshHistory(); }
    }
    if (type === 'DeliveryCallback') { setSendStatus(body.messageId, body.error ? 'failed' : 'SENT'); if (mine) later('queue', 300, refreshQueue); }
    if (type === 'MessageStatusCallback') (body.ids || []).forEach(function (id) { setSendStatus(id, body.status); });
    if (type === 'ReceivedCallback') { noteMedia(body); if (mine) renderMedia(); }
    // Deliveries follow events; a receiver answering 410 disables its URL, which the webhook list shows.
    if (mine) { renderEvents(); later('deliveries', 700, refreshDeliveries); later('hooks', 1500, refreshHooks); }
  }

  // ---- the event stream: fetch (for the Client-Token header) and a small SSE parser ----
  function connectStream(delay) {
    if (!S.token) return;
    var ctl = new AbortController(); S.abort = ctl;
    var headers = { 'Client-Token': S.token, accept: 'text/event-stream' };
    if (S.lastEventId) headers['Last-Event-ID'] = S.lastEventId;
    var retry = function () {
      if (S.abort !== ctl || !S.token) return;
      $('live').textContent = 'Live updates: reconnecting\u2026';
      var next = Math.min(10000, (delay || 500) * 2);
      setTimeout(function () { if (S.abort === ctl) connectStream(next); }, next);
    };
    fetch('/events', { headers: headers, signal: ctl.signal, cache: 'no-store' }).then(function (res) {
      if (res.status === 401) return signOut('Your Client-Token was refused; sign in again.');
      if (!res.ok || !res.body) return retry();
      $('live').textContent = 'Live updates: on';
      delay = 0;
      var reader = res.body.getReader(); var dec = new TextDecoder(); var buf = '';
      var pump = function () {
        return reader.read().then(function (chunk) {
          if (chunk.done) return retry();
          buf += dec.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
          var at;
          while ((at = buf.indexOf('\n\n')) >= 0) {
            var block = buf.slice(0, at); buf = buf.slice(at + 2);
            var id = null, type = 'message', data = [];
            block.split('\n').forEach(function (line) {
              if (line.charAt(0) === ':') return;
              var i = line.indexOf(':'); var field = i < 0 ? line : line.slice(0, i); var value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
              if (field === 'id') id = value; else if (field === 'event') type = value; else if (field === 'data') data.push(value);
            });
            if (id) S.lastEventId = id;
            if (data.length) { try { onEvent(type, JSON.parse(data.join('\n'))); } catch (e) { /* not JSON: not ours */ } }
          }
          return pump();
        });
      };
      return pump();
    }).catch(function () { retry(); });
  }

  // ---- health ----
  function renderHealth() {
    var counts = {};
    S.instances.forEach(function (i) { counts[i.status] = (counts[i.status] || 0) + 1; });
    var dl = clear($('health'));
    dl.appendChild(h('dt', { text: 'Instances' })); dl.appendChild(h('dd', { text: String(S.instances.length) }));
    Object.keys(counts).sort().forEach(function (k) { dl.appendChild(h('dt', { text: k.replace('_', ' ') })); dl.appendChild(h('dd', { text: String(counts[k]) })); });
    dl.appendChild(h('dt', { text: 'Queue depth' })); dl.appendChild(h('dd', { id: 'health-queue', text: S.healthQueue == null ? '\u2026' : String(S.healthQueue) }));
    dl.appendChild(h('dt', { text: 'Webhook lag' })); dl.appendChild(h('dd', { id: 'health-lag', text: S.healthLag == null ? '\u2026' : S.healthLag }));
  }
  function refreshHealth() {
    // Over the instances this tab holds a token for (the API gives queues and deliveries per instance).
    var ids = S.instances.map(function (i) { return i.instanceId; }).filter(function (id) { return S.tokens[id]; }).slice(0, 20);
    var pfx = function (id) { return '/instances/' + encodeURIComponent(id) + '/token/' + encodeURIComponent(S.tokens[id]); };
    Promise.all(ids.map(function (id) {
      return Promise.all([api('GET', pfx(id) + '/queue/count'), api('GET', pfx(id) + '/webhook-deliveries?status=pending&pageSize=1'), api('GET', pfx(id) + '/webhook-deliveries?status=retrying&pageSize=1')])
        .catch(function () { return [{ count: 0 }, { deliveries: [] }, { deliveries: [] }]; });
    })).then(function (rs) {
      var queued = 0, oldest = null;
      rs.forEach(function (r) {
        queued += r[0].count;
        [r[1], r[2]].forEach(function (p) { var d = p.deliveries[0]; if (d && (oldest === null || d.createdAt < oldest)) oldest = d.createdAt; });
      });
      S.healthQueue = queued;
      S.healthLag = oldest === null ? 'none waiting' : Math.max(0, Math.round((Date.now() - oldest) / 1000)) + ' s (oldest undelivered)';
      renderHealth();
    });
  }

  // ---- boot ----
  document.addEventListener('DOMContentLoaded', function () {
    $('signin-form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      $('signin-error').textContent = '';
      var token = $('signin-token').value.trim();
      signIn(token).catch(function (err) {
        S.token = null;
        $('signin-error').textContent = err.status === 401 ? 'That Client-Token was refused.' : err.message;
      });
    });
    $('signout').addEventListener('click', function () { signOut(); });
    $('create-form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      var name = $('create-name').value.trim();
      create(name).then(function () { $('create-name').value = ''; toast('Created ' + name); }, fail);
    });
    var saved = sessionStorage.getItem(CT_KEY);
    if (saved) signIn(saved).catch(function () { signOut(); });
    else $('signin-token').focus();
  });
})();
`;
