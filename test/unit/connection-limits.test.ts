// The per-address connection count (http/connection-limits.ts): a socket counts until it is
// destroyed, not until its 'close' event, which comes a loop phase later. A client whose
// connections the server has just timed out may connect again at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { limitConnections } from '../../src/http/connection-limits.js';
import { createLogger } from '../../src/logger.js';
import { loadConfig } from '../../src/config.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

/** Enough of a socket for the connection listener: an address, `destroyed`, destroy() and 'close'. */
function fakeSocket(remoteAddress: string): Socket & { closeNow(): void } {
  const s = new EventEmitter() as unknown as Socket & { closeNow(): void; destroyed: boolean };
  Object.assign(s, {
    remoteAddress,
    destroyed: false,
    // As in Node: destroyed at once, 'close' later.
    destroy() {
      s.destroyed = true;
      return s;
    },
    closeNow() {
      s.emit('close');
    },
  });
  return s;
}

function serverWithLimit(perAddress: number) {
  const server = createServer();
  // Only the per-address listener runs: Node's own HTTP listener is not wanted on fake sockets.
  server.removeAllListeners('connection');
  const limits = { ...loadConfig({}).http, maxConnectionsPerAddress: perAddress };
  limitConnections(server, limits, createLogger('silent'), new VirtualClock({ mode: 'frozen' }));
  return (socket: Socket) => server.emit('connection', socket);
}

test('over the limit an address\'s new connection is closed; a destroyed one no longer counts, before its close event', () => {
  const connect = serverWithLimit(2);
  const [a, b] = [fakeSocket('10.0.0.1'), fakeSocket('10.0.0.1')];
  connect(a);
  connect(b);
  const third = fakeSocket('10.0.0.1');
  connect(third);
  assert.equal(third.destroyed, true, 'a third connection from the address is refused');
  const other = fakeSocket('10.0.0.2');
  connect(other);
  assert.equal(other.destroyed, false, 'another address is not affected');

  a.destroy(); // timed out by the server: its 'close' has not been emitted yet
  const again = fakeSocket('10.0.0.1');
  connect(again);
  assert.equal(again.destroyed, false, 'the destroyed connection no longer counts');
  a.closeNow();
  const over = fakeSocket('10.0.0.1');
  connect(over);
  assert.equal(over.destroyed, true, 'b and the new one count: the limit holds');
  b.destroy();
  b.closeNow();
  const last = fakeSocket('10.0.0.1');
  connect(last);
  assert.equal(last.destroyed, false, 'a closed connection frees its place');
});
