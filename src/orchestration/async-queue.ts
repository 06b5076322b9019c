/** A single-consumer queue: push values in, iterate them out; iteration ends after close(). */
export class AsyncQueue<T> implements AsyncIterable<T> {
  // A head index instead of shift(): a queue holding a 1,000-call turn stays linear.
  private items: T[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const resolve = this.waiting;
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
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
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
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
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
