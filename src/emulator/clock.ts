/**
 * Simulated time. It starts at the real time and runs `timeScale` times faster;
 * every timestamp the emulator writes and every simulated delay uses it, so a job
 * that takes a simulated minute finishes in 60/timeScale real seconds.
 */
export class Clock {
  private readonly realBase: number;
  private simBase: number;
  readonly timeScale: number;

  constructor(timeScale = 1, startAt = Date.now()) {
    if (!(timeScale > 0)) throw new Error('time scale must be a positive number');
    this.timeScale = timeScale;
    this.realBase = Date.now();
    this.simBase = Math.max(startAt, this.realBase);
  }

  /** Simulated milliseconds since the epoch. */
  nowMs(): number {
    return this.simBase + (Date.now() - this.realBase) * this.timeScale;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  private dateSecond = Number.NaN;
  private dateText = '';

  /**
   * Now as an HTTP-date (`Fri, 20 Nov 2026 10:00:00 GMT`), for the `Date` header of every
   * answer: simulated time, like every timestamp in a body. Made once per simulated second.
   */
  httpDate(): string {
    const second = Math.floor(this.nowMs() / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(second * 1000).toUTCString();
    }
    return this.dateText;
  }

  /** ISO 8601 UTC with milliseconds. */
  iso(ms = this.nowMs()): string {
    return new Date(ms).toISOString();
  }

  /** Moves simulated time forward (control path, for tests of retention). */
  advance(ms: number): void {
    this.simBase += ms;
  }

  /** Real milliseconds that `simMs` simulated milliseconds take. */
  realDelay(simMs: number): number {
    return Math.max(0, simMs / this.timeScale);
  }

  /** Runs fn after `simMs` of simulated time; returns a cancel function. The timer does not keep the process alive. */
  after(simMs: number, fn: () => void): () => void {
    const t = setTimeout(fn, this.realDelay(simMs));
    t.unref();
    return () => clearTimeout(t);
  }

  sleep(simMs: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.realDelay(simMs)).unref());
  }
}
