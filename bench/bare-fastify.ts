// The baseline for bench/enqueue.ts: a bare Fastify route, POST /x → {ok:true}, in its own process.
// Usage (child of the bench): node --import tsx bench/bare-fastify.ts <port>
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: false });
app.post('/x', async () => ({ ok: true }));
const address = await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`ready ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
