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
import { TimeLapseClock } from '../src/clock.js';

function listen(onConn: (ws: WsConnection) => void): Promise<Server> {
  const server = createServer();
  server.on('upgrade', (req, socket) => {
    const ws = acceptWebSocket(req, socket, new TimeLapseClock());
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

test('a client killed with SIGKILL is seen closed at once, with nothing written to it', async () => {
  let conn: WsConnection | null = null;
  let closedAt = 0;
  const server = await listen((ws) => {
    conn = ws;
    ws.onClose = () => (closedAt = Date.now());
  });
  try {
    const port = (server.address() as AddressInfo).port;
    const child = spawn(process.execPath, ['-e', CLIENT, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    assert.ok(conn, 'the server accepted the upgrade');
    assert.equal((conn as WsConnection).isOpen, true);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    const deadline = Date.now() + 5_000;
    while (closedAt === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(closedAt > 0, 'the connection of the dead client was closed (the server never wrote to it)');
    assert.equal((conn as WsConnection).isOpen, false);
    assert.ok(closedAt - killedAt < 1_000, `closed ${closedAt - killedAt} ms after the kill`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
