#!/usr/bin/env node
// Runs `npm run demo` and follows the session it prints — pair the virtual phone with the
// instance's QR, check the status, send a text and a picture to the demo contact, and see that the
// contact's phone decrypted both — through Node's fetch (no curl). Exits 0 when every step worked,
// 1 (with the step and the demo's output) otherwise. scripts/fresh-machine.sh runs it on a fresh
// machine; it needs only an installed checkout.
//
//   node scripts/demo-session.mjs [--port N] [--simnet-port N]   (free loopback ports by default)
/* global fetch, AbortSignal -- Node 20's own */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const STEP_LIMIT_MS = 60_000;
const START_LIMIT_MS = 120_000;
/** A 1×1 PNG: the picture the session sends (its media go through simnet's HTTPS media host). */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function option(name) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const port = option('--port') ?? String(await freePort());
const simnetPort = option('--simnet-port') ?? String(await freePort());
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const demo = spawn(npm, ['run', '--silent', 'demo', '--', '--port', port, '--simnet-port', simnetPort], {
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true, // its own process group: npm, node and everything under them stop together
});
let output = '';
demo.stdout.on('data', (d) => (output += d));
demo.stderr.on('data', (d) => (output += d));
const exited = new Promise((resolve) => demo.once('exit', (code, signal) => resolve(code ?? signal)));

/** Polls `probe` until it returns a value (not undefined), for at most `limitMs`. */
async function until(what, limitMs, probe) {
  const deadline = Date.now() + limitMs;
  let last = '';
  for (let i = 0; Date.now() < deadline && i < 10_000; i += 1) {
    if (demo.exitCode !== null || demo.signalCode !== null) throw new Error(`the demo exited (${await exited}) while waiting for ${what}`);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err.message;
    }
    await sleep(250);
  }
  throw new Error(`no ${what} after ${limitMs / 1000} s${last ? ` (${last})` : ''}`);
}

async function call(method, url, headers = {}, body) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url.replace(/\/token\/[^/]+/, '/token/…')} answered ${res.status}: ${text.slice(0, 300)}`);
  return text === '' ? {} : JSON.parse(text);
}

const started = Date.now();
let step = 'start';
try {
  // The instructions it prints name the gateway, simnet's admin API, the Client-Token and the instance.
  const printed = await until('instructions from the demo', START_LIMIT_MS, () => {
    const admin = /talks to simnet, an offline WhatsApp network \((http[^)]+)\)/.exec(output)?.[1];
    const token = /Client-Token: (\S+)/.exec(output)?.[1];
    const api = /Instance: +(http\S+)/.exec(output)?.[1];
    const phone = /Pair the virtual phone (\d+)/.exec(output)?.[1];
    const contact = /to the contact (\d+)/.exec(output)?.[1];
    return admin && token && api && phone && contact ? { admin, token, api, phone, contact } : undefined;
  });
  const { admin, token, api, phone, contact } = printed;
  const auth = { 'client-token': token };
  console.log(`demo up in ${Date.now() - started} ms (gateway ${new URL(api).origin}, simnet ${admin})`);

  step = 'pair';
  await until('pairing', STEP_LIMIT_MS, async () => {
    const qr = await call('GET', `${api}/qr-code`, auth);
    if (typeof qr.value !== 'string' || qr.value === '') return undefined;
    await call('POST', `${admin}/users/${phone}/scan`, {}, { qr: qr.value });
    return true;
  });
  await until('"connected":true', STEP_LIMIT_MS, async () => ((await call('GET', `${api}/status`, auth)).connected === true ? true : undefined));
  console.log(`paired ${phone} in ${Date.now() - started} ms`);

  step = 'send';
  const text = `Hello from zapgate (${new Date().toISOString()})`;
  const sent = await call('POST', `${api}/send-text`, auth, { phone: contact, message: text });
  const image = await call('POST', `${api}/send-image`, auth, { phone: contact, image: `data:image/png;base64,${PIXEL_PNG}` });
  const received = await until(`the text and the picture at ${contact}`, STEP_LIMIT_MS, async () => {
    const got = await call('GET', `${admin}/users/${contact}/received`);
    const list = Array.isArray(got) ? got : Array.isArray(got.messages) ? got.messages : [];
    const ids = new Set(list.map((m) => m.id ?? m.messageId ?? m.key?.id));
    return ids.has(sent.messageId) && ids.has(image.messageId) ? list.length : undefined;
  });
  console.log(`sent a text and a picture; ${contact} decrypted ${received} message(s) in ${Date.now() - started} ms`);
  console.log('demo session: OK');
} catch (err) {
  console.error(`demo session failed at "${step}": ${err.message}\n--- demo output (last 3000 characters) ---\n${output.slice(-3000)}`);
  process.exitCode = 1;
} finally {
  try {
    process.kill(-demo.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  const code = await Promise.race([exited, sleep(20_000, 'still running')]);
  if (code === 'still running') {
    try {
      process.kill(-demo.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
