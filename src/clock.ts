// Time through one interface, so delays, pacing, QR expiry and retries can run on a scaled clock.

export interface Clock {
  /** Wall-clock milliseconds since the epoch (never scaled: timestamps stay real). */
  now(): number;
  /** Waits `ms` of protocol time, i.e. `ms * timeScale` of real time. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Schedules `fn` after `ms` of protocol time; returns a cancel function. */
  setTimer(ms: number, fn: () => void): () => void;
  /** Converts protocol milliseconds to real milliseconds. */
  scale(ms: number): number;
  readonly timeScale: number;
}

export function systemClock(timeScale = 1): Clock {
  const scale = (ms: number): number => Math.max(0, Math.round(ms * timeScale));
  return {
    timeScale,
    now: () => Date.now(),
    scale,
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, scale(ms));
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    setTimer(ms, fn) {
      const timer = setTimeout(fn, scale(ms));
      timer.unref?.();
      return () => clearTimeout(timer);
    },
  };
}
