// Bounds on HTTP connections, so idle or slow clients cannot hold descriptors: the timeouts of each
// phase (Node's own, configured here in one place, and the total request time), and counts of open
// connections in total and per client address, beyond which a new connection is closed at once.
import type { Server } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Clock } from '../clock.js';
import type { HttpLimits } from '../config.js';
import type { Logger } from '../logger.js';

/** A refusal is logged at most this often: a flood must not turn into a flood of log lines. */
const WARN_EVERY_MS = 60_000;

/** Fastify options for the phase timeouts (bodyTimeout is Node's requestTimeout: the whole request). */
export function timeoutOptions(limits: HttpLimits) {
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.bodyTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.bodyTimeoutMs,
      // Node checks the headers and request timeouts on this interval (30 s by default, which would
      // let a silent connection live for up to 40 s with a 10 s headers timeout).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

/** Counts connections by client address and closes those over the limits. */
export function limitConnections(server: Server, limits: HttpLimits, log: Logger, clock: Pick<Clock, 'now'>): void {
  let lastWarning = -Infinity;
  const warn = (detail: Record<string, unknown>, message: string): void => {
    const now = clock.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    log.warn(detail, message);
  };
  server.maxConnections = limits.maxConnections;
  server.on('drop', (data) => warn({ remoteAddress: data?.remoteAddress, limit: limits.maxConnections }, 'connection limit reached; new connections are closed'));

  // The sockets open per address. A socket counts until it is destroyed: its descriptor is closed
  // then, but its 'close' event comes a loop phase later, after connections accepted meanwhile. A
  // client whose connections the server just timed out, reconnecting at once, was refused for
  // connections that no longer existed (test/e2e/http-edge.test.ts saw it on a loaded machine).
  const open = new Map<string, Set<Socket>>();
  // First, before the HTTP parser is attached to a connection that is about to be closed.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const sockets = open.get(address) ?? new Set<Socket>();
    if (sockets.size >= limits.maxConnectionsPerAddress) {
      for (const s of sockets) if (s.destroyed) sockets.delete(s);
    }
    if (sockets.size >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      warn({ remoteAddress: address, limit: limits.maxConnectionsPerAddress }, 'connection limit per client address reached; its new connections are closed');
      return;
    }
    sockets.add(socket);
    open.set(address, sockets);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && open.get(address) === sockets) open.delete(address);
    });
  });
}

const LONG_LIVED = Symbol('zapgate.longLived');

/**
 * Exempts a response from the total request time: an event stream is meant to stay open (it is
 * bounded instead by the streams an account may hold, and ends on shutdown).
 */
export function exemptFromDeadline(reply: FastifyReply): void {
  (reply.raw as unknown as Record<symbol, boolean>)[LONG_LIVED] = true;
}

const TOO_LONG = JSON.stringify({ error: 'Service Unavailable', message: 'the request took too long; try again', code: 'REQUEST_TIMEOUT' });

/**
 * The total request time: a request not answered `ms` after its headers arrived gets a 503 (the
 * contract's error body) and its connection is closed; a response already streaming is cut. The
 * handler may still finish its work (as after a 504), but its late answer is dropped quietly.
 * One timer per request (a guard: the client's pace, never scaled), not Fastify's handlerTimeout:
 * with that one a trivial route served 0.5-0.7x the requests per second in local A/B runs
 * (alternating autocannon rounds, same process), while a plain timer and its cancel per request
 * measured level with no timer at all.
 */
export function requestDeadline(ms: number, clock: Pick<Clock, 'setGuard'>): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  return (request, reply, done) => {
    const res = reply.raw;
    const cancel = clock.setGuard(ms, () => {
      if (res.writableEnded || res.destroyed || (res as unknown as Record<symbol, boolean>)[LONG_LIVED] === true) return;
      if (res.headersSent || !request.raw.complete) {
        // Streaming out, or the body is still arriving: nothing sensible can be said any more.
        res.destroy();
        return;
      }
      // Hijacked first, so the handler's answer, when it comes, is dropped without a warning.
      reply.hijack();
      res.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(TOO_LONG),
        connection: 'close',
        'x-request-id': request.id,
      });
      res.end(TOO_LONG);
    });
    res.once('close', cancel);
    done();
  };
}