// Every error code the gateway can put on the wire is documented in docs/errors.md, and every code
// documented there exists (as Fastify's test/internals/errors.test.js does for its Errors.md). For a
// domain code, the status documented is the one the error handler sends.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { categoryOf, DOMAIN_ERROR_CODES, ERROR_CODES } from '../../src/errors.js';
import { statusOf } from '../../src/http/error-handler.js';
import { ErrorBody } from '../../src/http/schemas/common.js';

const DOC = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/** The rows of the doc's tables: `| \`CODE\` | status | … |`. */
const documented = new Map<string, string>();
for (const [, code, status] of DOC.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([0-9x]{3}) \|/gm)) {
  assert.ok(code && status);
  assert.ok(!documented.has(code), `${code} is documented twice`);
  documented.set(code, status);
}

test('every error code is documented in docs/errors.md', () => {
  const missing = ERROR_CODES.filter((code) => !documented.has(code));
  assert.deepEqual(missing, [], `add a row to docs/errors.md for: ${missing.join(', ')}`);
});

test('docs/errors.md documents no code the gateway does not have', () => {
  const unknown = [...documented.keys()].filter((code) => !(ERROR_CODES as readonly string[]).includes(code));
  assert.deepEqual(unknown, [], `not in src/errors.ts: ${unknown.join(', ')}`);
});

test('the documented status of each domain code is the one the error handler sends', () => {
  for (const code of DOMAIN_ERROR_CODES) {
    assert.equal(documented.get(code), String(statusOf(categoryOf(code))), code);
  }
});

test('codes are UPPER_SNAKE and unique', () => {
  for (const code of ERROR_CODES) assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
});

test('the OpenAPI error body lists exactly these codes', () => {
  const code = ErrorBody.properties.code as unknown as { anyOf: { const: string }[] };
  assert.deepEqual(code.anyOf.map((c) => c.const), [...ERROR_CODES]);
});
