/** The account: balance, API key, tasks and webhook URL. In memory; persistence.ts saves and loads it. */
import { createHash } from 'node:crypto';
import { findService } from './simulated-services.js';
import { MAX_QUEUE_DELAY_MS, TaskRecord } from './timeline.js';
import type { StoredTask } from './timeline.js';

export interface AccountSnapshot {
  balance: number;
  apiKey: string;
  keyRotations: number;
  nextId: number;
  webhookUrl: string | null;
  tasks: StoredTask[];
}

export class SandboxState {
  balance: number;
  apiKey: string;
  keyRotations: number;
  nextId: number;
  webhookUrl: string | null;
  /** Creation order, which is also id order (`getTask` relies on it: no index per task). */
  readonly tasks: TaskRecord[] = [];
  /** Called after every mutation (the state file's journal hooks in here). */
  onChange: () => void = () => {};

  constructor(
    initial: AccountSnapshot,
    private readonly seed: string,
  ) {
    this.balance = initial.balance;
    this.apiKey = initial.apiKey;
    this.keyRotations = initial.keyRotations;
    this.nextId = initial.nextId;
    this.webhookUrl = initial.webhookUrl;
    for (const stored of initial.tasks) {
      const record = new TaskRecord(stored, findService(stored.service)?.platform ?? 'unknown');
      this.tasks.push(record);
      if (record.id >= this.nextId) this.nextId = record.id + 1;
    }
  }

  /** Binary search over the tasks, which are in id order. */
  getTask(id: number): TaskRecord | undefined {
    let lo = 0;
    let hi = this.tasks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const task = this.tasks[mid];
      if (task === undefined) return undefined;
      if (task.id === id) return task;
      if (task.id < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Charges `cost` and records the task; the caller has checked the balance and the service. */
  createTask(
    service: string,
    platform: string,
    items: string[],
    cost: number,
    now: number,
    itemMs: number,
  ): TaskRecord {
    const stored: StoredTask = {
      id: this.nextId++,
      service,
      items,
      cost,
      createdAt: now,
      startAt: now + Math.min(itemMs, MAX_QUEUE_DELAY_MS),
      itemMs,
    };
    const record = new TaskRecord(stored, platform);
    this.tasks.push(record);
    this.balance -= cost;
    this.onChange();
    return record;
  }

  setBalance(balance: number): void {
    this.balance = balance;
    this.onChange();
  }

  setWebhookUrl(url: string | null): void {
    this.webhookUrl = url;
    this.onChange();
  }

  /** Replaces the key (with `key`, or a new one derived from the seed) so the old one gets 401. */
  rotateKey(key?: string): string {
    this.keyRotations += 1;
    this.apiKey =
      key ??
      `sk_sandbox_${createHash('sha1').update(`${this.seed}\u0000key\u0000${this.keyRotations}`).digest('hex').slice(0, 24)}`;
    this.onChange();
    return this.apiKey;
  }

  /** The account, with the tasks from index `fromTask` up to `toTask` (the journal writes only the new ones). */
  toSnapshot(fromTask = 0, toTask = this.tasks.length): AccountSnapshot {
    return {
      balance: this.balance,
      apiKey: this.apiKey,
      keyRotations: this.keyRotations,
      nextId: this.nextId,
      webhookUrl: this.webhookUrl,
      tasks: this.tasks.slice(fromTask, toTask).map(({ id, service, items, cost, createdAt, startAt, itemMs }) => ({
        id,
        service,
        items,
        cost,
        createdAt,
        startAt,
        itemMs,
      })),
    };
  }
}
