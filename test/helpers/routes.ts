// The routes a Fastify app really registered (from its route tree), to check that /openapi.json
// documents every one of them.
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  /** Fastify syntax: `/instances/:instanceId/…` */
  url: string;
}

/** Parses `printRoutes({commonPrefix:false})`: one line per node, indented four columns per level. */
export function registeredRoutes(app: Pick<FastifyInstance, 'printRoutes'>): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const level = (at - 1) / 4;
    const m = /^(\S+)(?: \(([^)]*)\))?/.exec(line.slice(at + 3));
    if (!m?.[1]) continue;
    stack.length = level;
    stack.push(m[1]);
    for (const method of (m[2] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      out.push({ method, url: stack.join('') });
    }
  }
  return out;
}

/** `/a/:b/c` → `/a/{b}/c` (OpenAPI path syntax). */
export function toOpenApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
