// The package ships no types; this is the shape of what it returns.
declare module 'parse-prometheus-text-format' {
  export interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'SUMMARY' | 'HISTOGRAM' | 'UNTYPED';
    metrics: {
      value?: string;
      count?: string;
      sum?: string;
      buckets?: Record<string, string>;
      quantiles?: Record<string, string>;
      labels?: Record<string, string>;
    }[];
  }
  export default function parse(text: string): MetricFamily[];
}
