/** A stdout that fails like a closed pipe (EPIPE) from the `okWrites + 1`-th write on, as Node's streams do. */
import { EventEmitter } from 'node:events';
import { createMemoryStream } from '../../../src/output/memory-io.js';

export function brokenStdout(okWrites: number) {
  const memory = createMemoryStream();
  const emitter = new EventEmitter();
  let writes = 0;
  return Object.assign(emitter, {
    isTTY: false,
    text: () => memory.text(),
    write(chunk: string, callback?: (error?: Error) => void) {
      if (chunk === '') {
        setImmediate(() => callback?.());
        return true;
      }
      writes += 1;
      if (writes > okWrites) {
        const error = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        process.nextTick(() => emitter.emit('error', error));
        return false;
      }
      memory.write(chunk);
      return true;
    },
  });
}
