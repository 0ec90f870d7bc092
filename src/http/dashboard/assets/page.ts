// The dashboard's one HTML page: a skeleton the script fills in. No inline script or style, so the
// Content-Security-Policy can forbid both.
export const DASHBOARD_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>zapgate dashboard</title>
<link rel="icon" href="/dashboard/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <h1>zapgate</h1>
  <p id="live" class="live" role="status" aria-live="polite" hidden></p>
  <p id="whoami" class="live" hidden></p>
  <button type="button" id="signout" class="secondary" hidden>Sign out</button>
</header>
<div id="main" tabindex="-1">
  <section id="signin" class="card narrow" aria-labelledby="signin-title">
    <h2 id="signin-title">Sign in</h2>
    <form id="signin-form" autocomplete="off">
      <label for="signin-token">Client-Token or API key</label>
      <input id="signin-token" name="token" type="password" required autocomplete="off" spellcheck="false">
      <p class="hint">The account's Client-Token, or an API key (<code>zk_…</code>): the page then offers only what the key may do. Kept in this browser tab only (session storage) and sent as the <code>Client-Token</code> header.</p>
      <button type="submit">Sign in</button>
      <p id="signin-error" class="error" role="alert"></p>
    </form>
  </section>
  <div id="app" class="layout" hidden>
    <aside class="side">
      <section class="card" aria-labelledby="instances-title">
        <h2 id="instances-title">Instances</h2>
        <ul id="instance-list" class="instance-list"></ul>
        <form id="create-form" class="row">
          <label for="create-name">New instance name</label>
          <input id="create-name" name="name" required maxlength="100">
          <button type="submit">Create</button>
        </form>
      </section>
      <section class="card" aria-labelledby="health-title">
        <h2 id="health-title">Health</h2>
        <dl id="health" class="facts"></dl>
      </section>
      <nav id="account-nav" class="card" aria-labelledby="account-nav-title" hidden>
        <h2 id="account-nav-title">Account</h2>
        <ul class="instance-list">
          <li><button type="button" id="nav-campaigns" data-view="campaigns" aria-current="false">Campaigns</button></li>
          <li><button type="button" id="nav-optouts" data-view="optouts" aria-current="false">Opt-out list</button></li>
        </ul>
      </nav>
      <div id="account-admin"></div>
    </aside>
    <section id="detail" class="detail" aria-live="off"><p class="muted">Select or create an instance.</p></section>
  </div>
</div>
<div id="toast" class="toast" role="status" aria-live="polite"></div>
</body>
</html>
`;
