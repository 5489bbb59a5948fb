/**
 * A wait that counts down on one line of stderr, redrawn in place each second on a terminal and cut to its width, so
 * that it is never split over two lines (a line the terminal wraps cannot be redrawn). It is shown with -q too: a
 * blank screen for minutes reads as a hang.
 */
import type { OutputStream } from './io.js';
import { cutToWidth, liveLineBudget } from './width.js';

const CLEAR_LINE = '\r\u001b[2K';

export interface Countdown {
  /** Removes the line. */
  stop: () => void;
}

/** Draws `line()` now and every second until stopped. */
export function startCountdown(stream: OutputStream, line: () => string): Countdown {
  const draw = () => stream.write(`${CLEAR_LINE}${cutToWidth(line(), liveLineBudget(stream.columns))}`);
  draw();
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      stream.write(CLEAR_LINE);
    },
  };
}
