// The dashboard's script, part 4 of 9 (see `app-js-base.ts`): the account's administration, shown
// only to a credential with the admin scope over the whole account (docs/api-keys.md): its API keys
// (listed without their secrets; created with a name and scopes, the secret shown once; rotated with
// an hour's overlap; revoked) and the newest entries of its audit trail (GET /audit).
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_ACCOUNT = String.raw`  // ---- account administration: API keys and the audit trail ----
  var KEY_SCOPES = ['read', 'send', 'manage', 'admin'];
  function renderAdmin() {
    var box = clear($('account-admin'));
    if (!accountWide('admin')) return;
    box.appendChild(h('section', { class: 'card', 'aria-labelledby': 'keys-title' },
      h('h2', { id: 'keys-title', text: 'API keys' }),
      h('ul', { id: 'key-list', class: 'log' }),
      h('form', { id: 'key-form', on: { submit: createKey } },
        h('label', { for: 'key-name', text: 'New key name' }), h('input', { id: 'key-name', required: true, maxlength: 100 }),
        h('fieldset', null, h('legend', { text: 'Scopes' }),
          KEY_SCOPES.map(function (s) { return h('label', { class: 'inline' }, h('input', { type: 'checkbox', name: 'key-scope', value: s }), s + ' '); })),
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'secondary', text: 'Add key' }))),
      h('p', { id: 'key-secret', class: 'secret', role: 'status' })));
    box.appendChild(h('section', { class: 'card', 'aria-labelledby': 'audit-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'audit-title', text: 'Audit trail' }),
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh audit trail', on: { click: refreshAudit } })),
      h('ol', { id: 'audit-list', class: 'log', 'aria-label': 'Newest changes first' })));
    refreshKeys(); refreshAudit();
  }
  function keyState(k) {
    if (k.revokedAt) return 'revoked';
    if (k.expiresAt && k.expiresAt <= Date.now()) return 'expired';
    return k.expiresAt ? 'active until ' + time(k.expiresAt) : 'active';
  }
  function refreshKeys() {
    if (!$('key-list')) return Promise.resolve();
    return api('GET', '/keys').then(function (list) {
      var ul = clear($('key-list'));
      if (list.length === 0) ul.appendChild(h('li', { class: 'muted', text: 'No API keys yet.' }));
      list.forEach(function (k) {
        var live = !k.revokedAt && !(k.expiresAt && k.expiresAt <= Date.now());
        var self = S.me && S.me.id === k.id;
        ul.appendChild(h('li', { 'data-key': k.id },
          k.name + ' (' + k.prefix + '\u2026) ' + k.scopes.join(', ') + (k.instanceIds ? ' \u00b7 ' + k.instanceIds.length + ' instance(s)' : '') + ' \u00b7 ' + keyState(k) + (self ? ' \u00b7 this key' : '') + ' ',
          live ? h('button', { type: 'button', class: 'secondary', 'aria-label': 'Rotate key ' + k.name, text: 'Rotate', on: { click: function () { rotateKey(k); } } }) : null, ' ',
          live && !self ? h('button', { type: 'button', class: 'danger', 'aria-label': 'Revoke key ' + k.name, text: 'Revoke', on: { click: function () { revokeKey(k); } } }) : null));
      });
    }, fail);
  }
  function showKeySecret(k) { $('key-secret').textContent = 'New key \u201c' + k.name + '\u201d, shown only now: ' + k.key; }
  function createKey(ev) {
    ev.preventDefault();
    var scopes = [];
    document.querySelectorAll('input[name="key-scope"]:checked').forEach(function (c) { scopes.push(c.value); });
    if (scopes.length === 0) return toast('Choose at least one scope.');
    api('POST', '/keys', { name: $('key-name').value.trim(), scopes: scopes }).then(function (k) {
      showKeySecret(k); $('key-name').value = '';
      document.querySelectorAll('input[name="key-scope"]').forEach(function (c) { c.checked = false; });
      refreshKeys(); refreshAudit();
    }, fail);
  }
  function rotateKey(k) {
    if (!confirm('Replace key \u201c' + k.name + '\u201d? The old secret keeps working for one hour.')) return;
    api('POST', '/keys/' + encodeURIComponent(k.id) + '/rotate', { overlapSeconds: 3600 }).then(function (r) {
      showKeySecret(r.created); refreshKeys(); refreshAudit();
    }, fail);
  }
  function revokeKey(k) {
    if (!confirm('Revoke key \u201c' + k.name + '\u201d? It stops working at once.')) return;
    api('DELETE', '/keys/' + encodeURIComponent(k.id)).then(function () { toast('Revoked ' + k.name); refreshKeys(); refreshAudit(); }, fail);
  }
  function refreshAudit() {
    if (!$('audit-list')) return Promise.resolve();
    return api('GET', '/audit?limit=20').then(function (list) {
      var ol = clear($('audit-list'));
      if (list.length === 0) ol.appendChild(h('li', { class: 'muted', text: 'No changes recorded yet.' }));
      list.forEach(function (e) {
        ol.appendChild(h('li', { 'data-seq': e.seq, text: time(e.at) + ' ' + e.action + ' \u00b7 ' + e.actor + (e.target ? ' \u00b7 ' + e.target : '') }));
      });
    }, fail);
  }

`;
