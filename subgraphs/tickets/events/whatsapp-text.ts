import type { TextLanguage } from '../../../common/language';
import { text } from '../../../common/messages';
import type { ClaimedWhatsApp } from './whatsapp-delivery.repository';

/** A message as the Cloud API takes it (`POST /{phone-number-id}/messages`), less `messaging_product` and `to`. */
export type WhatsAppContent =
  | { type: 'text'; text: { preview_url: false; body: string } }
  | {
      type: 'template';
      template: {
        name: string;
        language: { code: TextLanguage };
        components: { type: 'body'; parameters: { type: 'text'; text: string }[] }[];
      };
    };

const freeForm = (body: string): WhatsAppContent => ({ type: 'text', text: { preview_url: false, body } });

/** Both languages, Arabic first: for a chat no venue's language is known for. */
const bilingual = (id: 'whatsapp.help' | 'whatsapp.stop') => `${text(id, 'ar')}\n\n${text(id, 'en')}`;

/**
 * What one claimed message says. Alerts name the order's number and venue in the venue's language:
 * free-form inside the 24-hour window the customer's last message opened, the approved utility
 * template (`readyTemplate`, parameters {{1}} number and {{2}} venue) after it. Answers to the
 * customer's own messages are always inside the window.
 */
export function whatsAppContent(message: ClaimedWhatsApp, readyTemplate: string): WhatsAppContent {
  const language = message.language ?? 'ar';
  const values = { number: message.number ?? '', venue: message.venue_name ?? '' };
  switch (message.kind) {
    case 'ready':
    case 'ring':
      if (!message.in_window) {
        return {
          type: 'template',
          template: {
            name: readyTemplate,
            language: { code: language },
            components: [
              {
                type: 'body',
                parameters: [
                  { type: 'text', text: values.number },
                  { type: 'text', text: values.venue },
                ],
              },
            ],
          },
        };
      }
      return freeForm(
        text(message.kind === 'ready' ? 'ticket.sms_ready' : 'whatsapp.ring', language, values),
      );
    case 'confirm':
      return freeForm(text('whatsapp.confirm', language, values));
    case 'help':
      return freeForm(bilingual('whatsapp.help'));
    case 'stop':
      return freeForm(bilingual('whatsapp.stop'));
  }
}

/** Whether a customer's text asks us to stop: "stop" or "إيقاف", trimmed, any case. */
export function isStop(body: string): boolean {
  const word = body.trim().toLowerCase();
  return word === 'stop' || word === 'إيقاف';
}
