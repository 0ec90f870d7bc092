// The dashboard's script, part 7 of 9 (see `app-js-base.ts`): the account's opt-out (suppression)
// list, an account view (part 5) — the numbers, 100 a page with "More" (`GET /opt-outs`), added by
// hand (`POST /opt-outs`) or taken off (`DELETE /opt-outs/{phone}`) with the manage scope, and the
// CSV export (`GET /opt-outs/export`). The export needs the Client-Token header, which a plain link
// cannot carry (and a secret never goes in a URL): the page fetches it and hands the browser the
// file as a same-origin blob to save.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_OPTOUTS = String.raw`  // ---- the opt-out list ----
  function optOutsView() {
    var d = $('detail');
    d.appendChild(h('section', { class: 'card', 'aria-labelledby': 'optouts-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'optouts-title', text: 'Opt-out list' }),
        h('button', { type: 'button', class: 'secondary', text: 'Export CSV', on: { click: exportOptOuts } }),
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh opt-out list', on: { click: function () { refreshOptOuts(); } } })),
      h('p', { class: 'muted', text: 'Numbers that replied an opt-out keyword to any instance, or were added here. Scheduled sends and campaigns skip them.' }),
      accountWide('manage') ? h('form', { id: 'optout-form', class: 'row', on: { submit: addOptOuts } },
        h('label', { for: 'optout-phones', text: 'Add numbers (with country code; several separated by commas or spaces)' }),
        h('input', { id: 'optout-phones', required: true, inputmode: 'tel', autocomplete: 'off' }),
        h('button', { type: 'submit', text: 'Add to list' })) : null,
      h('div', { class: 'scroll' }, h('table', null, h('caption', { id: 'optout-count', text: '' }),
        h('thead', null, h('tr', null, ['Phone', 'Source', 'Instance', 'Message', 'Since', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', { id: 'optout-body' }))),
      h('div', { class: 'actions' }, h('button', { type: 'button', id: 'optout-more', class: 'secondary', text: 'More', hidden: true, on: { click: function () { refreshOptOuts(S.optNext); } } }))));
    refreshOptOuts();
  }
  function instanceName(id) { for (var i = 0; i < S.instances.length; i++) if (S.instances[i].instanceId === id) return S.instances[i].name; return id || ''; }
  /** The first page (after = null) or the next one, added below. */
  function refreshOptOuts(after) {
    if (S.view !== 'optouts') return Promise.resolve();
    return api('GET', '/opt-outs?pageSize=100' + (after ? '&after=' + encodeURIComponent(after) : '')).then(function (page) {
      if (S.view !== 'optouts' || !$('optout-body')) return;
      S.optOuts = after ? S.optOuts.concat(page.optOuts) : page.optOuts; S.optNext = page.next;
      renderOptOuts();
    }, fail);
  }
  function renderOptOuts() {
    var tb = clear($('optout-body'));
    if (S.optOuts.length === 0) tb.appendChild(h('tr', null, h('td', { colspan: 6, class: 'muted', text: 'Nobody has opted out.' })));
    S.optOuts.forEach(function (o) {
      tb.appendChild(h('tr', { 'data-optout': o.phone }, h('td', { text: '+' + o.phone }), h('td', { text: o.source === 'api' ? 'added' : 'keyword' }),
        h('td', { text: o.instanceId ? instanceName(o.instanceId) : '' }), h('td', { text: o.keyword || '' }), h('td', { text: time(o.created) }),
        h('td', null, accountWide('manage') ? h('button', { type: 'button', class: 'secondary', 'aria-label': 'Remove +' + o.phone + ' from the opt-out list', text: 'Remove',
          on: { click: function () { removeOptOut(o.phone); } } }) : null)));
    });
    $('optout-count').textContent = S.optOuts.length + (S.optNext ? '+ numbers (more below)' : ' number(s)');
    $('optout-more').hidden = !S.optNext;
  }
  function addOptOuts(ev) {
    ev.preventDefault();
    var phones = $('optout-phones').value.split(/[\s,;]+/).map(function (p) { return p.replace(/[^0-9]/g, ''); }).filter(Boolean);
    if (phones.length === 0) return toast('Write at least one number.');
    api('POST', '/opt-outs', { phones: phones }).then(function (r) {
      toast(r.added + ' added' + (r.added < phones.length ? ' (' + (phones.length - r.added) + ' already listed)' : ''));
      $('optout-phones').value = ''; refreshOptOuts();
    }, fail);
  }
  function removeOptOut(phone) {
    if (!confirm('Take +' + phone + ' off the opt-out list? Campaigns and scheduled sends may message it again.')) return;
    api('DELETE', '/opt-outs/' + encodeURIComponent(phone)).then(function () { toast('+' + phone + ' removed'); refreshOptOuts(); }, fail);
  }
  function exportOptOuts() {
    fetch('/opt-outs/export', { headers: { 'Client-Token': S.token }, cache: 'no-store' }).then(function (res) {
      if (!res.ok) { var err = new Error('Export failed: HTTP ' + res.status); err.status = res.status; throw err; }
      return res.blob();
    }).then(function (blob) {
      var url = URL.createObjectURL(blob);
      var a = h('a', { href: url, download: 'opt-outs.csv', hidden: true });
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    }).catch(fail);
  }

`;
