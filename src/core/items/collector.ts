import { InputError } from '../../errors.js';
import { SPLIT_HINT } from './messages.js';
import { formatCount } from '../../output/numbers.js';

/** How positions in a source are written: `file:12`, `file item 12`, or `argument 12`. */
export type PositionStyle = 'line' | 'item' | 'argument';

interface Segment {
  start: number;
  name: string;
  style: PositionStyle;
}

/** Takes each item as it is read, with its position in the current source (`collector.describe(position)`). */
export type ItemSink = (item: string, position: number, collector: ItemCollector) => void;

/**
 * Accumulates items from every source with one small number per item (its line, element or argument number), so
 * messages can name `file:line` for any item without a string or object per item. With a `sink`, items stream to it
 * instead and nothing is kept per item.
 */
export class ItemCollector {
  readonly items: string[] = [];
  private readonly positions: number[] = [];
  private readonly segments: Segment[] = [];
  private total = 0;

  constructor(
    private readonly maxItems: number,
    private readonly sink?: ItemSink,
  ) {}

  /** Items added so far, over all sources. */
  get count(): number {
    return this.total;
  }

  /** Starts a new source; later `add` calls belong to it. */
  begin(name: string, style: PositionStyle): void {
    this.segments.push({ start: this.total, name, style });
  }

  add(item: string, position: number): void {
    if (this.total >= this.maxItems) {
      throw new InputError(
        `too many items: more than ${formatCount(this.maxItems)} (stopped at ${this.describe(position)})`,
        SPLIT_HINT,
      );
    }
    this.total++;
    if (this.sink) {
      this.sink(item, position, this);
      return;
    }
    this.items.push(item);
    this.positions.push(position);
  }

  /** Items added since `begin` of the current source. */
  get countInCurrent(): number {
    const segment = this.segments[this.segments.length - 1];
    return segment ? this.total - segment.start : 0;
  }

  where(index: number): string {
    const position = this.positions[index];
    const segment = this.segmentOf(index);
    if (position === undefined || !segment) return `item ${index + 1}`;
    return formatPosition(segment.name, segment.style, position);
  }

  /** The current source's position, for errors raised while reading it. */
  describe(position: number): string {
    const segment = this.segments[this.segments.length - 1];
    return segment ? formatPosition(segment.name, segment.style, position) : `item ${position}`;
  }

  private segmentOf(index: number): Segment | undefined {
    // Few sources, so a backwards scan beats a binary search in clarity at no real cost.
    return this.segments.findLast((segment) => segment.start <= index);
  }
}

function formatPosition(name: string, style: PositionStyle, position: number): string {
  if (style === 'argument') return `argument ${position}`;
  if (style === 'item') return `${name} item ${position}`;
  return `${name}:${position}`;
}
