// The anti-ban strategy measured against simnet's spam detector: the same campaign — first messages
// to N strangers, identical text — from two newly paired numbers, one with the strategy off and one
// with it on, through the real gateway process and real Baileys, on a scaled clock.
//
// Usage: node --import tsx bench/antiban.ts [--messages 500] [--scale-off 0.01] [--scale-on 0.0005]
//
// Each campaign runs at its own time scale, with simnet's detector window set to one protocol hour
// of that scale. The scale must leave the gateway's real per-message latency small against the
// gaps being measured (otherwise latency, not pacing, limits the rate): the report prints the peak
// rate seen in any protocol hour so that can be checked.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { ReceivedMessage } from '../simnet/src/index.js';
import { startBench, type Bench, type Inst } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '500' },
    'scale-off': { type: 'string', default: '0.01' },
    'scale-on': { type: 'string', default: '0.0005' },
  },
});
const MESSAGES = Number(values.messages);
const SIM_SCALE = 0.05;
const HOUR = 3_600_000;
const TEXT = 'Black Friday at Loja Exemplo: 30% off everything, today only! Reply STOP to opt out.';
// simnet's defaults, spelled out: they are what the campaign runs into.
const SPAM = { enabled: true, maxNewChatsPerWindow: 20, maxIdenticalRecipients: 10, banAfterViolations: 5, windowMs: HOUR };

interface Outcome {
  delivered: number;
  restrictions: number;
  banned: boolean;
  states: Record<string, number>;
  status: string;
  protocolHours: number;
  realSeconds: number;
  peakPerHour: number;
  /** Real ms per message the gateway took end to end, at its fastest (the latency floor). */
  medianRealGapMs: number;
}

const bench = await startBench({ simnet: { timeScale: SIM_SCALE, spam: SPAM }, env: { ZAPGATE_TIME_SCALE: String(SIM_SCALE) } });
const arrivals = new Map<string, number>();
bench.sim.net.events.on('received', (m: ReceivedMessage) => {
  if (!arrivals.has(m.id)) arrivals.set(m.id, Date.now());
});

try {
  // Two numbers paired just now: both are in the warm-up period.
  const off = await bench.pair('5511960000001');
  const on = await bench.pair('5511960000002');
  const toggled = await bench.call('PUT', `${on.prefix}/update-antiban`, { value: true });
  if (toggled.status !== 200) throw new Error(`update-antiban: ${toggled.status}`);
  console.log(`campaign: ${MESSAGES} first messages to strangers from a newly paired number, identical text`);
  console.log(
    `simnet spam detector: restricts beyond ${SPAM.maxNewChatsPerWindow} new chats or ${SPAM.maxIdenticalRecipients} identical recipients per hour, bans after ${SPAM.banAfterViolations} restrictions`,
  );
  const offResult = await campaign(bench, off, '55219', Number(values['scale-off']), 120_000);
  report('strategy off', offResult, Number(values['scale-off']));
  const onResult = await campaign(bench, on, '55319', Number(values['scale-on']), 60 * 60_000);
  report('strategy on ', onResult, Number(values['scale-on']));
  const expected = (offResult.banned || offResult.restrictions > 0) && onResult.delivered === MESSAGES && onResult.restrictions === 0 && !onResult.banned;
  console.log(expected ? 'as expected: restricted without the strategy, unrestricted with it' : 'UNEXPECTED outcome');
  process.exitCode = expected ? 0 : 1;
} finally {
  await bench.close();
}

/** Runs the campaign from `inst` at `scale` until its queue is done or the account is gone. */
async function campaign(b: Bench, inst: Inst, prefix: string, scale: number, timeoutMs: number): Promise<Outcome> {
  // The gateway runs this campaign at `scale`; simnet's window is one protocol hour of it.
  await b.restart({ ZAPGATE_TIME_SCALE: String(scale) });
  (b.sim.net.config.spam as { windowMs: number }).windowMs = (HOUR * scale) / SIM_SCALE;
  await b.waitStatus(inst, 'connected');
  const before = await b.admin.counters();
  // The sender starts with the first accepted message: the clock starts before the enqueueing.
  const started = Date.now();
  const ids: string[] = [];
  let accepting = true;
  // Watch while accepting too: without the strategy the account is gone before the last accept.
  const watching = (async (): Promise<{ status: string; at: number }> => {
    let lastReport = started;
    for (;;) {
      const s = (await b.call('GET', `${inst.prefix}/status`)).json;
      const waiting = Number((await b.call('GET', `${inst.prefix}/queue/count`)).json.count);
      if (s.status === 'banned' || (!accepting && waiting === 0)) return { status: String(s.status), at: Date.now() };
      if (Date.now() - started > timeoutMs) throw new Error(`campaign still running after ${timeoutMs / 1000} s: ${waiting} waiting`);
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        const hours = (Date.now() - started) / scale / HOUR;
        const delivered = ids.filter((id) => arrivals.has(id)).length;
        console.log(`  … ${delivered}/${MESSAGES} delivered after ${hours.toFixed(1)} protocol hours; antiban ${JSON.stringify(s.antiban)}`);
      }
      await sleep(50);
    }
  })();
  watching.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
  for (let i = 0; i < MESSAGES; i++) {
    const phone = `${prefix}${String(i).padStart(8, '0')}`;
    const r = await b.call('POST', `${inst.prefix}/send-text`, { phone, message: TEXT });
    if (r.status !== 200) throw new Error(`send-text: ${r.status} ${JSON.stringify(r.json)}`);
    ids.push(String(r.json.messageId));
  }
  accepting = false;
  const { status, at: doneAt } = await watching;
  const realMs = doneAt - started;
  await sleep(200); // receipts and late nacks settle
  const after = await b.admin.counters();
  const counter = (name: string): number => (after.counters[name] ?? 0) - (before.counters[name] ?? 0);
  const times = ids.map((id) => arrivals.get(id)).filter((t): t is number => t !== undefined).sort((x, y) => x - y);
  return {
    delivered: times.length,
    restrictions: counter('spam.restricted'),
    banned: (await b.admin.user(inst.owner)).banned,
    states: states(b, inst),
    status,
    protocolHours: realMs / scale / HOUR,
    realSeconds: realMs / 1000,
    peakPerHour: peak(times, HOUR * scale),
    medianRealGapMs: median(times.slice(1).map((t, i) => t - (times[i] as number))),
  };
}

/** The most arrivals within any window of `windowMs`. */
function peak(sorted: readonly number[], windowMs: number): number {
  let best = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while ((sorted[j] as number) - (sorted[i] as number) >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
}

function states(b: Bench, inst: Inst): Record<string, number> {
  const db = new Database(join(b.dataDir, 'zapgate.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('select state, count(*) as n from messages where instance_id = ? group by state').all(inst.id) as { state: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  } finally {
    db.close();
  }
}

function report(label: string, o: Outcome, scale: number): void {
  const time = o.protocolHours >= 48 ? `${(o.protocolHours / 24).toFixed(2)} protocol days` : `${o.protocolHours.toFixed(2)} protocol hours`;
  console.log(
    `${label}: delivered ${o.delivered}/${MESSAGES}, restriction nacks ${o.restrictions}, banned ${o.banned ? 'yes' : 'no'}, ` +
      `instance ${o.status}, messages ${JSON.stringify(o.states)}; peak ${o.peakPerHour} first messages in one protocol hour; ` +
      `${time} at scale ${scale} (${o.realSeconds.toFixed(1)} s real; median real gap ${o.medianRealGapMs.toFixed(0)} ms = ${(o.medianRealGapMs / scale / 1000).toFixed(0)} protocol s)`,
  );
}
