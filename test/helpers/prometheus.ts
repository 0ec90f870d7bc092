// Reads a Prometheus text scrape: which metrics it declares (# TYPE) and their samples, so tests
// can check that every declared metric has a value and read one series.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  /** Metric name → type, from the `# TYPE` lines. */
  declared: Map<string, string>;
  samples: Sample[];
}

export function parseScrape(text: string): Scrape {
  const declared = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (name && type) declared.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { declared, samples };
}

/** The samples of a metric (histograms and summaries: their _bucket/_sum/_count series too). */
export function samplesOf(scrape: Scrape, name: string): Sample[] {
  const type = scrape.declared.get(name);
  const names = type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : type === 'summary' ? [name, `${name}_sum`, `${name}_count`] : [name];
  return scrape.samples.filter((s) => names.includes(s.name));
}

/** The value of one series (labels must match exactly the ones given); undefined when absent. */
export function valueOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  return scrape.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

/** prom-client's default process metrics (prefixed zapgate_ too): some have no sample by nature. */
const DEFAULT_METRICS = /^zapgate_(process|nodejs)_/;

/** Declared zapgate_* metrics of the gateway's own (not the process defaults) without a single sample. */
export function metricsWithoutSamples(scrape: Scrape): string[] {
  return [...scrape.declared.keys()].filter((name) => name.startsWith('zapgate_') && !DEFAULT_METRICS.test(name) && samplesOf(scrape, name).length === 0);
}
