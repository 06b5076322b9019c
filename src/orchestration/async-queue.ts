/** A single-consumer queue: push values in, iterate them out; iteration ends after close() (or throws after fail()). */
export class AsyncQueue<T> implements AsyncIterable<T> {
  // A head index instead of shift(): a queue holding a 1,000-call turn stays linear.
  private items: T[] = [];
  private head = 0;
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: Error) => void } | undefined;
  private closed = false;
  private error: Error | undefined;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  /** Ends the queue with an error: the consumer gets the items pushed so far, then `error` is thrown. */
  fail(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.error = error;
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(error);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (this.head < this.items.length) {
          const value = this.items[this.head]!;
          this.items[this.head++] = undefined as T; // let it be collected
          if (this.head === this.items.length) {
            this.items = [];
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.closed) return this.error ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: (): Promise<IteratorResult<T>> => {
        this.close();
        this.items = [];
        this.head = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
