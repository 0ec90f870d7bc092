// NATS JetStream publisher (docs/contract.md §5b): a message counts as published once the stream
// acknowledged it; `Nats-Msg-Id` is the event id, so a stream de-duplicates what an attempt cut
// short publishes again (within its duplicate window).
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { BrokerError, brokerReason, guardedAddress, within, type BrokerAccess, type BrokerMessage, type BrokerPublisher } from './broker.js';

export async function openNatsPublisher(rawUrl: string, { guard, clock, timeoutMs }: BrokerAccess): Promise<BrokerPublisher> {
  const url = new URL(rawUrl);
  const address = await guardedAddress(guard, url);
  const tls = url.protocol === 'tls:';
  const port = url.port === '' ? 4222 : Number(url.port);
  let nc: NatsConnection;
  try {
    nc = await within(
      clock,
      connect({
        // TLS needs the name for the certificate; plain connections go to the checked address.
        servers: `${tls ? url.hostname : address.includes(':') ? `[${address}]` : address}:${port}`,
        ...(url.username !== '' && url.password === '' ? { token: decodeURIComponent(url.username) } : {}),
        ...(url.password !== '' ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : {}),
        ...(tls ? { tls: {} } : {}),
        name: 'zapgate',
        // Reconnecting is the outbox's job: each new connection goes through the guard again.
        reconnect: false,
        timeout: timeoutMs,
      }),
      timeoutMs,
      `no connection to NATS within ${Math.round(timeoutMs / 1000)} s`,
    );
  } catch (err) {
    throw new BrokerError(`connecting to NATS failed: ${brokerReason(err)}`);
  }
  let dead = false;
  void nc.closed().then(() => (dead = true));
  const js: JetStreamClient = jetstream(nc);
  return {
    get dead() {
      return dead || nc.isClosed();
    },
    async publish(m: BrokerMessage, publishTimeoutMs: number) {
      const h = natsHeaders();
      for (const [k, v] of Object.entries(m.headers)) h.set(k, v);
      h.set('Content-Type', 'application/json');
      h.set('Zapgate-Event-Type', m.type);
      try {
        await within(clock, js.publish(m.subject, m.body, { msgID: m.id, headers: h, timeout: publishTimeoutMs }), publishTimeoutMs + 1_000, `no acknowledgement from the stream within ${Math.round(publishTimeoutMs / 1000)} s`);
      } catch (err) {
        const reason = brokerReason(err);
        // No stream takes the subject: said plainly, since it is the operator's to create.
        if (/no responders|503/i.test(reason)) throw new BrokerError(`no JetStream stream captures subject ${m.subject}`);
        throw new BrokerError(`NATS refused the message: ${reason}`);
      }
    },
    async close() {
      dead = true;
      await nc.close().catch(() => undefined);
    },
  };
}
