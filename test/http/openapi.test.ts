// /openapi.json is what a user reads in /docs and what "Try it out" sends: every operation says
// what it does, answers with a named model (not "Default Response"), carries an example for its
// body and required parameters, and that example really passes the gateway's validation when
// pressed. Operations that need no token say so (`security: []`), so /docs shows no lock on them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  examples?: unknown;
}
interface Media {
  schema?: { $ref?: string };
  example?: unknown;
  examples?: unknown;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
}
interface Document {
  tags?: { name: string }[];
  security?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

// Z-API's tags in its order (docs/zapi-surface.md §1), then zapgate's own: the document lists the ones it
// uses in this order (a new tag goes into server.ts TAGS at its place).
// zapgate's own tags (event stream) sit after the Z-API tag they belong with.
const TAG_ORDER = ['instance', 'messages', 'chats', 'contacts', 'privacy', 'groups', 'communities', 'newsletters', 'status', 'business', 'message queue', 'webhooks', 'sinks', 'event stream', 'partner', 'campaigns', 'api keys', 'audit', 'operations'];
const UNAUTHENTICATED = new Set(['GET /livez', 'GET /readyz', 'GET /metrics', 'GET /media/{id}']);
/** Z-API's partner routes: the account's token as Client-Token or as `Authorization: Bearer` (docs/contract.md §3). */
const PARTNER = new Set(['POST /instances/integrator/on-demand', 'GET /instances', 'PUT /instances/{instanceId}/token/{instanceToken}/integrator/configure-proxy']);
const INSTANCE_PARAMS = new Set(['instanceId', 'instanceToken']);

function operations(doc: Document): { key: string; path: string; method: string; op: Operation }[] {
  const out = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) out.push({ key: `${method.toUpperCase()} ${path}`, path, method: method.toUpperCase(), op });
  }
  return out;
}

function exampleOf(m: Media | Parameter | undefined): unknown {
  if (!m) return undefined;
  if (m.example !== undefined) return m.example;
  if (m.examples && typeof m.examples === 'object') {
    const first = Object.values(m.examples as Record<string, { value?: unknown }>)[0];
    return first?.value;
  }
  return undefined;
}

