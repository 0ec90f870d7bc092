// The dashboard's script, part 3 of 9 (see `app-js-base.ts`): the selected instance's
// conversations, from the gateway's stored copy — the chat list (`GET /chats`: unread counts, the
// last message), one chat's messages (`GET /chat-messages/{phone}`: edits show the new text,
// deletions stay as `revoked`, received files through their signed `mediaUrl`), a reply
// (`POST /send-text`) and mark-read (`POST /modify-chat`). The event stream (part 5) calls
// chatsOnEvent; the copy is written just after an event goes out, so a change is read back a few
// times over the next seconds rather than once. Every text from a chat goes in through textContent
// (the `h` helper), never as HTML.
// Kept free of backticks and template placeholders: it lives inside a String.raw literal.
export const DASHBOARD_JS_CHATS = String.raw`  // ---- conversations ----
  function conversationsCard() {
    return h('section', { id: 'conversations', class: 'card', 'aria-labelledby': 'conv-title' },
      h('div', { class: 'detail-head' }, h('h2', { id: 'conv-title', text: 'Conversations' }),
        h('button', { type: 'button', class: 'secondary', text: 'Refresh', 'aria-label': 'Refresh chats', on: { click: function () { refreshChats(); refreshThread(); } } })),
      h('div', { class: 'conv' },
        h('nav', { 'aria-label': 'Chats' }, h('ul', { id: 'chat-list', class: 'chat-list' })),
        h('div', { id: 'thread', class: 'thread' }, h('p', { class: 'muted', text: 'Select a chat to read it.' }))));
  }
  function chatTitle(c) { return c.name || (c.isGroup ? c.phone : '+' + c.phone); }
  function chatPhoneLabel(phone) { return /^[0-9]+$/.test(phone) ? '+' + phone : phone; }
  var KIND = { image: 'Photo', video: 'Video', audio: 'Audio', ptt: 'Voice message', document: 'Document', sticker: 'Sticker', location: 'Location', contact: 'Contact', poll: 'Poll', revoked: 'Message deleted' };
  function preview(m) {
    if (!m) return '';
    var label = KIND[m.type] || '';
    var text = m.type === 'revoked' ? label : (m.body ? (label && m.type !== 'text' ? label + ': ' : '') + m.body : label || m.type);
    return (m.fromMe ? 'You: ' : '') + text;
  }
  function refreshChats() {
    var id = S.selected; if (!id || !$('chat-list')) return Promise.resolve();
    return iapi('GET', '/chats?pageSize=100').then(function (list) {
      if (id !== S.selected || !$('chat-list')) return;
      S.chats = list; renderChats();
      if (S.chatOpen) renderThreadHead();
    }, fail);
  }
  function chatOf(phone) { for (var i = 0; i < (S.chats || []).length; i++) if (S.chats[i].phone === phone) return S.chats[i]; return null; }
  function unreadOf(c) { return c.unread === '-1' ? -1 : c.messagesUnread; }
  function renderChats() {
    var ul = clear($('chat-list')); if (!ul) return;
    if (!S.chats || S.chats.length === 0) ul.appendChild(h('li', { class: 'muted', text: 'No chats stored yet: messages sent or received since pairing appear here.' }));
    (S.chats || []).forEach(function (c) {
      var n = unreadOf(c);
      ul.appendChild(h('li', null, h('button', { type: 'button', 'data-chat': c.phone, 'aria-current': c.phone === S.chatOpen ? 'true' : 'false',
        on: { click: function () { openChat(c.phone); } } },
        h('span', { class: 'chat-top' }, h('span', { class: 'chat-name', text: chatTitle(c) }),
          h('span', { class: 'muted chat-time', text: Number(c.lastMessageTime) ? time(Number(c.lastMessageTime)) : '' })),
        h('span', { class: 'chat-bottom' }, h('span', { class: 'muted chat-last', text: preview(c.lastMessage) }),
          n !== 0 ? h('span', { class: 'unread', 'aria-label': n > 0 ? n + ' unread' : 'marked unread', text: n > 0 ? String(n) : '\u2022' }) : null))));
    });
  }
  function openChat(phone) {
    S.chatOpen = phone; S.chatFor = S.selected; S.threadShown = false;
    renderChats();
    var t = clear($('thread'));
    t.appendChild(h('div', { class: 'detail-head' }, h('h3', { id: 'thread-title' }),
      may('send') ? h('button', { type: 'button', class: 'secondary', id: 'mark-read', text: 'Mark read', on: { click: markRead } }) : null));
    t.appendChild(h('p', { id: 'thread-sub', class: 'muted' }));
    t.appendChild(h('ol', { id: 'messages', class: 'messages', 'aria-label': 'Messages', 'aria-live': 'polite' }));
    // Replying and marking read are the send scope's: a read-only key reads.
    if (may('send')) t.appendChild(h('form', { id: 'reply-form', class: 'row', on: { submit: reply } },
      h('label', { for: 'reply-text', text: 'Reply' }), h('input', { id: 'reply-text', required: true, autocomplete: 'off' }),
      h('button', { type: 'submit', text: 'Send reply' })));
    renderThreadHead();
    refreshThread();
  }
  function renderThreadHead() {
    var c = chatOf(S.chatOpen); if (!$('thread-title')) return;
    $('thread-title').textContent = c ? chatTitle(c) : chatPhoneLabel(S.chatOpen);
    var n = c ? unreadOf(c) : 0;
    $('thread-sub').textContent = chatPhoneLabel(S.chatOpen) + ' \u00b7 ' + (n > 0 ? n + ' unread' : n < 0 ? 'marked unread' : 'all read');
  }
  function refreshThread() {
    var id = S.selected, phone = S.chatOpen;
    if (!id || !phone || S.chatFor !== id || !$('messages')) return Promise.resolve();
    return iapi('GET', '/chat-messages/' + encodeURIComponent(phone) + '?amount=50').then(function (list) {
      if (id !== S.selected || phone !== S.chatOpen || !$('messages')) return;
      renderMessages(list.slice().reverse());
    }, function (err) { if (err.status !== 404) fail(err); });
  }
  function renderMessages(list) {
    var ol = $('messages');
    var atEnd = ol.scrollHeight - ol.scrollTop - ol.clientHeight < 40;
    clear(ol);
    if (list.length === 0) ol.appendChild(h('li', { class: 'muted', text: 'No messages stored for this chat.' }));
    list.forEach(function (m) {
      var revoked = m.type === 'revoked';
      var media = null;
      if (!revoked && m.mediaUrl) {
        var link = samePath(m.mediaUrl);
        media = m.type === 'image' || m.type === 'sticker'
          ? h('a', { href: link, target: '_blank', rel: 'noopener' }, h('img', { src: link, alt: (KIND[m.type] || m.type) + (m.fromMe ? ' sent' : ' from ' + chatPhoneLabel(m.participantPhone || m.phone)) }))
          : h('a', { href: link, target: '_blank', rel: 'noopener', text: 'Open ' + (KIND[m.type] || m.type).toLowerCase() });
      }
      var text = revoked ? 'This message was deleted.' : m.body;
      var meta = [time(m.momment)];
      if (m.participantPhone) meta.unshift('+' + m.participantPhone);
      if (S.edited[m.messageId] && !revoked) meta.push('edited');
      if (m.fromMe) meta.push(m.status);
      ol.appendChild(h('li', { class: 'msg ' + (m.fromMe ? 'out' : 'in') + (revoked ? ' revoked' : ''), 'data-message-id': m.messageId },
        media, text ? h('p', { class: 'msg-text', text: text }) : (media ? null : h('p', { class: 'msg-text muted', text: KIND[m.type] || m.type })),
        h('p', { class: 'msg-meta', text: meta.join(' \u00b7 ') })));
    });
    if (atEnd || !S.threadShown) ol.scrollTop = ol.scrollHeight;
    S.threadShown = true;
  }
  /** The stored copy follows an event by a moment: read it back now and twice more. */
  function chatsSoon(thread) {
    [300, 1500, 4000].forEach(function (ms, i) {
      later('chats' + i, ms, refreshChats);
      if (thread) later('thread' + i, ms, refreshThread);
    });
  }
  function reply(ev) {
    ev.preventDefault();
    var phone = S.chatOpen, text = $('reply-text').value;
    if (!phone || !text) return;
    iapi('POST', '/send-text', { phone: phone, message: text }).then(function (r) {
      S.sends[r.messageId] = { to: phone, status: 'queued', instanceId: S.selected };
      $('reply-text').value = ''; renderSent(); toast('Reply queued'); chatsSoon(true);
    }, fail);
  }
  function markRead() {
    var phone = S.chatOpen; if (!phone) return;
    iapi('POST', '/modify-chat', { phone: phone, action: 'read' }).then(function () { toast('Marked read'); refreshChats(); }, fail);
  }
  function chatsOnEvent(type, body) {
    if (type === 'ReceivedCallback') {
      if (body.isEdit && body.messageId) S.edited[body.messageId] = true;
      chatsSoon(body.phone === S.chatOpen);
    }
    if (type === 'MessageStatusCallback' || type === 'DeliveryCallback') chatsSoon(!!S.chatOpen);
  }

`;
