// Remembers which methods each route path accepts, so a known path with the wrong method gets
// 405 with an Allow header instead of the router's plain 404.

export class MethodIndex {
  private readonly routes: { pattern: RegExp; method: string }[] = [];

  add(method: string | string[], url: string): void {
    const pattern = new RegExp(
      '^' + url.replace(/\/+$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+') + '/?$',
    );
    for (const m of Array.isArray(method) ? method : [method]) this.routes.push({ pattern, method: m });
  }

  allowed(path: string): string[] {
    const out = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) out.add(r.method);
    return [...out].sort();
  }
}
