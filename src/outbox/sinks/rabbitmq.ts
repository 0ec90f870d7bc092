// RabbitMQ (AMQP 0-9-1) publisher: a confirm channel on one connection, a durable topic exchange,
// persistent messages (docs/contract.md §5b). A message counts as published once the broker
// confirms it; a nack, a closed channel or no confirm in time is a failed attempt, retried later.
import amqp, { type ChannelModel, type ConfirmChannel } from 'amqplib';
import { BrokerError, brokerReason, guardedAddress, within, type BrokerAccess, type BrokerMessage, type BrokerPublisher } from './broker.js';

export async function openRabbitPublisher(rawUrl: string, exchange: string, { guard, clock, timeoutMs }: BrokerAccess): Promise<BrokerPublisher> {
  const url = new URL(rawUrl);
  const address = await guardedAddress(guard, url);
  const tls = url.protocol === 'amqps:';
  const vhost = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : '/';
  let model: ChannelModel;
  try {
    model = await within(
      clock,
      amqp.connect(
        {
          protocol: tls ? 'amqps' : 'amqp',
          hostname: address,
          port: url.port === '' ? (tls ? 5671 : 5672) : Number(url.port),
          username: url.username === '' ? 'guest' : decodeURIComponent(url.username),
          password: url.password === '' ? 'guest' : decodeURIComponent(url.password),
          vhost,
          heartbeat: 30,
        },
        { timeout: timeoutMs, ...(tls ? { servername: url.hostname } : {}) },
      ),
      timeoutMs,
      `no connection to the broker within ${Math.round(timeoutMs / 1000)} s`,
    );
  } catch (err) {
    throw new BrokerError(`connecting to RabbitMQ failed: ${brokerReason(err)}`);
  }
  let dead = false;
  let lastError: string | null = null;
  const onClose = (): void => {
    dead = true;
  };
  // Without listeners an 'error' would be thrown as an uncaught exception; it is followed by 'close'.
  model.on('error', (err: unknown) => (lastError = brokerReason(err)));
  model.on('close', onClose);
  let channel: ConfirmChannel;
  try {
    channel = await model.createConfirmChannel();
    channel.on('error', (err: unknown) => (lastError = brokerReason(err)));
    channel.on('close', onClose);
    await channel.assertExchange(exchange, 'topic', { durable: true });
  } catch (err) {
    await model.close().catch(() => undefined);
    throw new BrokerError(`opening the exchange "${exchange}" failed: ${brokerReason(err)}`);
  }

  return {
    get dead() {
      return dead;
    },
    async publish(m: BrokerMessage, publishTimeoutMs: number) {
      if (dead) throw new BrokerError(`the connection to RabbitMQ closed${lastError ? `: ${lastError}` : ''}`);
      const confirmed = new Promise<void>((resolve, reject) => {
        // The callback runs on the broker's ack (err null) or nack, and with an error if the channel closes first.
        channel.publish(
          exchange,
          m.subject,
          Buffer.from(m.body),
          {
            persistent: true,
            messageId: m.id,
            contentType: 'application/json',
            type: m.type,
            timestamp: Math.floor(m.now / 1000),
            appId: 'zapgate',
            headers: m.headers,
          },
          (err: unknown) => (err === null || err === undefined ? resolve() : reject(new BrokerError(`RabbitMQ refused the message: ${brokerReason(err)}`))),
        );
      });
      try {
        await within(clock, confirmed, publishTimeoutMs, `no confirm from RabbitMQ within ${Math.round(publishTimeoutMs / 1000)} s`);
      } catch (err) {
        // A channel that lost a confirm is not trusted with the next message: start over.
        dead = true;
        void model.close().catch(() => undefined);
        throw err instanceof BrokerError ? err : new BrokerError(brokerReason(err));
      }
    },
    async close() {
      dead = true;
      await model.close().catch(() => undefined);
    },
  };
}
