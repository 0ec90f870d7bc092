// The real gateway process at the default level (info), paired to a simnet phone, sending and
// receiving a message and shut down with SIGTERM: what an operator sees on stdout. A normal run
// logs nothing at error level or above (the 515 "restart required" after every pairing is expected,
// not an error), and no line carries a key twice (JSON.parse would silently keep the last one, so
// the raw text is read). The same live run's /metrics shows the engine's series.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsWithoutSamples, parseScrape, valueOf } from '../helpers/prometheus.js';
import { startProcessHarness, type ProcessHarness } from '../helpers/process-harness.js';
import { settle } from '../helpers/wait.js';

const OWNER = '5511970000001';
const CONTACT = '5511970000002';

/**
 * The keys that appear twice in one object of a JSON text (empty when none).
 * A small scanner: strings (with escapes), objects and arrays; numbers and literals are skipped.
 */
function duplicateKeys(text: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const skipWs = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const readString = (): string => {
    let out = '';
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        out += text.slice(i, i + 2);
        i += 2;
      } else out += text[i++];
    }
    i++; // closing quote
    return out;
  };
  const readValue = (): void => {
    skipWs();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      skipWs();
      if (text[i] === '}') return void i++;
      for (;;) {
        skipWs();
        const key = readString();
        if (seen.has(key)) dups.push(key);
        seen.add(key);
        skipWs();
        i++; // colon
        readValue();
        skipWs();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      skipWs();
      if (text[i] === ']') return void i++;
      for (;;) {
        readValue();
        skipWs();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') return void readString();
    while (i < text.length && !/[,}\]\s]/.test(text[i]!)) i++;
  };
  readValue();
  return dups;
}

describe('a paired gateway at info level', () => {
  let h: ProcessHarness;
  let stdout = '';
  let stderr = '';

  before(async () => {
    // The harness pairs the owner's phone by QR (the pairing ends with WhatsApp's 515 restart).
    h = await startProcessHarness({ owner: OWNER, contacts: [CONTACT], env: { ZAPGATE_LOG_LEVEL: 'info' } });
    const sent = await h.api('POST', `${h.prefix}/send-text`, { phone: CONTACT, message: 'hello from the log test' });
    assert.equal(sent.status, 200, `send-text: ${JSON.stringify(sent.json)}`);
    await h.admin.waitForReceived(CONTACT, (m) => m.text === 'hello from the log test', 60_000);
    await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'text', text: 'a reply' });
    await settle(() => h.posts.some((p) => (p.body.text as { message?: string } | undefined)?.message === 'a reply'), (got) => got);
    assert.ok(h.posts.some((p) => (p.body.text as { message?: string } | undefined)?.message === 'a reply'), 'the reply reached the webhook');
  });
  after(async () => {
    await h?.close();
  });

  test('/metrics of the live run: a connected session, the send counted and sent, every series sampled', async () => {
    const res = await fetch(`${h.gateway().url}/metrics`, { signal: AbortSignal.timeout(30_000) });
    assert.equal(res.status, 200, '/metrics without a token');
    const s = parseScrape(await res.text());
    assert.equal(valueOf(s, 'zapgate_sessions', { status: 'connected' }), 1, 'one connected session');
    assert.equal(valueOf(s, 'zapgate_messages_enqueued_total', { kind: 'text' }), 1, 'one text enqueued');
    assert.equal(valueOf(s, 'zapgate_messages_sent_total', { result: 'sent' }), 1, 'one text sent');
    assert.equal(valueOf(s, 'zapgate_queue_depth'), 0, 'nothing left to send');
    assert.ok((valueOf(s, 'zapgate_webhook_delivery_lag_seconds_count') ?? 0) >= 1, 'webhook deliveries measured');
    // Event-loop delay, from prom-client's default metrics (perf_hooks.monitorEventLoopDelay).
    assert.ok(valueOf(s, 'zapgate_nodejs_eventloop_lag_p99_seconds') !== undefined, 'event-loop delay p99 reported');
    assert.deepEqual(metricsWithoutSamples(s), [], 'declared metrics without a sample');
  });

  test('stdout: no line at error level or above, no line with a key twice', { timeout: 120_000 }, async () => {
    // A graceful stop logs its own lines too; they must be just as clean.
    await h.gateway().stop();
    stdout = h.gateway().stdout();
    stderr = h.gateway().stderr();
    const lines = stdout.split('\n').filter((l) => l.trim() !== '');
    // At least the start and the shutdown lines: the level really was info.
    assert.ok(lines.some((l) => l.includes('"msg":"shutting down"')), `the run logged at info level:\n${lines.join('\n')}`);
    const problems: string[] = [];
    for (const line of lines) {
      let entry: { level?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        problems.push(`not JSON: ${line.slice(0, 200)}`);
        continue;
      }
      if ((entry.level ?? 0) >= 50) problems.push(`level ${entry.level}: ${line.slice(0, 300)}`);
      const dups = duplicateKeys(line);
      if (dups.length > 0) problems.push(`duplicated ${dups.join(', ')}: ${line.slice(0, 300)}`);
    }
    assert.deepEqual(problems, [], `${problems.length} bad lines of ${lines.length}:\n${problems.join('\n')}`);
    assert.equal(stderr.trim(), '', `nothing on stderr: ${stderr.slice(0, 500)}`);
  });

  test('the duplicate-key scanner finds what JSON.parse hides', () => {
    assert.deepEqual(duplicateKeys('{"level":30,"component":"baileys","component":"sessions","msg":"x"}'), ['component']);
    assert.deepEqual(duplicateKeys('{"a":{"b":1,"b":[{"c":"}\\"","c":2}]},"d":"a"}'), ['b', 'c']);
    assert.deepEqual(duplicateKeys('{"a":1,"b":{"a":2},"c":[1,"x"]}'), []);
  });
});
