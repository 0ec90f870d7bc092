// The dashboard's script, part 1 of 9 (served as one file, the parts concatenated in order by
// `../routes.ts`): plain browser JavaScript, no build step and no dependency. This part opens the
// script's one closure and holds its state, the DOM helpers, the API client (the Client-Token or API
// key as the Client-Token header, from session storage; instance tokens in the path), signing in and
// out — which asks GET /keys/me what the credential may do, so that may(scope) leaves out every
// control it may not use (docs/api-keys.md) — and the instance list.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_BASE = String.raw`'use strict';
(function () {
  var CT_KEY = 'zapgate.clientToken';
  var INST_KEY = 'zapgate.instanceTokens';
  var S = { token: null, me: null, instances: [], selected: null, tokens: {}, events: [], media: {}, sends: {},
    abort: null, lastEventId: null, qrTimer: null, qrFor: null, timers: {}, healthTimer: null,
    chats: [], chatOpen: null, chatFor: null, edited: {}, threadShown: false,
    view: null, campaigns: [], optOuts: [], optNext: null };

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
  /** Whether the signed-in credential holds scope (admin holds every scope). */
  function may(scope) { var s = S.me ? S.me.scopes : []; return s.indexOf('admin') >= 0 || s.indexOf(scope) >= 0; }
  /** Account-wide routes (the instance list, the event stream, creating instances) refuse an instance-limited key. */
  function accountWide(scope) { return may(scope) && !(S.me && S.me.instanceIds); }
  function fail(err) {
    if (err && err.status === 401 && /Client-Token/.test(err.message)) return signOut('Your Client-Token or API key was refused; sign in again.');
    toast(err && err.message ? err.message : String(err));
  }
  function saveTokens() { sessionStorage.setItem(INST_KEY, JSON.stringify(S.tokens)); }

  // ---- sign in / out ----
  function signIn(token) {
    S.token = token;
    return api('GET', '/keys/me').then(function (me) {
      S.me = me;
      try { S.tokens = JSON.parse(sessionStorage.getItem(INST_KEY) || '{}') || {}; } catch (e) { S.tokens = {}; }
      return listInstances();
    }).then(function (list) {
      sessionStorage.setItem(CT_KEY, token);
      S.instances = list;
      $('signin').hidden = true; $('app').hidden = false; $('signout').hidden = false; $('live').hidden = !accountWide('read');
      $('whoami').hidden = false;
      $('whoami').textContent = S.me.kind === 'api-key' ? 'API key \u201c' + S.me.name + '\u201d: ' + S.me.scopes.join(', ') : 'Client-Token: full access';
      $('create-form').hidden = !accountWide('admin');
      // Campaigns and the opt-out list are the account's: not for a key limited to some instances.
      $('account-nav').hidden = !accountWide('read');
      renderInstances(); renderHealth(); renderAdmin(); connectStream();
      S.healthTimer = setInterval(refreshHealth, 15000);
      refreshHealth();
      $('main').focus();
    });
  }
  function signOut(message) {
    if (S.abort) S.abort.abort();
    S.abort = null; S.token = null; S.me = null; S.selected = null; S.lastEventId = null; S.view = null;
    stopQr(); clearInterval(S.healthTimer);
    sessionStorage.removeItem(CT_KEY); sessionStorage.removeItem(INST_KEY);
    $('app').hidden = true; $('signout').hidden = true; $('live').hidden = true; $('whoami').hidden = true; $('account-nav').hidden = true; $('signin').hidden = false;
    clear($('detail')).appendChild(h('p', { class: 'muted', text: 'Select or create an instance.' }));
    clear($('account-admin'));
    $('signin-error').textContent = message || '';
    $('signin-token').value = '';
    $('signin-token').focus();
  }

  // ---- instances ----
  /**
   * The account's instances. A key limited to some instances may not list the account's: it sees its
   * own ones, by id until this tab holds an instance's token, then by name and status (GET …/me, …/status).
   */
  function listInstances() {
    if (accountWide('read')) return api('GET', '/instances');
    var known = {}; S.instances.forEach(function (i) { known[i.instanceId] = i; });
    return Promise.all((S.me.instanceIds || []).map(function (id) {
      var unknown = known[id] || { instanceId: id, name: id, status: 'unknown' };
      if (!S.tokens[id] || !may('read')) return unknown;
      return Promise.all([api('GET', prefix(id) + '/me'), api('GET', prefix(id) + '/status')]).then(function (r) {
        return { instanceId: id, name: r[0].name, phone: r[1].phone, status: r[1].status };
      }, function () { return unknown; });
    }));
  }
  function refreshInstances() {
    return listInstances().then(function (list) {
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
    markNav();
  }
  function create(name) {
    return api('POST', '/instances', { name: name }).then(function (created) {
      S.tokens[created.instanceId] = created.instanceToken; saveTokens();
      return refreshInstances().then(function () { select(created.instanceId, true); });
    });
  }

`;
