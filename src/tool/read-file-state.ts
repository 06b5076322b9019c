/** What the session knows about a file it read: the basis of Edit and Write staleness checks. */
export interface ReadFileEntry {
  /** sha256 of the raw bytes as read. */
  contentHash: string;
  /** mtime in ms at the time of the read (or of our own last write). */
  mtimeMs: number;
  /** True when only a window (offset/limit, pages) was read. */
  partial: boolean;
  /** When the entry was recorded (ms since epoch). */
  recordedAt: number;
}

/**
 * A small LRU of absolute path → ReadFileEntry. Bounded so a long session cannot grow it
 * without limit; the least recently used path is forgotten first (and must be read again).
 */
export class ReadFileState {
  private readonly entries = new Map<string, ReadFileEntry>();

  constructor(readonly maxEntries = 500) {}

  get(path: string): ReadFileEntry | undefined {
    const entry = this.entries.get(path);
    if (entry !== undefined) {
      this.entries.delete(path);
      this.entries.set(path, entry);
    }
    return entry;
  }

  set(path: string, entry: ReadFileEntry): void {
    this.entries.delete(path);
    this.entries.set(path, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  delete(path: string): void {
    this.entries.delete(path);
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every entry, least recently used first (what a saved session state holds). */
  list(): Array<[string, ReadFileEntry]> {
    return [...this.entries].map(([path, entry]) => [path, { ...entry }]);
  }

  /** An independent copy (sub-agents start with what the parent knew, and diverge). */
  clone(): ReadFileState {
    const copy = new ReadFileState(this.maxEntries);
    for (const [path, entry] of this.entries) copy.entries.set(path, { ...entry });
    return copy;
  }
}
