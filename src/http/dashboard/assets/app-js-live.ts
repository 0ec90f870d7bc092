// The dashboard's script, part 9 of 9 (see `app-js-base.ts`): what arrives live — received media
// and events, the account's event stream (GET /events, read with fetch for the Client-Token header),
// the side panel's health — and the boot on DOMContentLoaded, which closes the script's closure.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_LIVE = String.raw`  // ---- media and events ----
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
      list.unshift({ id: ev.messageId, kind: kind, link: samePath(link), preview: preview ? samePath(preview) : null, label: (MEDIA[kind][1] && m[MEDIA[kind][1]]) || kind, from: ev.phone, at: ev.momment });
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
      if (mine) { refreshStatus(); refreshHistory(); refreshChats(); }
    }
    if (type === 'DeliveryCallback') { setSendStatus(body.messageId, body.error ? 'failed' : 'SENT'); if (mine) { later('queue', 300, refreshQueue); later('nhealth', 1500, refreshNumberHealth); } }
    // A campaign changed state (started, paused, finished…): its row follows at once.
    if (/^CAMPAIGN_/.test(body.notification || '') && S.view === 'campaigns') later('campaigns', 300, refreshCampaigns);
    if (body.notification === 'ANTIBAN_PAUSED' && mine) later('nhealth', 300, refreshNumberHealth);
    if (type === 'MessageStatusCallback') (body.ids || []).forEach(function (id) { setSendStatus(id, body.status); });
    if (type === 'ReceivedCallback') { noteMedia(body); if (mine) renderMedia(); }
    // Deleted for everyone: its preview goes too.
    if (type === 'ReceivedCallback' && body.notification === 'REVOKE' && S.media[body.instanceId]) {
      S.media[body.instanceId] = S.media[body.instanceId].filter(function (m) { return m.id !== body.messageId; });
      if (mine) renderMedia();
    }
    if (mine) chatsOnEvent(type, body);
    // Deliveries follow events; a receiver answering 410 disables its URL, which the webhook list shows.
    if (mine) { renderEvents(); later('deliveries', 700, refreshDeliveries); later('hooks', 1500, refreshHooks); }
  }

  // ---- the event stream: fetch (for the Client-Token header) and a small SSE parser ----
  function connectStream(delay) {
    // The account's stream is a read of the whole account: not for a key limited to some instances.
    if (!S.token || !accountWide('read')) return;
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
      if (res.status === 401) return signOut('Your Client-Token or API key was refused; sign in again.');
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
    if (may('manage')) { dl.appendChild(h('dt', { text: 'Webhook lag' })); dl.appendChild(h('dd', { id: 'health-lag', text: S.healthLag == null ? '\u2026' : S.healthLag })); }
  }
  function refreshHealth() {
    refreshNumberHealth();
    // Over the instances this tab holds a token for (the API gives queues and deliveries per instance).
    var ids = S.instances.map(function (i) { return i.instanceId; }).filter(function (id) { return S.tokens[id]; }).slice(0, 20);
    var pfx = function (id) { return '/instances/' + encodeURIComponent(id) + '/token/' + encodeURIComponent(S.tokens[id]); };
    var none = Promise.resolve({ deliveries: [] });
    // The queue is a read; webhook deliveries are the manage scope's.
    if (!may('read')) return;
    Promise.all(ids.map(function (id) {
      var dlv = function (status) { return may('manage') ? api('GET', pfx(id) + '/webhook-deliveries?status=' + status + '&pageSize=1') : none; };
      return Promise.all([api('GET', pfx(id) + '/queue/count'), dlv('pending'), dlv('retrying')])
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
  /** What the sign-in form says when signing in failed: never nothing. */
  function refusal(err) {
    if (err && err.status === 401) return 'That Client-Token or API key was refused: check it and try again.';
    if (err && err.status === 429) return 'Too many requests: wait a moment and try again.';
    return 'Signing in failed: ' + ((err && err.message) || 'no answer from the gateway') + '.';
  }
  document.addEventListener('DOMContentLoaded', function () {
    $('signin-form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      $('signin-error').textContent = '';
      var token = $('signin-token').value.trim();
      signIn(token).catch(function (err) {
        S.token = null;
        $('signin-error').textContent = refusal(err);
        $('signin-token').focus();
      });
    });
    $('signout').addEventListener('click', function () { signOut(); });
    wireAccountNav();
    $('create-form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      var name = $('create-name').value.trim();
      create(name).then(function () { $('create-name').value = ''; toast('Created ' + name); }, fail);
    });
    var saved = sessionStorage.getItem(CT_KEY);
    // A token kept from earlier in this tab may have been rotated or deleted since: say so.
    if (saved) signIn(saved).catch(function (err) { signOut(refusal(err)); });
    else $('signin-token').focus();
  });
})();
`;
