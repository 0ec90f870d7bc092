// Per-request HTTP metrics with prom-client's labelled children kept per route, method and status:
// passing a label object makes prom-client hash it on every request (bench/enqueue).
import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../metrics.js';

type RecordRequest = (method: string, route: string, status: number, seconds: number) => void;

export function routeMetrics(metrics: Metrics): RecordRequest {
  const counts = new Map<string, Counter.Internal>();
  const durations = new Map<string, Histogram.Internal<'method' | 'route'>>();
  return (method, route, status, seconds) => {
    const key = `${method} ${route}`;
    let duration = durations.get(key);
    if (!duration) {
      duration = metrics.httpDuration.labels({ method, route });
      durations.set(key, duration);
    }
    duration.observe(seconds);
    const countKey = `${key} ${status}`;
    let count = counts.get(countKey);
    if (!count) {
      count = metrics.httpRequests.labels({ method, route, status: String(status) });
      counts.set(countKey, count);
    }
    count.inc();
  };
}
