/**
 * A small Prometheus text-format registry: counters and latency histograms, enough for `/metrics` without a
 * dependency. Per process; a scraper adds the processes up.
 */

type Labels = Record<string, string>;

const DEFAULT_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (!entries.length) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`).join(',')}}`;
}

interface Histogram {
  buckets: number[];
  counts: number[];
  sum: number;
  count: number;
}

export class Metrics {
  private readonly counters = new Map<string, Map<string, number>>();
  private readonly histograms = new Map<string, Map<string, Histogram>>();
  private readonly help = new Map<string, string>();
  private readonly gauges = new Map<string, () => Promise<number> | number>();

  constructor(private readonly namespace = 'gateway_bot') {}

  inc(name: string, labels: Labels = {}, by = 1, help = ''): void {
    const full = `${this.namespace}_${name}`;
    if (help) this.help.set(full, help);
    const series = this.counters.get(full) ?? new Map<string, number>();
    const key = labelText(labels);
    series.set(key, (series.get(key) ?? 0) + by);
    this.counters.set(full, series);
  }

  observe(name: string, valueMs: number, labels: Labels = {}, help = ''): void {
    const full = `${this.namespace}_${name}`;
    if (help) this.help.set(full, help);
    const series = this.histograms.get(full) ?? new Map<string, Histogram>();
    const key = labelText(labels);
    const h = series.get(key) ?? {
      buckets: DEFAULT_BUCKETS_MS,
      counts: DEFAULT_BUCKETS_MS.map(() => 0),
      sum: 0,
      count: 0,
    };
    h.buckets.forEach((b, i) => {
      if (valueMs <= b) h.counts[i] = (h.counts[i] ?? 0) + 1;
    });
    h.sum += valueMs;
    h.count += 1;
    series.set(key, h);
    this.histograms.set(full, series);
  }

  /** A gauge read at scrape time (queue depth, say). */
  gauge(name: string, read: () => Promise<number> | number, help = ''): void {
    const full = `${this.namespace}_${name}`;
    if (help) this.help.set(full, help);
    this.gauges.set(full, read);
  }

  counter(name: string, labels: Labels = {}): number {
    return this.counters.get(`${this.namespace}_${name}`)?.get(labelText(labels)) ?? 0;
  }

  async render(): Promise<string> {
    const lines: string[] = [];
    const head = (name: string, type: string) => {
      const help = this.help.get(name);
      if (help) lines.push(`# HELP ${name} ${help}`);
      lines.push(`# TYPE ${name} ${type}`);
    };
    for (const [name, series] of this.counters) {
      head(name, 'counter');
      for (const [labels, value] of series) lines.push(`${name}${labels} ${value}`);
    }
    for (const [name, series] of this.histograms) {
      head(name, 'histogram');
      for (const [labels, h] of series) {
        const inner = labels.slice(1, -1);
        const join = (extra: string) => `{${inner ? `${inner},` : ''}${extra}}`;
        h.buckets.forEach((b, i) => {
          lines.push(`${name}_bucket${join(`le="${b}"`)} ${h.counts[i]}`);
        });
        lines.push(`${name}_bucket${join('le="+Inf"')} ${h.count}`);
        lines.push(`${name}_sum${labels} ${h.sum}`);
        lines.push(`${name}_count${labels} ${h.count}`);
      }
    }
    for (const [name, read] of this.gauges) {
      head(name, 'gauge');
      try {
        lines.push(`${name} ${await read()}`);
      } catch {
        lines.push(`${name} NaN`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}
