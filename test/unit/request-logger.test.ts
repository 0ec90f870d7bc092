// Request loggers are built lazily (bench/enqueue), yet a request that logs still gets its reqId on
// the line, and one that does not log costs no pino child.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { createLogger } from '../../src/logger.js';
import { lazyChildLogger } from '../../src/http/request-logger.js';

test('a request that logs gets a line with its reqId; one that does not builds no child logger', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      cb();
    },
  });
  const log = createLogger('info', sink);
  let children = 0;
  const realChild = log.child.bind(log);
  log.child = ((...args: Parameters<typeof log.child>) => {
    children++;
    return realChild(...args);
  }) as typeof log.child;
  const app = Fastify({ loggerInstance: log, disableRequestLogging: true, genReqId: () => 'req-1', childLoggerFactory: lazyChildLogger });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/loud', async (request) => {
    assert.equal(request.log.level, 'info');
    request.log.warn({ token: 'secret-value' }, 'something odd');
    return { ok: true };
  });
  try {
    await app.ready();
    children = 0; // Fastify may make loggers of its own while booting
    assert.equal((await app.inject('/quiet')).statusCode, 200);
    assert.equal(children, 0);
    assert.equal((await app.inject('/loud')).statusCode, 200);
    assert.equal(children, 1);
    const line = lines.find((l) => l.msg === 'something odd');
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line.reqId, 'req-1');
    assert.equal(line.token, '[REDACTED]');
  } finally {
    await app.close();
  }
});
