/** Request counters for `GET /__sandbox/stats`: per "METHOD route" of /api/v1 traffic, plus 429s sent. */
export interface StatsSnapshot {
  total: number;
  requests: Record<string, number>;
  rateLimited: number;
}

export class RequestStats {
  private total = 0;
  private requests = new Map<string, number>();
  private rateLimited = 0;

  count(label: string): void {
    this.total += 1;
    this.requests.set(label, (this.requests.get(label) ?? 0) + 1);
  }

  count429(): void {
    this.rateLimited += 1;
  }

  snapshot(): StatsSnapshot {
    return { total: this.total, requests: Object.fromEntries(this.requests), rateLimited: this.rateLimited };
  }

  reset(): void {
    this.total = 0;
    this.requests = new Map();
    this.rateLimited = 0;
  }
}
