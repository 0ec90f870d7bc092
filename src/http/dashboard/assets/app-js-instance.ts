// The dashboard's script, part 2 of 9 (see `app-js-base.ts`): the selected instance's screen —
// its detail, status, pairing (QR and code), number health (part 8), history, webhooks, test send, queue and deliveries.
// Each control is built only when the signed-in credential holds its route's scope (may(), part 1):
// a read-only key sees no button it could not use.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_INSTANCE = String.raw`  // ---- detail ----
  function select(id, pairNow) {
    stopQr(); S.codeFor = null;
    S.selected = id; S.view = null; S.chats = []; S.chatOpen = null;
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
          iapi('GET', '/status').then(function () { saveTokens(); select(id); refreshInstances(); }, function (err) { delete S.tokens[id]; fail(err); });
        } } }, h('label', { for: 'unlock-token', text: 'Instance token' }), h('input', { id: 'unlock-token', type: 'password', required: true, autocomplete: 'off' }),
          h('button', { type: 'submit', text: 'Open' }))));
      return;
    }
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'inst-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'inst-title' }), h('span', { id: 'inst-badge', role: 'status', 'aria-live': 'polite' })),
      h('p', { id: 'inst-facts', class: 'muted' }),
      may('manage') || may('admin') ? h('div', { class: 'actions' },
        may('manage') ? h('button', { type: 'button', class: 'secondary', text: 'Restart', on: { click: function () { act('POST', '/restart', 'Restarting'); } } }) : null,
        may('manage') ? h('button', { type: 'button', class: 'secondary', text: 'Disconnect', on: { click: function () { if (confirm('Log out this number? It will need a new QR scan.')) act('POST', '/disconnect', 'Disconnected'); } } }) : null,
        may('admin') ? h('button', { type: 'button', class: 'danger', text: 'Delete', on: { click: removeInstance } }) : null) : null,
      may('manage') ? h('form', { class: 'row', on: { submit: function (ev) { ev.preventDefault(); var v = $('rename').value.trim();
        iapi('PUT', '/update-name', { value: v }).then(function () { toast('Renamed'); refreshInstances(); }, fail); } } },
        h('label', { for: 'rename', text: 'Name' }), h('input', { id: 'rename', required: true, maxlength: 100, value: inst.name }), h('button', { type: 'submit', class: 'secondary', text: 'Rename' })) : null));
    d.appendChild(h('section', { id: 'pairing', class: 'card', 'aria-labelledby': 'pair-title' }, h('h2', { id: 'pair-title', text: 'Pairing' }), h('div', { id: 'pair-body' })));
    if (may('read')) d.appendChild(numberHealthCard());
    d.appendChild(conversationsCard());
    d.appendChild(h('div', { class: 'grid2' },
      may('send') ? h('section', { class: 'card', 'aria-labelledby': 'send-title' }, h('h2', { id: 'send-title', text: 'Test send' }),
        h('form', { id: 'send-form', on: { submit: sendTest } },
          h('label', { for: 'send-phone', text: 'Phone (digits, with country code)' }), h('input', { id: 'send-phone', required: true, inputmode: 'tel', pattern: '\\+?[0-9 ]{6,32}' }),
          h('label', { for: 'send-text', text: 'Message or caption' }), h('input', { id: 'send-text' }),
          h('label', { for: 'send-image', text: 'Image (optional)' }), h('input', { id: 'send-image', type: 'file', accept: 'image/*' }),
          h('div', { class: 'actions' }, h('button', { type: 'submit', text: 'Send' }))),
        h('div', { class: 'scroll' }, h('table', null, h('caption', { text: 'Sent from this tab' }),
          h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'To' }), h('th', { scope: 'col', text: 'Message id' }), h('th', { scope: 'col', text: 'Status' }))),
          h('tbody', { id: 'sent-body' })))) : null,
      may('manage') ? h('section', { class: 'card', 'aria-labelledby': 'settings-title' }, h('h2', { id: 'settings-title', text: 'Settings' }),
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
        h('p', { id: 'secret', class: 'secret' })) : null));
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'queue-title' }, h('h2', { id: 'queue-title', text: 'Queue' }),
      h('p', null, h('span', { id: 'queue-count', role: 'status' }), ' ',
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh queue', on: { click: refreshQueue } }), ' ',
        may('send') ? h('button', { type: 'button', class: 'danger', text: 'Clear queue', on: { click: function () {
          if (confirm('Remove every message that has not started sending?')) iapi('DELETE', '/queue').then(function () { toast('Queue cleared'); refreshQueue(); }, fail); } } }) : null),
      h('div', { class: 'scroll' }, h('table', null, h('caption', { text: 'Waiting messages, oldest first' }),
        h('thead', null, h('tr', null, ['Created', 'To', 'Type', 'State', 'Attempts', 'Error', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', { id: 'queue-body' })))));
    if (may('manage')) d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'dlv-title' }, h('h2', { id: 'dlv-title', text: 'Webhook deliveries' }),
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
    refreshStatus(pairNow); refreshHistory(); refreshQueue(); refreshDeliveries(); refreshHooks(); refreshChats(); refreshNumberHealth();
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
    // Pairing is the manage scope's: a narrower key sees the state only.
    if (!may('manage')) return;
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
    var id = S.selected; if (!$('hooks')) return Promise.resolve();
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
          h('td', null, may('send') ? h('button', { type: 'button', class: 'secondary', 'aria-label': 'Remove message ' + m.zaapId, text: 'Remove', on: { click: function () {
            iapi('DELETE', '/queue/' + encodeURIComponent(m.zaapId)).then(function () { toast('Removed'); refreshQueue(); }, fail); } } }) : null)));
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

`;
