// Operations endpoints over real HTTP: liveness, readiness, Prometheus metrics, the OpenAPI 3.1
// document (which must list every registered route) and the interactive docs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { registeredRoutes, toOpenApiPath } from '../helpers/routes.js';

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses?: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  tags: { name: string }[];
}

describe('operations endpoints', () => {
  let g: TestGateway;

  before(async () => {
    g = await startGateway();
  });
  after(() => g.close());

  test('GET /livez and /readyz → 200 without a Client-Token', async () => {
    const live = await g.request('GET', '/livez', { token: null });
    assert.equal(live.status, 200);
    assert.deepEqual(live.body, { status: 'ok' });
    const ready = await g.request('GET', '/readyz', { token: null });
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ok' });
  });

  test('GET /metrics → Prometheus text with per-route request counts and no secrets', async () => {
    const inst = await g.createInstance('metrics');
    await g.request('GET', `${inst.prefix}/status`);
    await g.request('GET', '/instances', { token: 'bad' });
    const r = await g.request('GET', '/metrics', { token: null });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.match(r.text, /^# HELP zapgate_http_requests_total /m);
    assert.match(r.text, /zapgate_http_requests_total\{method="GET",route="\/instances\/:instanceId\/token\/:instanceToken\/status",status="200"\} 1/);
    assert.match(r.text, /zapgate_http_requests_total\{method="GET",route="\/instances",status="401"\} 1/);
    assert.match(r.text, /zapgate_http_request_duration_seconds_bucket/);
    assert.ok(!r.text.includes(inst.instanceToken), 'no token in the metrics');
    // Routes are labelled by pattern (number health is per instance by design: `instance_id`).
    const routes = [...r.text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]!);
    assert.ok(routes.length > 0 && routes.every((route) => !route.includes(inst.instanceId)), 'routes are labelled by pattern, not by instance');
  });

  test('GET /metrics counts durable enqueues by content type', async () => {
    const inst = await g.createInstance('enqueued');
    for (let i = 0; i < 3; i++) assert.equal((await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: '5511999990000', message: `m${i}` } })).status, 200);
    await g.request('POST', `${inst.prefix}/send-location`, { body: { phone: '5511999990000', latitude: '-23.5', longitude: '-46.6' } });
    const r = await g.request('GET', '/metrics', { token: null });
    assert.match(r.text, /zapgate_messages_enqueued_total\{kind="text"\} 3/);
    assert.match(r.text, /zapgate_messages_enqueued_total\{kind="location"\} 1/);
  });

  test('GET /openapi.json is OpenAPI 3.1 and lists every registered route', async () => {
    const r = await g.request('GET', '/openapi.json', { token: null });
    assert.equal(r.status, 200);
    const doc = r.body as OpenApiDoc;
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    assert.ok(doc.components.securitySchemes.ClientToken, 'Client-Token security scheme');
    const routes = registeredRoutes(g.gateway.http).filter(
      (rt) => rt.method !== 'HEAD' && !rt.url.startsWith('/docs') && !rt.url.startsWith('/dashboard') && rt.url !== '/openapi.json',
    );
    assert.ok(routes.length >= 45, `only ${routes.length} routes found`);
    const missing = routes.filter((rt) => !doc.paths[toOpenApiPath(rt.url)]?.[rt.method.toLowerCase()]);
    assert.deepEqual(missing, [], 'routes missing from /openapi.json');
    // And nothing documented that does not exist.
    const known = new Set(routes.map((rt) => `${rt.method.toLowerCase()} ${toOpenApiPath(rt.url)}`));
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) assert.ok(known.has(`${method} ${path}`), `documented but not routed: ${method} ${path}`);
    }
    // Every operation has a unique operationId and a declared tag.
    const tagNames = new Set(doc.tags.map((t) => t.name));
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        assert.ok(op.operationId, `${method} ${path} has no operationId`);
        assert.ok(!ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
        ids.add(op.operationId);
        for (const t of op.tags ?? []) assert.ok(tagNames.has(t), `undeclared tag ${t}`);
      }
    }
    // The spec's operation id for the QR image.
    assert.equal(doc.paths['/instances/{instanceId}/token/{instanceToken}/qr-code/image']?.get?.operationId, 'instance_qr-code-image');
  });

  test('GET /docs serves the interactive HTML docs', async () => {
    const r = await g.request('GET', '/docs', { token: null });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.match(r.text, /<html/i);
    assert.match(r.text, /swagger/i);
  });
});

describe('readiness when the database is gone', () => {
  test('GET /readyz → 503 with a reason; /livez still 200', async () => {
    const g = await startGateway();
    try {
      await g.gateway.store.database.close();
      const r = await g.request('GET', '/readyz', { token: null });
      assert.equal(r.status, 503);
      assert.deepEqual(r.body, { status: 'unavailable', reason: 'database unreachable' });
      assert.equal((await g.request('GET', '/livez', { token: null })).status, 200);
    } finally {
      await g.close();
    }
  });
});
