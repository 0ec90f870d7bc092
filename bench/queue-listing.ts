// One tenant listing a queue of large media must not stall the others (docs/design.md: every resource a
// request can consume is bounded). Queues QUEUE_BENCH_MESSAGES image sends whose data URIs fill the
// 16 MiB media body limit (10 distinct images), then lists them all with pageSize=1000 while another
// client polls /livez every 10 ms; prints the listing's time and size, the worst /livez, the RSS
// growth and what the data dir holds. In-process gateway, no engine (nothing is sent).
// Run: node --import tsx bench/queue-listing.ts
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { startGateway } from '../test/helpers/gateway.js';
import { du } from './disk-usage.js';

const MESSAGES = Number(process.env.QUEUE_BENCH_MESSAGES ?? 40);
const mb = (n: number): string => (n / 1024 / 1024).toFixed(0);


const g = await startGateway();
try {
  const inst = await g.createInstance('bench');
  const header = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0a0' } }).png().toBuffer();
  const uris = Array.from({ length: 10 }, () => `data:image/png;base64,${Buffer.concat([header, randomBytes(11.5 * 1024 * 1024)]).toString('base64')}`);
  const t0 = performance.now();
  for (let i = 0; i < MESSAGES; i++) {
    const r = await g.request('POST', `${inst.prefix}/send-image`, { body: { phone: `5511999${String(i).padStart(6, '0')}`, image: uris[i % uris.length] } });
    if (r.status !== 200) throw new Error(`send ${i}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  const enqueueMs = performance.now() - t0;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;

  let polling = true;
  // The client shares the gateway's event loop, so a blocked loop shows as a gap between answers
  // (a poll every 10 ms) rather than as one slow answer: both are reported.
  const livez: number[] = [];
  const gaps: number[] = [];
  const poller = (async () => {
    let last = performance.now();
    while (polling) {
      const s = performance.now();
      await g.request('GET', '/livez', { token: null });
      const now = performance.now();
      livez.push(now - s);
      gaps.push(now - last);
      last = now;
      await sleep(10);
    }
  })();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  await sleep(50);
  const l0 = performance.now();
  const list = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
  const listMs = performance.now() - l0;
  await sleep(50);
  polling = false;
  await poller;
  clearInterval(sampler);

  console.log(`${MESSAGES} image sends of ${mb(uris[0]!.length)} MiB data URIs (10 distinct) accepted in ${(enqueueMs / 1000).toFixed(1)} s`);
  console.log(
    `GET …/queue?pageSize=1000: ${list.status} in ${listMs.toFixed(0)} ms, ${(list.text.length / 1024).toFixed(0)} KiB, ` +
      `${Array.isArray(list.json.messages) ? list.json.messages.length : 0} messages listed`,
  );
  console.log(`/livez during the listing: ${livez.length} polls, worst answer ${Math.max(...livez).toFixed(0)} ms, worst gap between answers ${Math.max(...gaps).toFixed(0)} ms (event loop blocked)`);
  console.log(`RSS ${mb(rssBefore)} MiB before the listing, peak ${mb(rssPeak)} MiB during it`);
  console.log(`data dir: ${mb(du(g.dataDir))} MiB in all`);
} finally {
  await g.close();
}
