import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookVerdict } from '../../contracts/tickets/webhook-signature';
import { closeServer } from './loopback';

export interface ReceivedWebhook {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  verdict: WebhookVerdict;
  json: {
    id: string;
    event: string;
    data: { ticket: Record<string, unknown>; feedback?: Record<string, unknown> };
  };
}

/**
 * A receiver as an integrator would write it: a real HTTP server on 127.0.0.1 that checks every
 * request with the documented verification function. `answer` decides each status (default 200).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  secret = '';
  answer: (n: number, hook: ReceivedWebhook) => number = () => 200;
  private server?: Server;
  port = 0;

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const at = Date.now();
        const hook: ReceivedWebhook = {
          at,
          headers: req.headers,
          body,
          verdict: this.judge({ body, headers: req.headers, at }),
          json: JSON.parse(body) as ReceivedWebhook['json'],
        };
        this.received.push(hook);
        res.writeHead(hook.verdict.ok ? this.answer(this.received.length, hook) : 400).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async stop(): Promise<void> {
    if (this.server === undefined) return;
    await closeServer(this.server);
    this.server = undefined;
  }

  /**
   * What arrived not signed with `secret`, each judged as at the moment it arrived. A receiver
   * learns its secret only once the create that made it answers, and a delivery may come first (a
   * 400 then, and a retry): `verdict` judged that one by the '' it had, this by the secret.
   */
  badlySigned(): ReceivedWebhook[] {
    return this.received.filter((hook) => !this.judge(hook).ok);
  }

  /** The documented verification of one delivery with the secret held now, as at its arrival. */
  private judge({ body, headers, at }: Pick<ReceivedWebhook, 'body' | 'headers' | 'at'>): WebhookVerdict {
    return verifyWebhook({
      secret: this.secret,
      body,
      timestamp: headers['x-service-timestamp'],
      signature: headers['x-service-signature'],
      nowSeconds: Math.floor(at / 1000),
    });
  }

  /** Resolves once `predicate` holds for what arrived, or rejects after `timeoutMs`. */
  async waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) {
        throw new Error(
          `webhooks not as expected within ${timeoutMs} ms; got ${this.received.map((r) => r.json.event).join(', ')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
