// Bytes a directory holds (every file below it), for the benches that report what a run left on disk.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function du(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? du(p) : statSync(p).size;
  }
  return total;
}
