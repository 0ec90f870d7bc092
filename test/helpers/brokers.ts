// The machine's message brokers for sink tests (README "Services"): RabbitMQ on 127.0.0.1:5672
// (guest/guest) and NATS with JetStream on 127.0.0.1:4222. A test probes first and skips with the
// reason when one is not reachable; each test uses an exchange / queue / stream of its own and
// deletes it after. `CuttableProxy` stands between the gateway and a broker so a test can cut every
// connection and refuse new ones for a while (a broker outage as the gateway sees it) without
// stopping the machine's broker.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import amqp, { type ChannelModel } from 'amqplib';
import { connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';

export const RABBIT = { host: '127.0.0.1', port: 5672 };
export const NATS = { host: '127.0.0.1', port: 4222 };

/** Why RabbitMQ cannot be used here, or null when it can. */
export async function rabbitUnavailable(): Promise<string | null> {
  try {
    const c = await amqp.connect(`amqp://guest:guest@${RABBIT.host}:${RABBIT.port}`, { timeout: 2_000 });
    await c.close();
    return null;
  } catch (err) {
    return `RabbitMQ not reachable on ${RABBIT.host}:${RABBIT.port} (${(err as Error).message}); start it (see .ci/run) to run this test`;
  }
}

/** Why NATS JetStream cannot be used here, or null when it can. */
export async function natsUnavailable(): Promise<string | null> {
  try {
    const nc = await natsConnect({ servers: `${NATS.host}:${NATS.port}`, timeout: 2_000, reconnect: false });
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
    } finally {
      await nc.close();
    }
    return null;
  } catch (err) {
    return `NATS with JetStream not reachable on ${NATS.host}:${NATS.port} (${(err as Error).message}); start it (see .ci/run) to run this test`;
  }
}

export const uniqueName = (label: string): string => `zgtest-${label}-${randomBytes(4).toString('hex')}`;

/** A message as a consumer saw it. */
export interface Consumed {
  id: string;
  subject: string;
  body: string;
  headers: Record<string, string>;
}

/** A queue bound to `exchange` with `#`: every message the gateway publishes, in broker order. */
export async function rabbitConsumer(exchange: string): Promise<{ got: Consumed[]; close(): Promise<void> }> {
  const conn: ChannelModel = await amqp.connect(`amqp://guest:guest@${RABBIT.host}:${RABBIT.port}`);
  const ch = await conn.createChannel();
  await ch.assertExchange(exchange, 'topic', { durable: true });
  const queue = uniqueName('q');
  await ch.assertQueue(queue, { durable: false, exclusive: true });
  await ch.bindQueue(queue, exchange, '#');
  const got: Consumed[] = [];
  await ch.consume(
    queue,
    (m) => {
      if (m === null) return;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.properties.headers ?? {})) headers[k] = String(v);
      got.push({ id: String(m.properties.messageId), subject: m.fields.routingKey, body: m.content.toString('utf8'), headers: { ...headers, 'content-type': String(m.properties.contentType), persistent: String(m.properties.deliveryMode) } });
    },
    { noAck: true },
  );
  return {
    got,
    async close() {
      await ch.deleteQueue(queue).catch(() => undefined);
      await ch.deleteExchange(exchange).catch(() => undefined);
      await conn.close().catch(() => undefined);
    },
  };
}

/** A stream capturing `<prefix>.>` and an ordered read of it from the start. */
export async function natsStream(prefix: string): Promise<{ stream: string; jsm: JetStreamManager; read(): Promise<Consumed[]>; close(): Promise<void> }> {
  const nc: NatsConnection = await natsConnect({ servers: `${NATS.host}:${NATS.port}` });
  const jsm = await jetstreamManager(nc);
  const stream = uniqueName('s').replace(/-/g, '_');
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], duplicate_window: 120_000_000_000 });
  return {
    stream,
    jsm,
    async read() {
      const info = await jsm.streams.info(stream);
      const out: Consumed[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (m === null) continue;
        const headers: Record<string, string> = {};
        for (const k of m.header?.keys() ?? []) headers[k] = m.header?.get(k) ?? '';
        out.push({ id: headers['Nats-Msg-Id'] ?? '', subject: m.subject, body: m.string(), headers });
      }
      return out;
    },
    async close() {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close().catch(() => undefined);
    },
  };
}

/** Standard Webhooks verification, as a consumer holding the instance's secret does it. */
export function signatureValid(secret: string, id: string, timestamp: string, body: string, signature: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return signature.split(' ').includes(`v1,${mac}`);
}

/** First occurrence of each id, in arrival order (what a consumer that de-duplicates by id keeps). */
/**
 * A contact writes `n` numbered texts (`<label> 1` …) to the instance's number, one after the other,
 * running `during(i)` after each (a cut, a kill); returns the texts in the order sent.
 */
export async function textsFromContact(
  admin: { sendAsContact(req: { from: string; to: string; type: 'text'; text: string }): Promise<unknown> },
  from: string,
  to: string,
  label: string,
  n: number,
  during?: (i: number) => Promise<void>,
): Promise<string[]> {
  const sent: string[] = [];
  for (let i = 1; i <= n; i++) {
    await admin.sendAsContact({ from, to, type: 'text', text: `${label} ${i}` });
    sent.push(`${label} ${i}`);
    await during?.(i);
  }
  return sent;
}

export function deduplicated(got: readonly Consumed[]): Consumed[] {
  const seen = new Set<string>();
  return got.filter((m) => (seen.has(m.id) ? false : (seen.add(m.id), true)));
}

/** A TCP forwarder to a broker whose connections a test can cut, refusing new ones meanwhile. */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private down = false;
  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(target: { host: string; port: number }): Promise<CuttableProxy> {
    const holder: { proxy?: CuttableProxy } = {};
    const server = createServer((client) => {
      const proxy = holder.proxy;
      if (proxy === undefined || proxy.down) {
        client.destroy();
        return;
      }
      const upstream = tcpConnect(target.port, target.host);
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('close', () => proxy.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    holder.proxy = new CuttableProxy(server, address.port);
    return holder.proxy;
  }

  /** Every open connection is cut and new ones are refused until restore(). */
  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
