/**
 * Garbage collection after heavy traffic. Each big event leaves megabytes of garbage (the body's buffers, its text,
 * the parse, the copies sent to the app and the command), made faster than V8's heuristics collect it: a burst of
 * 1 MiB events reached 180–220 MB of RSS although what was alive stayed under 60 MB. So after every 16 MiB of bodies
 * the listener asks for a full collection (a few milliseconds at these heap sizes).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const EVERY_BYTES = 16 * 1024 * 1024;
/** A small event makes garbage too (its parse, the forward, the log line): each counts as at least this. */
const LEAST_PER_EVENT = 64 * 1024;

/** `gc()`, made reachable once; undefined where the runtime refuses (then V8's own heuristics stay in charge). */
function collector(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** Returns `handled(bytes)`: counts bytes of bodies handled (64 KiB at least per event), collects after every 16 MiB. */
export function collectAfterTraffic(): (bytes: number) => void {
  const gc = collector();
  let since = 0;
  return (bytes) => {
    since += Math.max(bytes, LEAST_PER_EVENT);
    if (since < EVERY_BYTES || gc === undefined) return;
    since = 0;
    gc();
  };
}
