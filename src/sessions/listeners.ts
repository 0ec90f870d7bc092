// A list of listeners called in order; one that throws is logged and counted, never stops the rest.
export class Listeners<A extends unknown[]> {
  private readonly list: ((...args: A) => void)[] = [];

  constructor(
    private readonly what: string,
    private readonly failed: (err: unknown, what: string) => void,
  ) {}

  add(listener: (...args: A) => void): void {
    this.list.push(listener);
  }

  call(...args: A): void {
    for (const l of this.list) {
      try {
        l(...args);
      } catch (err) {
        this.failed(err, this.what);
      }
    }
  }
}
