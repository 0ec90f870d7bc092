// The replay API's use cases: list an instance's webhook deliveries, put a failed one back on the schedule.
import type { Clock } from '../clock.js';
import { sinkOfTarget } from '../domain/event-sink.js';
import { errors } from '../errors.js';
import type { DeliveriesRepo, DeliveryRecord } from '../store/deliveries-repo.js';
import type { DeliveryStatus } from '../store/schema.js';

interface DeliveryView {
  id: string;
  /** The `webhook-id` header of every attempt: the event's id. */
  webhookId: string;
  type: string;
  kind: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** The event as delivered. */
  payload: unknown;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Pass back to get the next page; null on the last one. */
  pagingState: string | null;
}

export type ReplayStore = Pick<DeliveriesRepo, 'list' | 'find' | 'requeue' | 'contexts'>;

/** Characters of payloads one page of deliveries may hold. */
const LIST_BUDGET_CHARS = 4 * 1024 * 1024;

function view(r: DeliveryRecord): DeliveryView {
  return {
    id: r.id,
    webhookId: r.eventId,
    type: r.type,
    kind: r.kind,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    lastStatus: r.lastStatus,
    lastError: r.lastError,
    nextAttemptAt: r.nextAttemptAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    payload: JSON.parse(r.body) as unknown,
  };
}

export class WebhookDeliveriesService {
  constructor(
    private readonly store: ReplayStore,
    private readonly clock: Clock,
    /** Tells the dispatcher that a lane has a delivery due again. */
    private readonly wake: (instanceId: string, url: string) => void,
  ) {}

  async list(instanceId: string, status: DeliveryStatus | undefined, pageSize: number, pagingState: string | null): Promise<DeliveryPage> {
    let after = 0;
    if (pagingState !== null) {
      if (!/^[0-9]{1,15}$/.test(pagingState)) throw errors.invalidInput('pagingState: is not a value this API returned');
      after = Number(pagingState);
    }
    const rows = await this.store.list(instanceId, status, after, pageSize + 1);
    // A page also ends once its payloads reach LIST_BUDGET_CHARS (it always holds one delivery), so
    // a listing is bounded in bytes as well as rows.
    const page: DeliveryRecord[] = [];
    let chars = 0;
    for (const r of rows.slice(0, pageSize)) {
      if (page.length > 0 && chars + r.body.length > LIST_BUDGET_CHARS) break;
      chars += r.body.length;
      page.push(r);
    }
    const last = page.at(-1);
    return { deliveries: page.map(view), pagingState: rows.length > page.length && last !== undefined ? String(last.seq) : null };
  }

  /**
   * Replays a failed delivery from the start of the retry schedule, with the same `webhook-id`. It
   * goes to the URL now set for its kind (which is how a fixed or moved receiver gets what it missed).
   */
  async retry(instanceId: string, id: string): Promise<DeliveryView> {
    const found = await this.store.find(instanceId, id);
    if (found === undefined) throw errors.notFound('Delivery not found');
    if (found.status !== 'failed') throw errors.conflict('Delivery is not failed', `only failed deliveries can be retried; this one is ${found.status}`);
    // A broker sink's delivery goes back to the same sink, published with its settings at that time.
    const url = sinkOfTarget(found.url) !== null ? found.url : (await this.store.contexts([instanceId])).get(instanceId)?.urls.get(found.kind);
    if (url === undefined) throw errors.conflict('No webhook URL', `no enabled webhook URL is set for ${found.kind} events`);
    if (!(await this.store.requeue(instanceId, id, url, this.clock.now()))) {
      throw errors.conflict('Delivery is not failed', 'the delivery changed state meanwhile');
    }
    this.wake(instanceId, url);
    const updated = await this.store.find(instanceId, id);
    if (updated === undefined) throw errors.notFound('Delivery not found');
    return view(updated);
  }
}
