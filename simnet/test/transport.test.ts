// The websocket transport sees a client go the moment its TCP connection ends: a client process
// killed with SIGKILL (its kernel closes the socket, no close frame) is not left counted as
// connected, so a later login of the same device is not mistaken for a second concurrent socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import { acceptWebSocket, type WsConnection } from '../src/transport/websocket.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import type { SimClock } from '../src/clock.js';

// Guards that never fire: a close seen here can only come from the socket itself, never from a
// timer of the transport's.
const NO_GUARDS: Pick<SimClock, 'setGuard'> = { setGuard: () => () => undefined };

function listen(onConn: (ws: WsConnection) => void): Promise<Server> {
  const server = createServer();
  server.on('upgrade', (req, socket) => {
    const ws = acceptWebSocket(req, socket, NO_GUARDS);
    if (ws) onConn(ws);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A client in a process of its own: upgrades, then idles until it is killed. */
const CLIENT = `
const s = require('node:net').connect(Number(process.argv[1]), '127.0.0.1', () => {
  s.write('GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n');
});
s.once('data', () => process.stdout.write('upgraded\\n'));
setInterval(() => {}, 1000);
`;

test('a client killed with SIGKILL is seen closed at once, with nothing written to it', async (t) => {
  let conn: WsConnection | null = null;
  let closed!: () => void;
  const closedEvent = new Promise<number>((resolve) => (closed = () => resolve(performance.now())));
  const server = await listen((ws) => {
    conn = ws;
    ws.onClose = () => closed();
  });
  try {
    const port = (server.address() as AddressInfo).port;
    const child = spawn(process.execPath, ['-e', CLIENT, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    assert.ok(conn, 'the server accepted the upgrade');
    assert.equal((conn as WsConnection).isOpen, true);
    const killedAt = performance.now();
    child.kill('SIGKILL');
    // Bounded only so a server that never notices fails here rather than hanging the file.
    const closedAt = await Promise.race([closedEvent, new Promise<null>((resolve) => setTimeout(resolve, 10_000, null).unref())]);
    assert.ok(closedAt !== null, 'the connection of the dead client was closed (the server never wrote to it)');
    assert.equal((conn as WsConnection).isOpen, false);
    t.diagnostic(`closed ${(closedAt - killedAt).toFixed(0)} ms after the kill`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
