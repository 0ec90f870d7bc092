// update-antiban reaches the sender: InstancesService asks the SessionsPort to apply the setting,
// and this wrapper also hands it to the instance's sender lane — the worker that actually applies
// it — so `workerSynced` reports what the sender did, not just whether a socket is open.
import type { SessionsPort } from '../sessions/port.js';
import type { Sender } from './sender.js';

export function withLiveAntiban(port: SessionsPort, sender: Pick<Sender, 'applyAntiban'>): SessionsPort {
  return new Proxy(port, {
    get(target, prop, receiver) {
      if (prop === 'applyAntiban') {
        return (instanceId: string, enabled: boolean): boolean => {
          const sessionRunning = target.applyAntiban(instanceId, enabled);
          return sender.applyAntiban(instanceId, enabled) && sessionRunning;
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      // Methods run against the engine itself, not the proxy (its private state lives there).
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
