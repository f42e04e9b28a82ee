import { Counter, type Histogram } from 'prom-client';
import type { ProcessMetrics } from '../../../common/metrics';
import type { CvRenderer } from './renderer';

/** A PDF can wait for a page and print for up to RENDER_TIMEOUT_MS; HTML takes milliseconds. */
const RENDER_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30];

/** The cv subgraph's renderer families; the pool's state is read from the renderer on scrape. */
export class CvRenderMetrics {
  private readonly duration: Histogram<'format'>;

  constructor(metrics: ProcessMetrics, renderer: CvRenderer) {
    this.duration = metrics.histogram(
      'nida_cv_render_duration_seconds',
      "Duration of a CV export's rendering, by format (pdf includes the wait for a page).",
      ['format'],
      RENDER_BUCKETS,
    );
    metrics.gauge(
      'nida_cv_renderer_pages',
      "Chromium pages of the renderer's pool, by state.",
      ['state'],
      (gauge) => {
        const pages = renderer.pages();
        gauge.set({ state: 'in_use' }, pages.inUse);
        gauge.set({ state: 'idle' }, pages.idle);
      },
    );
    let counted = 0;
    new Counter({
      name: 'nida_cv_renderer_restarts_total',
      help: 'Chromium relaunches: after RENDER_MAX_JOBS_PER_BROWSER exports, or when it died.',
      registers: [metrics.registry],
      // The renderer counts its launches itself; the counter catches up with it on each scrape.
      collect() {
        const now = renderer.stats().restarts;
        if (now > counted) this.inc(now - counted);
        counted = now;
      },
    });
  }

  /** Times one export's rendering. */
  async time<T>(format: string, render: () => Promise<T>): Promise<T> {
    const end = this.duration.startTimer({ format });
    try {
      return await render();
    } finally {
      end();
    }
  }
}
