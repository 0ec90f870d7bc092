// Real proxies on loopback for the proxy tests: a SOCKS5 server (RFC 1928, with RFC 1929 user/pass)
// and an HTTP CONNECT proxy, both small, written on node:net. Each counts the connections it gets
// and records the host:port it relays them to; it only ever relays to loopback. stop() closes it
// (and every tunnel); start() listens again on the same port.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';

export interface TestProxy {
  readonly kind: 'socks5' | 'http';
  readonly port: number;
  /** Client connections accepted. */
  readonly connections: number;
  /** `host:port` of each tunnel opened onwards, in order. */
  readonly targets: string[];
  /** User names presented (SOCKS5 user/pass or Proxy-Authorization Basic). */
  readonly users: string[];
  /** `scheme://[user:pass@]127.0.0.1:port` */
  url(credentials?: { user: string; pass: string }): string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ProxyOptions {
  /** Required credentials; without them any client is served. */
  auth?: { user: string; pass: string };
}

/** Only loopback destinations are relayed: the tests never reach beyond this machine. */
function loopbackTarget(host: string): string | null {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return '127.0.0.1';
  if (isIP(h) === 4 && h.startsWith('127.')) return h;
  if (h === '::1') return h;
  return null;
}

abstract class Base {
  connections = 0;
  readonly targets: string[] = [];
  readonly users: string[] = [];
  port = 0;
  protected readonly sockets = new Set<Socket>();
  protected abstract server: Server | HttpServer;

  constructor(protected readonly options: ProxyOptions) {}

  protected track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** Connects onwards and splices the two sockets; `ok` is written to the client first. */
  protected relay(client: Socket, host: string, port: number, ok: () => Buffer, refused: () => Buffer, rest: Buffer): void {
    const target = loopbackTarget(host);
    if (target === null) {
      client.end(refused());
      return;
    }
    this.targets.push(`${host}:${port}`);
    const upstream = connect({ host: target, port });
    this.track(upstream);
    upstream.once('connect', () => {
      client.write(ok());
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.once('error', () => client.end(refused()));
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

class Socks5Proxy extends Base implements TestProxy {
  readonly kind = 'socks5' as const;
  protected server: Server = createServer((socket) => this.serve(socket));

  url(c?: { user: string; pass: string }): string {
    return `socks5://${c ? `${encodeURIComponent(c.user)}:${encodeURIComponent(c.pass)}@` : ''}127.0.0.1:${this.port}`;
  }

  private serve(socket: Socket): void {
    this.connections++;
    this.track(socket);
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' = 'greeting';
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (stage === 'greeting') {
          if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
          const methods = [...buf.subarray(2, 2 + buf[1]!)];
          buf = buf.subarray(2 + buf[1]!);
          const wanted = this.options.auth ? 0x02 : 0x00;
          if (!methods.includes(wanted)) {
            socket.end(Buffer.from([5, 0xff]));
            return;
          }
          socket.write(Buffer.from([5, wanted]));
          stage = this.options.auth ? 'auth' : 'request';
        } else if (stage === 'auth') {
          if (buf.length < 2) return;
          const ulen = buf[1]!;
          if (buf.length < 3 + ulen) return;
          const plen = buf[2 + ulen]!;
          if (buf.length < 3 + ulen + plen) return;
          const user = buf.subarray(2, 2 + ulen).toString();
          const pass = buf.subarray(3 + ulen, 3 + ulen + plen).toString();
          buf = buf.subarray(3 + ulen + plen);
          this.users.push(user);
          const ok = user === this.options.auth!.user && pass === this.options.auth!.pass;
          if (!ok) {
            socket.end(Buffer.from([1, 1]));
            return;
          }
          socket.write(Buffer.from([1, 0]));
          stage = 'request';
        } else {
          if (buf.length < 5) return;
          const atyp = buf[3]!;
          const addrLen = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? 1 + buf[4]! : -1;
          if (addrLen < 0 || buf[1] !== 1) {
            socket.end(Buffer.from([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]));
            return;
          }
          if (buf.length < 4 + addrLen + 2) return;
          const raw = buf.subarray(4, 4 + addrLen);
          const host = atyp === 1 ? [...raw].join('.') : atyp === 3 ? raw.subarray(1).toString() : ipv6(raw);
          const port = buf.readUInt16BE(4 + addrLen);
          const rest = buf.subarray(4 + addrLen + 2);
          socket.off('data', onData);
          this.relay(socket, host, port, () => Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]), () => Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]), rest);
          return;
        }
      }
    };
    socket.on('data', onData);
  }
}

function ipv6(raw: Buffer): string {
  const parts: string[] = [];
  for (let i = 0; i < 16; i += 2) parts.push(raw.readUInt16BE(i).toString(16));
  return parts.join(':').replace(/^0:0:0:0:0:0:0:1$/, '::1');
}

class HttpConnectProxy extends Base implements TestProxy {
  readonly kind = 'http' as const;
  protected server: HttpServer;

  constructor(options: ProxyOptions) {
    super(options);
    this.server = createHttpServer((_req, res) => res.writeHead(405).end());
    this.server.on('connection', (socket: Socket) => {
      this.connections++;
      this.track(socket);
    });
    this.server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => this.tunnel(req, socket, head));
  }

  url(c?: { user: string; pass: string }): string {
    return `http://${c ? `${encodeURIComponent(c.user)}:${encodeURIComponent(c.pass)}@` : ''}127.0.0.1:${this.port}`;
  }

  private tunnel(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const auth = req.headers['proxy-authorization'];
    if (auth) this.users.push(Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString().split(':')[0] ?? '');
    if (this.options.auth) {
      const expected = `Basic ${Buffer.from(`${this.options.auth.user}:${this.options.auth.pass}`).toString('base64')}`;
      if (auth !== expected) {
        socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
        return;
      }
    }
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!m) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.relay(
      socket,
      m[1]!,
      Number(m[2]),
      () => Buffer.from('HTTP/1.1 200 Connection Established\r\n\r\n'),
      () => Buffer.from('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'),
      head,
    );
  }
}

export async function startSocks5Proxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const p = new Socks5Proxy(options);
  await p.start();
  return p;
}

export async function startHttpConnectProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const p = new HttpConnectProxy(options);
  await p.start();
  return p;
}
