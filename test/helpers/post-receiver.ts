// A webhook receiver for process tests: a plain HTTP server on loopback that answers 200 to every
// POST and keeps each one's webhook-id and JSON body, in arrival order.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookPost {
  webhookId: string;
  body: Record<string, unknown>;
}

export interface PostReceiver {
  /** Every POST received so far, in arrival order. */
  readonly posts: WebhookPost[];
  /** Where to point the gateway's webhooks. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startPostReceiver(): Promise<PostReceiver> {
  const posts: WebhookPost[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ webhookId: String(req.headers['webhook-id']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    posts,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
