/**
 * A dispatcher that holds every request until the test lets it through to the one behind it (a MockAgent), in any
 * order: answers arrive in the order the test chooses, and what is held is what the command has in flight (its
 * method and path).
 */
import { EventEmitter } from 'node:events';
import { Dispatcher } from 'undici';

export class Gate extends Dispatcher {
  readonly #inner: Dispatcher;
  /** Requests sent and not yet let through, oldest first (their paths). */
  readonly held: Array<{ method: string; path: string; release: () => void }> = [];
  /** The most requests held at once. */
  most = 0;
  /** Emits `held` as each request comes. */
  readonly events = new EventEmitter();

  constructor(inner: Dispatcher) {
    super();
    this.#inner = inner;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const entry = {
      method: options.method,
      path: options.path,
      release: () => {
        this.held.splice(this.held.indexOf(entry), 1);
        this.#inner.dispatch(options, handler);
      },
    };
    this.held.push(entry);
    this.most = Math.max(this.most, this.held.length);
    this.events.emit('held');
    return true;
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }
}
