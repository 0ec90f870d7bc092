// The dashboard's script, part 5 of 9 (see `app-js-base.ts`): the account's views beside the
// instances ("Account" in the side column: campaigns here, the opt-out list in part 7), shown in
// the main column in place of an instance, and the campaigns — each one's state and progress
// (`GET /campaigns`, read again every 2 s while one runs and the view is open), start, pause, resume
// and cancel, each recipient's outcome on demand; the form for a new one is part 6 (docs/contract.md
// §12). Account routes: only for a credential over the whole account.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_CAMPAIGNS = String.raw`  // ---- account views ----
  var VIEWS = { campaigns: function () { campaignsView(); }, optouts: function () { optOutsView(); } };
  function markNav() {
    document.querySelectorAll('#account-nav button[data-view]').forEach(function (b) { b.setAttribute('aria-current', b.getAttribute('data-view') === S.view ? 'true' : 'false'); });
  }
  function openView(name) {
    stopQr(); S.selected = null; S.chatOpen = null; S.view = name;
    renderInstances();
    clear($('detail'));
    VIEWS[name]();
  }
  function wireAccountNav() {
    document.querySelectorAll('#account-nav button[data-view]').forEach(function (b) {
      b.addEventListener('click', function () { openView(b.getAttribute('data-view')); });
    });
  }

  // ---- campaigns ----
  var COUNTS = ['pending', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'cancelled'];
  function campaignsView() {
    var d = $('detail');
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'campaigns-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'campaigns-title', text: 'Campaigns' }),
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh campaigns', on: { click: refreshCampaigns } })),
      h('div', { class: 'scroll' }, h('table', { class: 'counts' }, h('caption', { text: 'Recipients by outcome (sent counts delivered and read ones; delivered counts read ones)' }),
        h('thead', null, h('tr', null, ['Campaign', 'State', 'Progress'].concat(COUNTS, ['']).map(function (t) { return h('th', { scope: 'col', text: t.charAt(0).toUpperCase() + t.slice(1) }); }))),
        h('tbody', { id: 'campaign-body' })))));
    if (accountWide('send')) { d.appendChild(campaignForm()); fillInstances(); }
    refreshCampaigns();
  }
  function refreshCampaigns() {
    if (S.view !== 'campaigns' || !$('campaign-body')) return Promise.resolve();
    return api('GET', '/campaigns').then(function (list) {
      if (S.view !== 'campaigns' || !$('campaign-body')) return;
      S.campaigns = list; renderCampaigns(); refreshRecipients();
      var moving = list.some(function (c) { return c.state === 'running' || c.state === 'paused' && c.progress.queued > 0; });
      later('campaigns', moving ? 2000 : 10000, refreshCampaigns);
    }, fail);
  }
  function campaignAction(c, verb) {
    if (verb === 'cancel' && !confirm('Cancel campaign \u201c' + c.name + '\u201d for good? Its messages not yet being sent leave the queue.')) return;
    api('POST', '/campaigns/' + encodeURIComponent(c.id) + '/' + verb).then(function (r) { toast(c.name + ': ' + r.state); refreshCampaigns(); }, fail);
  }
  function renderCampaigns() {
    // Redrawn every few seconds: the focused button keeps the focus (found again by its label).
    var focused = document.activeElement && $('campaign-body').contains(document.activeElement) ? document.activeElement.getAttribute('aria-label') : null;
    var tb = clear($('campaign-body'));
    if (S.campaigns.length === 0) tb.appendChild(h('tr', null, h('td', { colspan: 12, class: 'muted', text: 'No campaigns yet.' })));
    S.campaigns.slice().reverse().forEach(function (c) {
      var p = c.progress, done = p.sent + p.failed + p.skipped + p.cancelled;
      var verbs = !accountWide('send') ? [] : c.state === 'draft' ? ['start', 'cancel'] : c.state === 'running' ? ['pause', 'cancel'] : c.state === 'paused' ? ['resume', 'cancel'] : [];
      tb.appendChild(h('tr', { 'data-campaign': c.id },
        h('td', null, h('strong', { text: c.name }), h('br'), h('span', { class: 'muted', text: time(c.created) })),
        h('td', null, badge(c.state)),
        h('td', null, h('progress', { max: c.recipients, value: done, 'aria-label': c.name + ': ' + done + ' of ' + c.recipients + ' done' }), ' ' + done + '/' + c.recipients),
        COUNTS.map(function (k) { return h('td', { 'data-count': k, text: String(p[k]) }); }),
        h('td', { class: 'actions-cell' }, h('button', { type: 'button', class: 'secondary', 'aria-expanded': S.cmpOpen === c.id ? 'true' : 'false', 'aria-label': 'Recipients of campaign ' + c.name,
          text: 'Recipients', on: { click: function () { toggleRecipients(c.id); } } }),
        verbs.map(function (v) {
          return h('button', { type: 'button', class: v === 'cancel' ? 'danger' : 'secondary', 'aria-label': v + ' campaign ' + c.name, text: v.charAt(0).toUpperCase() + v.slice(1),
            on: { click: function () { campaignAction(c, v); } } });
        }))));
      if (S.cmpOpen === c.id) tb.appendChild(h('tr', null, h('td', { colspan: 12 }, recipientsTable())));
    });
    if (focused) tb.querySelectorAll('button').forEach(function (b) { if (b.getAttribute('aria-label') === focused) b.focus(); });
  }
  /** One campaign's first 100 recipients and their outcomes, below its row; read again with the list. */
  function toggleRecipients(id) {
    S.cmpOpen = S.cmpOpen === id ? null : id; S.cmpRecipients = null;
    renderCampaigns(); if (S.cmpOpen) refreshRecipients();
  }
  function refreshRecipients() {
    var id = S.cmpOpen; if (!id) return;
    api('GET', '/campaigns/' + encodeURIComponent(id) + '/recipients?pageSize=100').then(function (r) {
      if (S.cmpOpen !== id || S.view !== 'campaigns') return;
      S.cmpRecipients = r; renderCampaigns();
    }, fail);
  }
  function recipientsTable() {
    var r = S.cmpRecipients;
    if (!r) return h('p', { class: 'muted', text: 'Loading\u2026' });
    return h('table', { id: 'recipient-table' }, h('caption', { text: r.next ? 'The first ' + r.recipients.length + ' recipients' : 'Every recipient' }),
      h('thead', null, h('tr', null, ['#', 'Phone', 'Instance', 'Outcome', 'Sent', 'Error'].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
      h('tbody', null, r.recipients.map(function (x) {
        return h('tr', { 'data-recipient': x.phone }, h('td', { text: String(x.position) }), h('td', { text: '+' + x.phone }), h('td', { text: instanceName(x.instanceId) }),
          h('td', null, badge(x.outcome)), h('td', { text: time(x.sentAt) }), h('td', { text: (x.errorCode ? x.errorCode + ' ' : '') + (x.error || '') }));
      })));
  }

`;
