// The dashboard's stylesheet: system fonts, high-contrast colours (text ≥ 4.5:1 on its background),
// a visible focus ring, one column under 720 px.
export const DASHBOARD_CSS = String.raw`
:root { --fg: #1b1f24; --muted: #4a5563; --bg: #f4f6f8; --card: #fff; --line: #cfd6de; --accent: #0b5cad; --accent-fg: #fff;
  --ok: #0d6b2f; --ok-bg: #def5e5; --warn: #7a4a00; --warn-bg: #fff1d6; --bad: #a1121b; --bad-bg: #fde3e4; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 6px; z-index: 10; }
.top { display: flex; align-items: center; gap: 12px; padding: 10px 16px; background: #12263f; color: #fff; }
.top h1 { font-size: 18px; margin: 0; flex: 1; }
.live { margin: 0; font-size: 13px; }
#main { padding: 16px; max-width: 1280px; margin: 0 auto; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin-bottom: 16px; }
.narrow { max-width: 420px; margin: 40px auto; }
h2 { font-size: 17px; margin: 0 0 10px; } h3 { font-size: 15px; margin: 16px 0 8px; }
label { display: block; font-weight: 600; margin: 8px 0 4px; }
label.inline { display: inline-flex; align-items: center; gap: 6px; font-weight: 400; margin: 0; }
input, select, textarea { font: inherit; padding: 7px 9px; border: 1px solid #8a96a3; border-radius: 6px; width: 100%; background: #fff; color: var(--fg); }
input[type=checkbox] { width: auto; }
button { font: inherit; padding: 7px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); cursor: pointer; min-height: 36px; white-space: nowrap; }
button.secondary { background: #fff; color: var(--accent); }
.top button.secondary { border-color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .6; cursor: default; }
:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.hint, .muted { color: var(--muted); font-size: 13px; }
.error { color: var(--bad); min-height: 1.2em; }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
.row > label { flex-basis: 100%; margin-bottom: 0; }
.row > input, .row > select { flex: 1 1 160px; width: auto; }
.layout { display: grid; grid-template-columns: 300px minmax(0, 1fr); gap: 16px; align-items: start; }
.layout > *, .grid2 > *, .row > * { min-width: 0; }
.instance-list { list-style: none; margin: 0 0 8px; padding: 0; }
.instance-list button { width: 100%; text-align: left; background: #fff; color: var(--fg); border: 1px solid var(--line); margin-bottom: 6px; display: flex; justify-content: space-between; gap: 8px; }
.instance-list button { white-space: normal; flex-wrap: wrap; align-items: center; }
.instance-list button[aria-current=true] { border: 2px solid var(--accent); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: var(--warn-bg); color: var(--warn); white-space: nowrap; }
.badge.connected { background: var(--ok-bg); color: var(--ok); }
.badge.logged_out, .badge.banned, .badge.replaced, .badge.failed, .badge.cancelled { background: var(--bad-bg); color: var(--bad); }
.badge.running, .badge.done, .badge.sent, .badge.read, .badge.delivered, .badge.READ, .badge.RECEIVED, .badge.SENT, .badge.PLAYED { background: var(--ok-bg); color: var(--ok); }
.facts { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 4px 12px; margin: 0; } .facts dt { color: var(--muted); } .facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.detail-head { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.detail-head h2 { margin: 0; flex: 1 1 auto; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 10px; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.qr { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.qr img { width: 264px; height: 264px; image-rendering: pixelated; border: 1px solid var(--line); background: #fff; }
.code { font: 600 22px/1.2 ui-monospace, monospace; letter-spacing: 2px; }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
caption { text-align: left; color: var(--muted); padding-bottom: 4px; }
th, td { text-align: left; padding: 5px 6px; border-bottom: 1px solid var(--line); vertical-align: top; word-break: break-word; }
th { font-weight: 600; }
.counts th { word-break: normal; white-space: nowrap; } .counts td[data-count] { text-align: right; }
.counts td:first-child { min-width: 140px; word-break: normal; overflow-wrap: anywhere; }
.counts th, .counts td { padding: 5px 4px; }
.actions-cell button { margin: 0 4px 4px 0; min-height: 30px; padding: 3px 8px; }
.scroll { overflow-x: auto; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 10px 0; display: flex; flex-wrap: wrap; gap: 6px 16px; }
textarea { resize: vertical; }
progress { width: 90px; vertical-align: middle; accent-color: var(--ok); }
.hint.error { color: var(--bad); }
.media { display: flex; flex-wrap: wrap; gap: 8px; } .media figure { margin: 0; width: 140px; } .media img { width: 140px; height: 140px; object-fit: cover; border: 1px solid var(--line); border-radius: 6px; }
.media figcaption { font-size: 12px; color: var(--muted); }
.log { font: 12px/1.4 ui-monospace, monospace; max-height: 220px; overflow: auto; margin: 0; padding: 0; list-style: none; }
.log li { border-bottom: 1px dotted var(--line); padding: 2px 0; }
.secret { font: 13px ui-monospace, monospace; word-break: break-all; }
.conv { display: grid; grid-template-columns: minmax(200px, 300px) minmax(0, 1fr); gap: 12px; align-items: start; }
.chat-list { list-style: none; margin: 0; padding: 0; max-height: 480px; overflow-y: auto; }
.chat-list button { width: 100%; text-align: left; background: #fff; color: var(--fg); border: 1px solid var(--line); margin-bottom: 6px; display: flex; flex-direction: column; gap: 2px; white-space: normal; }
.chat-list button[aria-current=true] { border: 2px solid var(--accent); }
.chat-top, .chat-bottom { display: flex; justify-content: space-between; gap: 8px; width: 100%; min-width: 0; }
.chat-name { font-weight: 600; overflow-wrap: anywhere; }
.chat-last { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.chat-time { font-size: 12px; white-space: nowrap; }
.unread { background: var(--ok); color: #fff; border-radius: 10px; padding: 0 7px; font-size: 12px; font-weight: 700; min-width: 20px; text-align: center; }
.thread { min-width: 0; }
.thread h3 { margin: 0; flex: 1 1 auto; overflow-wrap: anywhere; }
.messages { list-style: none; margin: 8px 0; padding: 8px; max-height: 420px; overflow-y: auto; background: var(--bg); border-radius: 6px; display: flex; flex-direction: column; gap: 6px; }
.msg { max-width: 80%; padding: 6px 10px; border-radius: 8px; background: #fff; border: 1px solid var(--line); align-self: flex-start; overflow-wrap: anywhere; }
.msg.out { align-self: flex-end; background: #e3effc; }
.msg.revoked .msg-text { font-style: italic; color: var(--muted); }
.msg p { margin: 0; }
.msg img { display: block; max-width: 220px; max-height: 220px; width: auto; border-radius: 6px; margin-bottom: 4px; }
.msg-meta { font-size: 12px; color: var(--muted); }
.toast { position: fixed; bottom: 12px; left: 50%; transform: translateX(-50%); background: #12263f; color: #fff; padding: 8px 14px; border-radius: 6px; display: none; max-width: 90vw; }
.toast.show { display: block; }
@media (max-width: 720px) {
  #main { padding: 8px; }
  .layout, .grid2, .conv { grid-template-columns: 1fr; }
  .msg img { max-width: 100%; }
  .qr img { width: 232px; height: 232px; }
}
`;