describe('/openapi.json', () => {
  let g: TestGateway;
  let doc: Document;

  before(async () => {
    g = await startGateway();
    const res = await g.request('GET', '/openapi.json');
    assert.equal(res.status, 200, 'the document is served');
    doc = res.body as Document;
  });
  after(() => g.close());

  test('every operation has a description, a tag in Z-API order, a named 2xx model, and examples for its inputs', () => {
    const ops = operations(doc);
    assert.ok(ops.length >= 45, `only ${ops.length} operations`);
    const tags = doc.tags?.map((t) => t.name) ?? [];
    assert.ok(tags.every((t) => TAG_ORDER.includes(t)), `only known tags: ${tags.join(', ')}`);
    assert.deepEqual(tags, [...tags].sort((a, b) => TAG_ORDER.indexOf(a) - TAG_ORDER.indexOf(b)), 'tags in Z-API order');
    const schemas = doc.components?.schemas ?? {};
    const problems: string[] = [];
    for (const { key, op } of ops) {
      if (!op.description?.trim()) problems.push(`${key}: no description`);
      if (!op.tags?.length || !op.tags.every((t) => tags.includes(t))) problems.push(`${key}: tags ${JSON.stringify(op.tags)} not all in the document's tags`);
      for (const [code, response] of Object.entries(op.responses ?? {})) {
        if (!/^2/.test(code) && (!response.description || response.description === 'Default Response')) problems.push(`${key}: ${code} says nothing`);
      }
      const ok = Object.entries(op.responses ?? {}).filter(([code]) => /^2/.test(code));
      if (ok.length === 0) problems.push(`${key}: no 2xx response`);
      for (const [code, response] of ok) {
        if (!response.description || response.description === 'Default Response') problems.push(`${key}: ${code} is "Default Response"`);
        const json = response.content?.['application/json'];
        if (json) {
          const ref = json.schema?.$ref ?? '';
          const name = ref.replace('#/components/schemas/', '');
          if (!ref.startsWith('#/components/schemas/') || !(name in schemas)) problems.push(`${key}: ${code} JSON schema has no name (${JSON.stringify(json.schema).slice(0, 80)})`);
        }
      }
      const body = op.requestBody?.content?.['application/json'];
      if (op.requestBody && exampleOf(body) === undefined) problems.push(`${key}: body without an example`);
      for (const p of op.parameters ?? []) {
        if (INSTANCE_PARAMS.has(p.name)) {
          // Filled in by the user from POST /instances: the text says so.
          if (!(p as { description?: string }).description) problems.push(`${key}: ${p.name} says nothing`);
          continue;
        }
        if ((p.in === 'path' || p.required) && exampleOf(p) === undefined) problems.push(`${key}: ${p.in} parameter ${p.name} without an example`);
      }
    }
    assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join('\n')}`);
  });

  test('operations that need no token say so; partner routes take a bearer too; every other one needs Client-Token', () => {
    // An API key (docs/api-keys.md) is the alternative on every operation that takes a token.
    assert.deepEqual(doc.security, [{ ClientToken: [] }, { ApiKey: [] }], 'Client-Token (or an API key) is the default');
    for (const { key, op } of operations(doc)) {
      if (UNAUTHENTICATED.has(key)) assert.deepEqual(op.security, [], `${key} shows no lock`);
      else if (PARTNER.has(key)) assert.deepEqual(op.security, [{ ClientToken: [] }, { PartnerToken: [] }, { ApiKey: [] }], `${key} takes any of them`);
      else assert.equal(op.security, undefined, `${key} inherits Client-Token`);
    }
    // The documentation itself is served without a token and is not an operation of the API.
    assert.equal(doc.paths['/docs'], undefined, '/docs is not listed');
    assert.equal(doc.paths['/openapi.json'], undefined, '/openapi.json is not listed');
  });

  test('the documentation is served without a token', async () => {
    assert.equal((await g.request('GET', '/openapi.json', { token: null })).status, 200, '/openapi.json without a token');
    const ui = await g.request('GET', '/docs/', { token: null });
    assert.equal(ui.status, 200, `/docs without a token: ${ui.status}`);
  });

  test('every example passes the gateway validation when pressed (no 400, no 5xx)', async () => {
    const failures: string[] = [];
    for (const { key, path, method, op } of operations(doc)) {
      // An event stream answers 200 and never ends: its own tests cover it (test/http/event-stream.test.ts).
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      // A fresh instance for each operation: some examples delete, disconnect or rotate the token.
      const inst = await g.createInstance(`ex-${op.operationId ?? key}`.slice(0, 60));
      let url = path.replace('{instanceId}', inst.instanceId).replace('{instanceToken}', inst.instanceToken);
      const query = new URLSearchParams();
      for (const p of op.parameters ?? []) {
        if (INSTANCE_PARAMS.has(p.name)) continue;
        const value = exampleOf(p);
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
        else if (p.in === 'query' && value !== undefined) query.set(p.name, String(value));
      }
      if ([...query].length > 0) url += `?${query.toString()}`;
      const body = exampleOf(op.requestBody?.content?.['application/json']);
      const res = await g.request(method, url, body === undefined ? {} : { body });
      // 400 is a validation failure (the example is wrong); 5xx would be a bug whatever the input.
      // Without a paired device many answer 409 (not connected) or 404 (nothing of that id yet): fine.
      if (res.status === 400 || res.status >= 500) failures.push(`${key}: ${res.status} ${res.text.slice(0, 200)} (body ${JSON.stringify(body)?.slice(0, 120)})`);
    }
    assert.deepEqual(failures, [], `${failures.length} examples refused:\n${failures.join('\n')}`);
  });
});
