import { fileMatchesPrefix } from "../../core/files/index.ts";
import type { FileStatusRecord, FileStatusStore } from "../../core/ports/index.ts";

function keyOf(account: string, profile: string, name: string): string {
  return `${account}\u0000${profile}\u0000${name}`;
}

function byCreation(a: FileStatusRecord, b: FileStatusRecord): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The reference FileStatusStore: records copied in and out, one per account, profile and file name. */
export class MemoryFileStatusStore implements FileStatusStore {
  private readonly records = new Map<string, FileStatusRecord>();

  constructor(private readonly isClosed: () => boolean = () => false) {}

  private check(): void {
    if (this.isClosed()) throw new Error("store is closed");
  }

  /** Removes every record at once, without awaiting (POST /admin/reset, Stores.eraseAll); answers how many there were. */
  eraseAll(): number {
    this.check();
    const count = this.records.size;
    this.records.clear();
    return count;
  }

  async create(record: FileStatusRecord): Promise<boolean> {
    this.check();
    const key = keyOf(record.account, record.profile, record.name);
    if (this.records.has(key)) return false;
    this.records.set(key, structuredClone(record));
    return true;
  }

  async find(account: string, profile: string, name: string): Promise<FileStatusRecord | null> {
    this.check();
    const found = this.records.get(keyOf(account, profile, name));
    return found ? structuredClone(found) : null;
  }

  async replace(previous: FileStatusRecord, next: FileStatusRecord): Promise<boolean> {
    this.check();
    const key = keyOf(previous.account, previous.profile, previous.name);
    const existing = this.records.get(key);
    if (
      !existing ||
      existing.id !== previous.id ||
      !existing.finished ||
      keyOf(next.account, next.profile, next.name) !== key
    )
      return false;
    this.records.set(key, structuredClone(next));
    return true;
  }

  async update(record: FileStatusRecord): Promise<void> {
    this.check();
    const key = keyOf(record.account, record.profile, record.name);
    const existing = this.records.get(key);
    if (!existing || existing.id !== record.id) return;
    this.records.set(
      key,
      structuredClone({
        ...existing,
        nodeId: record.nodeId,
        file: record.file,
        status: record.status,
        finished: record.finished,
        progress: record.progress,
      }),
    );
  }

  async count(account: string, profile: string, prefix: string, from: number, to: number): Promise<number> {
    return (await this.search(account, profile, prefix, from, to)).length;
  }

  async search(
    account: string,
    profile: string,
    prefix: string,
    from: number,
    to: number,
  ): Promise<FileStatusRecord[]> {
    this.check();
    return [...this.records.values()]
      .filter(
        (record) =>
          record.account === account &&
          record.profile === profile &&
          fileMatchesPrefix(record, prefix) &&
          record.createdAt >= from &&
          record.createdAt <= to,
      )
      .sort(byCreation)
      .map((record) => structuredClone(record));
  }

  async list(account: string, profile: string, limit: number): Promise<FileStatusRecord[]> {
    this.check();
    return [...this.records.values()]
      .filter((record) => record.account === account && record.profile === profile)
      .sort((a, b) => byCreation(b, a))
      .slice(0, Math.max(0, limit))
      .map((record) => structuredClone(record));
  }

  async unfinished(): Promise<FileStatusRecord[]> {
    this.check();
    return [...this.records.values()]
      .filter((record) => !record.finished)
      .sort(byCreation)
      .map((record) => structuredClone(record));
  }
}
