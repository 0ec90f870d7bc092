// Safety net for network tests: every outgoing TCP connection (TLS included) goes through
// net.Socket#connect; while installed, a non-loopback destination throws before any packet leaves
// and is recorded, so the file fails. Tests may only ever dial loopback.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ConnectLog {
  /** Connections actually opened (all loopback), as `host:port`. */
  readonly dialed: string[];
  /** Refused non-loopback attempts, as `host:port`. */
  readonly violations: string[];
  /** True while the spy is the live Socket#connect (a test checks this before dialing TEST-NET). */
  installed(): boolean;
}

export function isLoopback(host: string): boolean {
  // Only literal addresses: the guard's agent always dials the IP it checked, never a name.
  return net.isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback';
}

function destination(args: unknown[]): { host: string; port: unknown } | null {
  // net.connect passes its already-normalised [options, callback] pair as one array argument.
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const o = first as { host?: unknown; port?: unknown; path?: unknown };
    if (typeof o.path === 'string') return null; // a Unix socket is not the network
    return { host: typeof o.host === 'string' ? o.host : 'localhost', port: o.port };
  }
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

/** Installs the spy for the current test file (before/after hooks); the file fails on any violation. */
export function loopbackOnlyConnections(): ConnectLog {
  const originalConnect = net.Socket.prototype.connect;
  const log: ConnectLog = { dialed: [], violations: [], installed: () => net.Socket.prototype.connect === spy };
  const spy = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const dest = destination(args);
    if (dest !== null) {
      const label = `${dest.host}:${String(dest.port)}`;
      if (!isLoopback(dest.host)) {
        log.violations.push(label);
        throw new Error(`test tried to connect to non-loopback ${label}`);
      }
      log.dialed.push(label);
    }
    return Reflect.apply(originalConnect, this, args) as net.Socket;
  } as typeof originalConnect;
  before(() => {
    net.Socket.prototype.connect = spy;
  });
  after(() => {
    net.Socket.prototype.connect = originalConnect;
    assert.deepEqual(log.violations, [], 'a test tried to connect outside loopback');
  });
  return log;
}
