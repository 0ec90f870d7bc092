// Broker sink publishes/s against the machine's local RabbitMQ and NATS JetStream, beside webhook
// deliveries/s to a local receiver under the same load (docs/contract.md §5b). The gateway runs in
// this process as `createGateway` builds it (SQLite WAL, synchronous=FULL): each event is emitted
// through Gateway.events one by one (as the engine does), committed with its delivery, published
// (RabbitMQ: persistent, publisher confirms; NATS: the stream's ack) and its outcome committed. The
// clock stops when every delivery of the run is recorded as delivered AND the broker (or receiver)
// holds every event. Sink lanes are strict per instance, so lanes = instances.
// Run: node --import tsx bench/sinks.ts   (SINK_BENCH_EVENTS, default 5000; needs the brokers of
// test/helpers/brokers.ts; a missing one is skipped with the reason)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import type { SinkKind } from '../src/domain/event-sink.js';
import type { GatewayEvent } from '../src/events/types.js';
import { createGateway, type Gateway } from '../src/main.js';
import { offlineSessions } from '../src/sessions/offline-sessions.js';
import { deduplicated, natsStream, natsUnavailable, rabbitConsumer, rabbitUnavailable, uniqueName, NATS, RABBIT } from '../test/helpers/brokers.js';

const EVENTS = Math.min(Number(process.env.SINK_BENCH_EVENTS ?? 5_000), 100_000);

function event(n: number): GatewayEvent {
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0${n.toString(16).toUpperCase().padStart(18, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: Date.now(),
    status: 'RECEIVED',
    chatName: 'Maria',
    senderName: 'Maria',
    participantPhone: null,
    isGroup: false,
    text: { message: `benchmark message number ${n}, about the size of a short chat line` },
  };
}

/** Where a run's events go, and how many of them arrived there so far. */
interface Target {
  label: string;
  setUp(gateway: Gateway, instanceId: string, lane: number): Promise<void>;
  arrived(): Promise<number>;
}

function ask<T>(child: ChildProcess, message: object): Promise<T> {
  const reply = once(child, 'message') as Promise<[T]>;
  child.send(message);
  return reply.then(([m]) => m);
}

async function run(gateway: Gateway, target: Target, lanes: number, events: number): Promise<void> {
  const account = await gateway.accounts.create(`bench-${target.label}-${lanes}`);
  const ids: string[] = [];
  for (let i = 0; i < lanes; i++) {
    const inst = await gateway.instances.create(account.id, `bench-${i}`);
    await target.setUp(gateway, inst.instanceId, i);
    ids.push(inst.instanceId);
  }
  const before = await target.arrived();
  const started = performance.now();
  const emits: Promise<void>[] = [];
  for (let n = 0; n < events; n++) {
    emits.push(gateway.events.emit(ids[n % lanes]!, [event(n)]));
    if (n % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  await Promise.all(emits);
  const committed = performance.now();
  for (;;) {
    const open = await gateway.store.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('instance_id', 'in', ids)
      .where('status', '!=', 'delivered')
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0 && (await target.arrived()) - before >= events) break;
    if (performance.now() - started > 300_000) throw new Error(`${target.label}: not every event delivered in 5 minutes`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${target.label.padEnd(9)} ${String(lanes).padStart(3)} lane(s)  ${String(events).padStart(6)} events   ${(events / seconds).toFixed(0).padStart(6)} delivered/s   ` +
      `(committed after ${((committed - started) / 1000).toFixed(2)} s, all confirmed and recorded after ${seconds.toFixed(2)} s; ${(await target.arrived()) - before - events} duplicates)`,
  );
}

async function main(): Promise<void> {
  // The webhook receiver of bench/webhooks.ts, in its own process (its own core).
  const receiver = fork(new URL('./webhooks.ts', import.meta.url).pathname, ['--receiver'], { env: { ...process.env, BENCH_TLS: '0' } });
  const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-bench-sinks-'));
  const config = loadConfig({
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: 'warn',
    ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
    ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true',
  });
  const gateway = await createGateway(config, { collectProcessMetrics: false, sessions: offlineSessions() });
  await gateway.listen();
  const closers: (() => Promise<void>)[] = [];
  try {
    const targets: Target[] = [
      {
        label: 'webhook',
        setUp: (g, id, lane) => g.store.webhooks.set(id, ['received'], `http://127.0.0.1:${port}/hook/${id}/${lane}`, Date.now()),
        arrived: async () => (await ask<{ count: number }>(receiver, { report: true })).count,
      },
    ];
    const sinkSetUp = (kind: SinkKind, url: string, exchange: string, prefix: string) => (g: Gateway, id: string) =>
      g.store.sinks.set(id, kind, { enabled: true, url, exchange, prefix }, Date.now());
    const rabbitDown = await rabbitUnavailable();
    if (rabbitDown === null) {
      const exchange = uniqueName('bench');
      const consumer = await rabbitConsumer(exchange);
      closers.push(() => consumer.close());
      targets.push({ label: 'rabbitmq', setUp: sinkSetUp('rabbitmq', `amqp://guest:guest@${RABBIT.host}:${RABBIT.port}`, exchange, uniqueName('p')), arrived: async () => deduplicated(consumer.got).length });
    } else console.log(`rabbitmq: skipped, ${rabbitDown}`);
    const natsDown = await natsUnavailable();
    if (natsDown === null) {
      const prefix = uniqueName('bench');
      const stream = await natsStream(prefix);
      closers.push(() => stream.close());
      targets.push({ label: 'nats', setUp: sinkSetUp('nats', `nats://${NATS.host}:${NATS.port}`, '', prefix), arrived: async () => (await stream.jsm.streams.info(stream.stream)).state.messages });
    } else console.log(`nats: skipped, ${natsDown}`);

    console.log(`deliveries/s to local targets (SQLite WAL, synchronous=FULL; ${EVENTS} events per run after a warm-up)`);
    for (const target of targets) {
      await run(gateway, target, 16, Math.min(1_000, EVENTS)); // warm-up: JIT, connections, page cache
      for (const lanes of [1, 16]) await run(gateway, target, lanes, EVENTS);
    }
  } finally {
    await gateway.close();
    for (const close of closers) await close();
    receiver.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
