// The dashboard's script, part 8 of 9 (see `app-js-base.ts`): the selected instance's number
// health, as `GET …/health` gives it (docs/contract.md §12) — the last day's messages sent,
// delivered, read and failed with their ratios and the failures by code, first-contact sends per
// day against the warm-up's cap, disconnections and their reasons, and whether the anti-ban
// governor has paused the number and why. Read when the instance opens, every 15 s with the side
// panel's health, and shortly after a delivery event.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_NUMBER_HEALTH = String.raw`  // ---- number health ----
  function numberHealthCard() {
    return h('section', { id: 'number-health', class: 'card', 'aria-labelledby': 'nh-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'nh-title', text: 'Number health' }), h('span', { id: 'nh-badge', role: 'status', 'aria-live': 'polite' }),
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh number health', on: { click: function () { refreshNumberHealth(); } } })),
      h('p', { id: 'nh-since', class: 'muted' }),
      h('div', { class: 'grid2' }, h('dl', { id: 'nh-figures', class: 'facts' }), h('dl', { id: 'nh-antiban', class: 'facts' })),
      h('h3', { text: 'Failures by reason' }), h('ul', { id: 'nh-failures', class: 'log' }),
      h('h3', { text: 'Disconnections' }), h('ul', { id: 'nh-disconnections', class: 'log' }));
  }
  function pct(r) { return r === null || r === undefined ? '\u2014' : Math.round(r * 1000) / 10 + ' %'; }
  function fact(dl, label, value, key) { dl.appendChild(h('dt', { text: label })); dl.appendChild(h('dd', { 'data-health': key || null, text: String(value) })); }
  function refreshNumberHealth() {
    var id = S.selected; if (!id || !S.tokens[id] || !$('nh-figures') || !may('read')) return Promise.resolve();
    return iapi('GET', '/health').then(function (nh) {
      if (id !== S.selected || !$('nh-figures')) return;
      renderNumberHealth(nh);
    }, fail);
  }
  function renderNumberHealth(nh) {
    var m = nh.messages, st = nh.strangers, w = st.warmup, g = nh.governor;
    $('nh-since').textContent = 'Rolling day since ' + time(nh.since) + (nh.phone ? ' \u00b7 +' + nh.phone : '') + ' \u00b7 ' + nh.status;
    clear($('nh-badge')).appendChild(h('span', { class: 'badge ' + (g.paused ? 'failed' : 'connected'), text: g.paused ? 'sending paused' : 'sending' }));
    var f = clear($('nh-figures'));
    fact(f, 'Sent', m.sent, 'sent');
    fact(f, 'Delivered', m.delivered + ' (' + pct(m.deliveredRatio) + ')', 'delivered');
    fact(f, 'Read', m.read + ' (' + pct(m.readRatio) + ')', 'read');
    fact(f, 'Failed', m.failed + ' (' + pct(m.failedRatio) + ' of attempts)', 'failed');
    fact(f, 'First contacts today', st.lastDay, 'first-contacts');
    fact(f, 'First contacts, last 7 days', st.perDay.join(' \u00b7 '), 'first-contacts-week');
    var a = clear($('nh-antiban'));
    fact(a, 'Anti-ban', g.enabled ? 'on' : 'off', 'antiban');
    fact(a, 'Warm-up', (w.day === null ? 'never paired' : 'day ' + w.day + ', ' + pct(w.factor) + ' of the caps') + (g.enabled ? '' : ' (with anti-ban on)'), 'warmup');
    fact(a, 'First-contact cap', w.capPerDay === null ? 'none' : w.capPerDay + ' a day, ' + (w.capPerHour === null ? 'no hourly cap' : w.capPerHour + ' an hour'), 'cap');
    fact(a, 'Governor', g.paused ? 'paused' + (g.until ? ' until ' + time(g.until) : '') : 'not paused', 'governor');
    if (g.paused || g.reason) fact(a, 'Pause reason', g.reason || '\u2014', 'pause-reason');
    if (g.restrictions) fact(a, 'Pauses in a row', g.restrictions, 'restrictions');
    var fl = clear($('nh-failures'));
    if (m.failures.length === 0) fl.appendChild(h('li', { class: 'muted', text: 'No failures in the last day.' }));
    m.failures.forEach(function (x) { fl.appendChild(h('li', { text: x.code + ' \u00d7' + x.count + (x.reason ? ' \u2014 ' + x.reason : '') })); });
    var dl = clear($('nh-disconnections'));
    if (nh.disconnections.count === 0) dl.appendChild(h('li', { class: 'muted', text: 'No disconnections in the last day.' }));
    nh.disconnections.reasons.forEach(function (x) { dl.appendChild(h('li', { text: x.status + ' \u00d7' + x.count + (x.reason ? ' \u2014 ' + x.reason : '') + ' \u00b7 last ' + time(x.last) })); });
  }

`;
