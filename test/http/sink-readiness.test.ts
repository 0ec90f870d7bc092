// A broker sink's health on /readyz?details=1 (docs/contract.md §5b): a broker that cannot be reached
// is reported there, while the gateway stays ready (its events are kept and retried) and the plain
// /readyz body stays exactly {"status":"ok"} (what probes and test/helpers/process-gateway.ts read).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from '../helpers/webhook-harness.js';

describe('sink health on /readyz', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' } });
  });
  after(() => h.close());

  test('no sink used: details list none', async () => {
    const r = await h.request('GET', '/readyz?details=1');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'ok', sinks: [] });
  });

  test('a broker that refuses connections is reported down; the gateway stays ready', async () => {
    const inst = await h.createInstance('down');
    // Nothing listens on port 9 of loopback.
    assert.equal((await h.request('PUT', `${inst.prefix}/update-sink-nats`, { value: 'nats://user:hunter2@127.0.0.1:9' })).status, 200);
    await h.gateway.events.emit(inst.id, [{ type: 'DisconnectedCallback', momment: 1, error: 'Device has been disconnected', disconnected: true }]);
    let details: { status: string; sinks: { kind: string; state: string; lastError: string | null }[] } | undefined;
    await eventually(async () => {
      details = (await h.request('GET', '/readyz?details=1')).body as typeof details;
      return details?.sinks.some((s) => s.kind === 'nats' && s.state === 'down') ?? false;
    }, 15_000, 'nats reported down');
    assert.equal(details?.status, 'ok');
    assert.ok(!JSON.stringify(details).includes('hunter2'), 'no credentials in the report');
    const plain = await h.request('GET', '/readyz');
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.body, { status: 'ok' }, 'the plain body is unchanged');
  });
});
