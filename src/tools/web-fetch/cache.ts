/** A small time- and size-bounded cache of fetched pages (the reference keeps pages 15 minutes). */
export class PageCache<V extends { size: number }> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private total = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxTotal: number,
  ) {}

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.delete(key);
      return undefined;
    }
    // Most recently used last, so eviction takes the least recently used first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, now = Date.now()): void {
    if (this.ttlMs <= 0 || value.size > this.maxTotal) return;
    this.delete(key);
    this.entries.set(key, { value, expires: now + this.ttlMs });
    this.total += value.size;
    for (const [oldest] of this.entries) {
      if (this.total <= this.maxTotal) break;
      this.delete(oldest);
    }
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.total -= entry.value.size;
    this.entries.delete(key);
  }
}
