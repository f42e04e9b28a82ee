import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { closeServer, loopbackUrl } from './loopback';

/** The Graph API version the fake answers under, as a real base URL carries one. */
export const GRAPH_VERSION = 'v21.0';

/** A send the fake received: what we POSTed to `/<version>/<phone-number-id>/messages`. */
export interface GraphSend {
  headers: IncomingHttpHeaders;
  body: {
    messaging_product: string;
    recipient_type?: string;
    to: string;
    type: 'text' | 'template';
    text?: { body: string; preview_url?: boolean };
    template?: {
      name: string;
      language: { code: string };
      components?: { type: string; parameters: { type: string; text: string }[] }[];
    };
  };
  /** The HTTP status answered; 0 while held. */
  answered: number;
  /** The wamid given, when it was accepted. */
  messageId?: string;
  at: number;
}

/** A Graph error as the Cloud API answers it (e.g. 131047: the 24-hour window has closed). */
export interface GraphRefusal {
  status: number;
  code: number;
  message: string;
}

/** An inbound text as Meta's webhook carries it. */
export interface InboundText {
  from: string;
  body: string;
  /** The message's id; a fresh wamid when not given. */
  id?: string;
  name?: string;
  /** Seconds since the epoch; now when not given. */
  timestamp?: number;
}

/** A status of one of our messages as Meta's webhook carries it. */
export interface StatusUpdate {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipientId: string;
  errors?: { code: number; title: string; message?: string }[];
}

const wamid = () => `wamid.${randomBytes(24).toString('base64url')}`;

/**
 * A local server playing Meta's WhatsApp Cloud API on 127.0.0.1: answers sends as the Graph API
 * does (Bearer token checked; a message id per accepted send), can be told to refuse the next sends
 * with a Graph error or to hold them unanswered, and records every send. It also plays Meta's
 * webhook side: builds `whatsapp_business_account` payloads and POSTs them signed
 * (`X-Hub-Signature-256`) to our endpoint.
 */
export class WhatsAppGraph {
  readonly sends: GraphSend[] = [];
  /** Errors answered to the next sends, one each, in order. */
  readonly refusals: GraphRefusal[] = [];
  /** While true, sends are recorded and left unanswered (a sender killed mid-call never hears back). */
  hold = false;
  private server?: Server;
  private baseUrl = '';

  constructor(
    readonly phoneNumberId = '106540352242922',
    readonly accessToken = 'EAAG-test-access-token-0123456789',
    readonly appSecret = 'fake-app-secret-0123456789abcdef',
  ) {}

  /** Starts the server; resolves with the Graph base URL (with its version) for WHATSAPP_GRAPH_URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = `/${GRAPH_VERSION}/${this.phoneNumberId}/messages`;
        if (req.method !== 'POST' || req.url !== path) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(graphError(100, 'Unknown path'));
          return;
        }
        if (req.headers.authorization !== `Bearer ${this.accessToken}`) {
          res
            .writeHead(401, { 'content-type': 'application/json' })
            .end(graphError(190, 'Invalid OAuth access token.'));
          return;
        }
        this.answerSend(req.headers, Buffer.concat(chunks).toString('utf8'), res);
      });
    });
    this.baseUrl = await loopbackUrl(this.server);
    return `${this.baseUrl}/${GRAPH_VERSION}`;
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeServer(this.server);
  }

  private answerSend(headers: IncomingHttpHeaders, raw: string, res: ServerResponse): void {
    const body = JSON.parse(raw) as GraphSend['body'];
    const send: GraphSend = { headers, body, answered: 0, at: Date.now() };
    this.sends.push(send);
    if (this.hold) return;
    const refusal = this.refusals.shift();
    if (refusal !== undefined) {
      send.answered = refusal.status;
      res
        .writeHead(refusal.status, { 'content-type': 'application/json' })
        .end(graphError(refusal.code, refusal.message));
      return;
    }
    send.answered = 200;
    send.messageId = wamid();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: body.to.replace(/^\+/, '') }],
        messages: [
          { id: send.messageId, ...(body.type === 'template' ? { message_status: 'accepted' } : {}) },
        ],
      }),
    );
  }

  /** The sends to one chat. */
  sendsTo(waId: string): GraphSend[] {
    return this.sends.filter((send) => send.body.to.replace(/^\+/, '') === waId);
  }

  /** Meta's webhook payload carrying inbound texts. */
  messagesPayload(texts: InboundText[], phoneNumberId = this.phoneNumberId): Record<string, unknown> {
    return envelope(phoneNumberId, {
      contacts: texts.map((t) => ({ profile: { name: t.name ?? 'Customer' }, wa_id: t.from })),
      messages: texts.map((t) => ({
        from: t.from,
        id: t.id ?? wamid(),
        timestamp: String(t.timestamp ?? Math.floor(Date.now() / 1000)),
        text: { body: t.body },
        type: 'text',
      })),
    });
  }

  /** Meta's webhook payload carrying statuses of our messages. */
  statusesPayload(statuses: StatusUpdate[], phoneNumberId = this.phoneNumberId): Record<string, unknown> {
    return envelope(phoneNumberId, {
      statuses: statuses.map((s) => ({
        id: s.id,
        status: s.status,
        timestamp: String(Math.floor(Date.now() / 1000)),
        recipient_id: s.recipientId,
        ...(s.status === 'failed' ? { errors: s.errors ?? [] } : {}),
        ...(s.status === 'sent'
          ? {
              conversation: { id: randomBytes(16).toString('hex'), origin: { type: 'service' } },
              pricing: { billable: false, pricing_model: 'CBP', category: 'service' },
            }
          : {}),
      })),
    });
  }

  /** `sha256=<hex HMAC-SHA256 of the raw bytes>`, as Meta signs with the app secret. */
  sign(raw: string | Buffer, secret = this.appSecret): string {
    return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  }

  /**
   * POSTs a payload to our webhook as Meta does; `signature: null` sends none, a string sends that
   * header as it is, and `secret` signs with another secret. Answers the status and body.
   */
  async post(
    url: string,
    payload: Record<string, unknown>,
    options: { signature?: string | null; secret?: string } = {},
  ): Promise<{ status: number; text: string }> {
    const raw = JSON.stringify(payload);
    const signature = options.signature === undefined ? this.sign(raw, options.secret) : options.signature;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'facebookexternalua',
        ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
      },
      body: raw,
    });
    return { status: response.status, text: await response.text() };
  }
}

function envelope(phoneNumberId: string, value: Record<string, unknown>): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              ...value,
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

function graphError(code: number, message: string): string {
  return JSON.stringify({
    error: {
      message,
      type: 'OAuthException',
      code,
      error_data: { messaging_product: 'whatsapp', details: message },
      fbtrace_id: randomBytes(12).toString('base64url'),
    },
  });
}
