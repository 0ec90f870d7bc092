// Tag "sinks" over real HTTP: broker sinks set per instance and per account over the environment's
// default, resolved in that order; URLs checked by scheme and by the address guard (like webhook
// URLs), and shown only masked. DNS is a fake resolver; no broker is contacted here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

interface View {
  kind: string;
  enabled: boolean;
  url: string;
  exchange: string | null;
  prefix: string;
  scope: string;
}

describe('broker sink settings', () => {
  let g: TestGateway;
  let a: TestInstance;
  let b: TestInstance;

  before(async () => {
    g = await startGateway({ env: { ZAPGATE_SINK_NATS_URL: 'nats://ops:envpass@hooks.example.com:4222', ZAPGATE_SINK_NATS_PREFIX: 'env' } });
    a = await g.createInstance('sink-a');
    b = await g.createInstance('sink-b');
  });
  after(() => g.close());

  const list = async (path: string): Promise<View[]> => {
    const r = await g.request('GET', path);
    assert.equal(r.status, 200, r.text);
    return r.body as View[];
  };

  test('the environment default applies to every instance, its password masked', async () => {
    const views = await list(`${a.prefix}/sinks`);
    assert.deepEqual(views.map((v) => [v.kind, v.scope, v.url, v.prefix]), [['nats', 'environment', 'nats://ops:****@hooks.example.com:4222', 'env']]);
    assert.ok(!JSON.stringify(views).includes('envpass'));
  });

  test('account default, then an instance override; "" forgets, enabled:false switches off', async () => {
    let r = await g.request('PUT', '/update-sink-rabbitmq', { body: { value: 'amqps://acct:acctpass@hooks.example.com/vh', exchange: 'events', prefix: 'acct' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { value: true });
    r = await g.request('PUT', `${a.prefix}/update-sink-rabbitmq`, { body: { value: 'amqp://inst:instpass@hooks.example.com:5673', prefix: 'mine' } });
    assert.equal(r.status, 200, r.text);
    const rabbitOf = async (inst: TestInstance): Promise<View | undefined> => (await list(`${inst.prefix}/sinks`)).find((v) => v.kind === 'rabbitmq');
    assert.deepEqual(await rabbitOf(a), { kind: 'rabbitmq', enabled: true, url: 'amqp://inst:****@hooks.example.com:5673', exchange: 'zapgate', prefix: 'mine', scope: 'instance', health: 'unused', lastError: null });
    assert.equal((await rabbitOf(b))?.scope, 'account');
    assert.equal((await rabbitOf(b))?.url, 'amqps://acct:****@hooks.example.com/vh');
    assert.equal((await list('/sinks')).find((v) => v.kind === 'rabbitmq')?.exchange, 'events');
    // Forget the instance's own: the account's applies again.
    await g.request('PUT', `${a.prefix}/update-sink-rabbitmq`, { body: { value: '' } });
    assert.equal((await rabbitOf(a))?.scope, 'account');
    // Switch NATS off for b only.
    r = await g.request('PUT', `${b.prefix}/update-sink-nats`, { body: { value: '', enabled: false } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await list(`${b.prefix}/sinks`)).find((v) => v.kind === 'nats'), undefined);
    assert.equal((await list(`${a.prefix}/sinks`)).find((v) => v.kind === 'nats')?.scope, 'environment');
  });

  test('wrong schemes, unresolvable and private hosts → 400, nothing changes', async () => {
    const before = await list(`${a.prefix}/sinks`);
    for (const [route, value] of [
      ['update-sink-rabbitmq', 'https://hooks.example.com/'],
      ['update-sink-nats', 'amqp://hooks.example.com'],
      ['update-sink-rabbitmq', 'amqp://127.0.0.1:5672'],
      ['update-sink-rabbitmq', 'amqp://internal.example.com'],
      ['update-sink-nats', 'nats://metadata.example.com:4222'],
      ['update-sink-nats', 'nats://nowhere.example.com:4222'],
      ['update-sink-rabbitmq', 'not a url'],
    ] as const) {
      const r = await g.request('PUT', `${a.prefix}/${route}`, { body: { value } });
      assert.equal(r.status, 400, `${value}: ${r.text}`);
      assert.match(String(r.json.message), /^value: /, value);
    }
    assert.equal((await g.request('PUT', `${a.prefix}/update-sink-rabbitmq`, { body: { value: 'amqp://hooks.example.com', prefix: 'has space' } })).status, 400);
    assert.deepEqual(await list(`${a.prefix}/sinks`), before);
  });
});

describe('broker sink settings with loopback allow-listed', () => {
  test('a loopback broker is accepted when ZAPGATE_ALLOW_HOSTS lists it', async () => {
    const g = await startGateway({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' } });
    try {
      const inst = await g.createInstance('loop');
      const r = await g.request('PUT', `${inst.prefix}/update-sink-rabbitmq`, { body: { value: 'amqp://guest:guest@127.0.0.1:5672' } });
      assert.equal(r.status, 200, r.text);
    } finally {
      await g.close();
    }
  });
});
