// The dashboard's script, part 5 of 8 (see `app-js-base.ts`): the account's views beside the
// instances ("Account" in the side column: campaigns here, the opt-out list in part 6), shown in
// the main column in place of an instance, and the campaigns — each one's state and progress
// (`GET /campaigns`, read again every 2 s while one runs and the view is open), start, pause, resume
// and cancel, and a new one from a CSV file with a header row (sent as `recipientsCsv`: the gateway
// parses and checks it), a template with `{{column}}` variables, the instances that send and the
// basic settings (docs/contract.md §12). Account routes: only for a credential over the whole account.
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

  // ---- a new campaign ----
  function campaignForm() {
    var zone = 'UTC';
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; } catch (e) { zone = 'UTC'; }
    var num = function (id, label, value, min, max) { return h('div', null, h('label', { for: id, text: label }), h('input', { id: id, type: 'number', min: min, max: max, value: value })); };
    return h('section', { class: 'card', 'aria-labelledby': 'new-campaign-title' }, h('h2', { id: 'new-campaign-title', text: 'New campaign' }),
      h('form', { id: 'campaign-form', on: { submit: createCampaign } },
        h('label', { for: 'cmp-name', text: 'Campaign name' }), h('input', { id: 'cmp-name', required: true, maxlength: 100 }),
        h('label', { for: 'cmp-csv', text: 'Recipients (CSV file)' }),
        h('input', { id: 'cmp-csv', type: 'file', accept: '.csv,text/csv', required: true, 'aria-describedby': 'cmp-csv-info', on: { change: readCsv } }),
        h('p', { id: 'cmp-csv-info', class: 'hint', text: 'A header row naming a phone column (numbers with country code); every other column is a variable for the message.' }),
        h('label', { for: 'cmp-message', text: 'Message template' }),
        h('textarea', { id: 'cmp-message', required: true, rows: 4, maxlength: 65536, 'aria-describedby': 'cmp-message-hint', on: { input: checkVars } }),
        h('p', { id: 'cmp-message-hint', class: 'hint', text: 'Write {{name}} for the recipient\u2019s value in the CSV column \u201cname\u201d; {{phone}} always exists. Opted-out numbers are skipped.' }),
        h('fieldset', { id: 'cmp-instances' }, h('legend', { text: 'Send from' })),
        h('div', { class: 'grid2' },
          h('div', null, h('label', { for: 'cmp-zone', text: 'Time zone' }), h('input', { id: 'cmp-zone', value: zone, maxlength: 64 })),
          num('cmp-cap', 'Daily cap per number', 200, 1, 100000),
          h('div', null, h('label', { for: 'cmp-quiet-from', text: 'Quiet from (optional)' }), h('input', { id: 'cmp-quiet-from', type: 'time' })),
          h('div', null, h('label', { for: 'cmp-quiet-to', text: 'Quiet until' }), h('input', { id: 'cmp-quiet-to', type: 'time' })),
          num('cmp-pace', 'Seconds between messages per number', 0, 0, 86400)),
        h('label', { class: 'inline' }, h('input', { id: 'cmp-start', type: 'checkbox', checked: true }), 'Start at once (otherwise a draft)'),
        h('div', { class: 'actions' }, h('button', { type: 'submit', text: 'Create campaign' }))));
  }
  /** The instances a campaign may send from, each a checkbox (filled once the form is on the page). */
  function fillInstances() {
    var fs = $('cmp-instances'); if (!fs) return;
    S.instances.forEach(function (i) {
      fs.appendChild(h('label', { class: 'inline' }, h('input', { type: 'checkbox', name: 'cmp-instance', value: i.instanceId, checked: i.status === 'connected' }),
        i.name + (i.phone ? ' +' + i.phone : '') + ' (' + String(i.status).replace('_', ' ') + ') '));
    });
    if (S.instances.length === 0) fs.appendChild(h('p', { class: 'muted', text: 'No instances yet: create and pair one first.' }));
  }
  function csvHeader(text) {
    var line = text.replace(/^\uFEFF/, '').split(/\r?\n/)[0] || '';
    return line.split(',').map(function (c) { return c.trim().replace(/^"|"$/g, '').trim(); }).filter(Boolean);
  }
  function readCsv() {
    var file = $('cmp-csv').files[0]; S.csv = null;
    if (!file) return checkVars();
    var reader = new FileReader();
    reader.onload = function () {
      var text = String(reader.result);
      var rows = text.split(/\r?\n/).filter(function (l) { return l.trim(); }).length - 1;
      S.csv = { text: text, columns: csvHeader(text), rows: rows };
      checkVars();
    };
    reader.readAsText(file);
  }
  /** Says what the CSV holds and which of the template's variables it lacks (the gateway checks again). */
  function checkVars() {
    var info = $('cmp-csv-info'); if (!info || !S.csv) return;
    var cols = S.csv.columns, missing = [];
    ($('cmp-message').value.match(/\{\{\s*[^{}\s]+\s*\}\}/g) || []).forEach(function (v) {
      var name = v.replace(/[{}\s]/g, '');
      if (name !== 'phone' && cols.indexOf(name) < 0 && missing.indexOf(name) < 0) missing.push(name);
    });
    info.textContent = S.csv.rows + ' row(s); columns: ' + cols.join(', ') + (cols.indexOf('phone') < 0 ? ' \u2014 no phone column!' : '') +
      (missing.length ? ' \u2014 not in the CSV: ' + missing.join(', ') : '');
    info.className = cols.indexOf('phone') < 0 || missing.length ? 'hint error' : 'hint';
  }
  function createCampaign(ev) {
    ev.preventDefault();
    if (!S.csv) return toast('Choose the CSV file of recipients.');
    var ids = [];
    document.querySelectorAll('input[name="cmp-instance"]:checked').forEach(function (c) { ids.push(c.value); });
    if (ids.length === 0) return toast('Choose at least one instance to send from.');
    var body = { name: $('cmp-name').value.trim(), message: $('cmp-message').value, instanceIds: ids, recipientsCsv: S.csv.text,
      timeZone: $('cmp-zone').value.trim() || 'UTC', dailyCap: Number($('cmp-cap').value) || 200, paceSeconds: Number($('cmp-pace').value) || 0 };
    var from = $('cmp-quiet-from').value, to = $('cmp-quiet-to').value;
    if (from && to) body.quietHours = { from: from, to: to };
    var start = $('cmp-start').checked;
    api('POST', '/campaigns', body).then(function (c) {
      return start ? api('POST', '/campaigns/' + encodeURIComponent(c.id) + '/start') : c;
    }).then(function (c) {
      toast('Campaign \u201c' + c.name + '\u201d: ' + c.state);
      $('campaign-form').reset(); S.csv = null; $('cmp-csv-info').className = 'hint';
      $('cmp-csv-info').textContent = 'A header row naming a phone column (numbers with country code); every other column is a variable for the message.';
      refreshCampaigns();
    }, fail);
  }

`;
