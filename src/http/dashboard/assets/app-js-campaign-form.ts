// The dashboard's script, part 6 of 9 (see `app-js-base.ts`): a new campaign (docs/contract.md §12)
// from a CSV file with a header row — sent as it is (`recipientsCsv`: the gateway parses and checks
// it; the page only reads the header to say which of the template's `{{column}}` variables it
// lacks) — the instances that send, the basic settings (time zone, daily cap, quiet hours, pacing),
// created and started at once or kept as a draft. Shown only with the send scope over the account.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_CAMPAIGN_FORM = String.raw`  // ---- a new campaign ----
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
        h('div', { class: 'actions' }, h('label', { class: 'inline' }, h('input', { id: 'cmp-start', type: 'checkbox', checked: true }), 'Start at once (otherwise a draft)')),
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
