/** About this much text is gathered before it is written (one write, one system call for a pipe or a file). */
export const BLOCK_SIZE = 64 * 1024;

/**
 * Where text goes: a Writable, or (cli.ts) stdout written straight to its descriptor until a
 * command makes the stream. `write` returns false when the caller should wait for 'drain';
 * a failure reaches the callback.
 */
export interface TextSink {
  write(text: string, callback?: (err?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

export interface BlockWriterOptions {
  /** What a failed write becomes (the error the stream gave otherwise). */
  failure?: (err: unknown) => unknown;
  /** Aborts a wait for the stream to drain. */
  signal?: AbortSignal;
  blockSize?: number;
}

/**
 * Writes rows in blocks of about 64 KB, not a system call per row, flushed whenever the producer
 * waits so rows still appear as pages arrive; back-pressure and a failed write are passed on
 * (src/ui/README.md).
 */
export class BlockWriter {
  private held = '';
  private idle: ReturnType<typeof setImmediate> | undefined;
  private drained: { promise: Promise<void>; settle: (err?: unknown) => void } | undefined;
  private failed: { error: unknown } | undefined;
  private readonly blockSize: number;

  constructor(
    private readonly stream: TextSink,
    private readonly options: BlockWriterOptions = {},
  ) {
    this.blockSize = options.blockSize ?? BLOCK_SIZE;
  }

  /** Adds text; a promise when the caller must wait (the stream is full), else undefined. */
  write(text: string): Promise<void> | undefined {
    if (this.failed) return Promise.reject(this.failed.error);
    this.held += text;
    if (this.held.length >= this.blockSize) return this.flush();
    this.idle ??= setImmediate(this.onIdle);
    return this.drained?.promise;
  }

  /** Writes what is held; resolves once the stream can take more. */
  flush(): Promise<void> | undefined {
    if (this.idle) {
      clearImmediate(this.idle);
      this.idle = undefined;
    }
    if (this.failed) return Promise.reject(this.failed.error);
    if (this.held !== '') {
      const block = this.held;
      this.held = '';
      let ok: boolean;
      try {
        ok = this.stream.write(block, (err) => {
          if (err) this.fail(err);
        });
      } catch (err) {
        this.fail(err);
        return Promise.reject(this.failed!.error);
      }
      if (!ok) return this.waitForDrain();
    }
    return this.drained?.promise;
  }

  /** Writes what is left and waits for the stream to take it; fails if any write failed. */
  async end(): Promise<void> {
    await this.flush();
    if (this.failed) throw this.failed.error;
  }

  private readonly onIdle = () => {
    this.idle = undefined;
    // A failure is kept for the next write or end.
    this.flush()?.catch(() => undefined);
  };

  /** A promise that settles when the stream drains (or fails, or the signal aborts); one at a time. */
  private waitForDrain(): Promise<void> {
    if (this.drained) return this.drained.promise;
    const { signal } = this.options;
    let settle!: (err?: unknown) => void;
    const promise = new Promise<void>((resolve, reject) => {
      settle = (err) => {
        this.stream.off('drain', onDrain);
        signal?.removeEventListener('abort', onAbort);
        if (this.drained?.promise === promise) this.drained = undefined;
        if (err === undefined) resolve();
        else reject(err);
      };
    });
    const onDrain = () => settle();
    const onAbort = () => settle(signal!.reason ?? new Error('aborted'));
    // Nobody may be waiting yet (the block was written from the idle check): no unhandled rejection.
    promise.catch(() => undefined);
    this.drained = { promise, settle };
    this.stream.once('drain', onDrain);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return promise;
  }

  private fail(err: unknown): void {
    if (!this.failed) this.failed = { error: this.options.failure ? this.options.failure(err) : err };
    this.drained?.settle(this.failed.error);
  }
}
