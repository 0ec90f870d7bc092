// The server's own health for the admin `stats` route (the density bench reads it): memory, population,
// event-loop delay since the previous call, CPU time.
import type { AdminContext } from '../server/context.js';
import type { SimnetStats } from './types.js';

/** Process memory and population, for the density bench. Resets the event-loop delay histogram. */
export function simnetStats(net: AdminContext): SimnetStats {
  // Only meaningful with --expose-gc (the density bench starts simnet that way).
  (globalThis as { gc?: () => void }).gc?.();
  let devices = 0;
  let online = 0;
  for (const acc of net.registry.all()) {
    for (const d of acc.companions.values()) {
      if (d.removed) continue;
      devices++;
      if (d.online) online++;
    }
  }
  const m = process.memoryUsage();
  const h = net.loopDelay;
  const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e4) / 100 : 0);
  const eventLoopDelayMs = { mean: ms(h.mean), p99: ms(h.percentile(99)), max: ms(h.max) };
  h.reset();
  const cpu = process.cpuUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    accounts: net.registry.size,
    devices,
    online,
    connections: net.connections.size,
    eventLoopDelayMs,
    cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
  };
}
