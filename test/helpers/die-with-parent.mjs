// Preloaded (node --import) into every gateway process a test spawns (test/helpers/process-gateway.ts):
// the gateway ends when the test process that started it is gone. A test file killed at the
// runner's timeout cannot stop its children, and a gateway left running (a campaign still sending,
// say) takes CPU from every test after it. Plain JavaScript: it runs before tsx, and beside the
// compiled build too.
import process from 'node:process';
import { setInterval } from 'node:timers';

const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
}, 1_000).unref();
