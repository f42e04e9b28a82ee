import type { WhatsAppConfig } from '../../../common/config';
import type { WhatsAppContent } from './whatsapp-text';

const SEND_TIMEOUT_MS = 10_000;

/** The Graph API did not take the message: its error answer, or no answer at all. */
export class WhatsAppRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WhatsAppRefusal';
  }
}

/**
 * Sends messages through the WhatsApp Cloud API: `POST {graphUrl}/{phoneNumberId}/messages` with the
 * Bearer token, answering the message id (`wamid…`) its statuses will name. Plain fetch rather than
 * a client library: one call, and the base URL is ours to set (a local server in tests).
 */
export class WhatsAppGraphClient {
  private readonly url: string;

  constructor(private readonly whatsapp: WhatsAppConfig) {
    this.url = `${whatsapp.graphUrl}/${whatsapp.phoneNumberId}/messages`;
  }

  async send(to: string, content: WhatsAppContent): Promise<string> {
    let answer: Response;
    try {
      answer = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.whatsapp.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to, ...content }),
        redirect: 'error',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      throw new WhatsAppRefusal(`the Graph API could not be reached: ${(error as Error).message}`);
    }
    const body = (await answer.json().catch(() => ({}))) as {
      messages?: { id?: string }[];
      error?: { code?: number; message?: string };
    };
    const id = body.messages?.[0]?.id;
    if (answer.ok && typeof id === 'string') return id;
    const code = body.error?.code === undefined ? '' : ` (${body.error.code})`;
    throw new WhatsAppRefusal(`Graph API ${answer.status}${code}: ${body.error?.message ?? 'no message id'}`);
  }
}
