/** The part of autocannon's API the web benchmark uses (the package ships no types). */
declare module "autocannon" {
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  export interface Result {
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    headers?: Record<string, string>;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
