// A stand-in for `curl`, in Node, for the tests that run the READMEs' curl sessions as written
// (test/e2e/readme-sessions.test.ts): the suite needs no curl on the machine (README.md, "Two
// commands"). It knows the options those sessions use — -s, -S, -X METHOD, -H 'Name: value',
// -d DATA, -o FILE, -w FORMAT (only \n) — and refuses any other, so a README that starts using
// another option fails here instead of being silently misread. Like curl: the body goes to stdout
// (or -o FILE), any HTTP status exits 0, a failed connection exits 7 (printed only with -S).
//
//   node test/helpers/curl-standin.mjs [curl options] URL
/* global fetch -- Node 20's own */
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
let method;
const headers = {};
let data;
let output;
let writeOut = '';
let showErrors = false;
let url;

function fail(message, code = 2) {
  process.stderr.write(`curl (stand-in): ${message}\n`);
  process.exit(code);
}

for (let i = 0; i < args.length; i += 1) {
  const arg = args[i];
  const value = () => {
    i += 1;
    if (i >= args.length) fail(`option ${arg} needs a value`);
    return args[i];
  };
  if (/^-[sS]+$/.test(arg)) {
    if (arg.includes('S')) showErrors = true;
  } else if (arg === '-X') method = value();
  else if (arg === '-H') {
    const header = value();
    const colon = header.indexOf(':');
    if (colon <= 0) fail(`bad header ${header}`);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  } else if (arg === '-d') data = value();
  else if (arg === '-o') output = value();
  else if (arg === '-w') writeOut = value().replaceAll('\\n', '\n');
  else if (arg.startsWith('-')) fail(`option ${arg} is not one the READMEs use (see test/helpers/curl-standin.mjs)`);
  else if (url === undefined) url = arg;
  else fail(`a second URL ${arg}`);
}
if (url === undefined) fail('no URL');
if (!/^https?:\/\//.test(url)) url = `http://${url}`;
if (data !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';

try {
  const res = await fetch(url, { method: method ?? (data === undefined ? 'GET' : 'POST'), headers, body: data, redirect: 'manual' });
  const body = Buffer.from(await res.arrayBuffer());
  if (output !== undefined) writeFileSync(output, body);
  else process.stdout.write(body);
  process.stdout.write(writeOut);
} catch (err) {
  if (showErrors) process.stderr.write(`curl (stand-in): (7) ${err.cause?.message ?? err.message}\n`);
  process.exit(7);
}
