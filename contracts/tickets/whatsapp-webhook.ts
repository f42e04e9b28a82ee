import { z } from 'zod';

/**
 * Meta's WhatsApp webhook, as the REST adapter takes it and the tickets-events process handles it
 * (issue 55): where it is served, the header it is signed with, and the shape of what it carries
 * (Meta's `whatsapp_business_account` notifications; fields we do not read pass through unchecked).
 */
export const WHATSAPP_WEBHOOK_PATH = '/webhooks/whatsapp';

/** `sha256=<hex HMAC-SHA256 of the raw request bytes with the app secret>`. */
export const WHATSAPP_SIGNATURE_HEADER = 'x-hub-signature-256';

/** The job queue the adapter hands each signed payload to. */
export const WHATSAPP_INBOUND_QUEUE = 'whatsapp-inbound';

const inboundMessage = z.object({
  from: z.string(),
  id: z.string(),
  timestamp: z.string().optional(),
  type: z.string(),
  text: z.object({ body: z.string() }).optional(),
});

const statusUpdate = z.object({
  id: z.string(),
  status: z.string(),
  recipient_id: z.string().optional(),
  timestamp: z.string().optional(),
  errors: z
    .array(
      z.object({ code: z.number().optional(), title: z.string().optional(), message: z.string().optional() }),
    )
    .optional(),
});

const changeValue = z.object({
  messaging_product: z.string().optional(),
  metadata: z.object({ phone_number_id: z.string() }),
  contacts: z.array(z.object({ wa_id: z.string() })).optional(),
  messages: z.array(inboundMessage).optional(),
  statuses: z.array(statusUpdate).optional(),
});

export const whatsAppNotification = z.object({
  object: z.string(),
  entry: z.array(
    z.object({
      id: z.string().optional(),
      changes: z.array(z.object({ field: z.string(), value: changeValue })),
    }),
  ),
});

export type WhatsAppNotification = z.infer<typeof whatsAppNotification>;
export type WhatsAppInboundMessage = z.infer<typeof inboundMessage>;
export type WhatsAppStatusUpdate = z.infer<typeof statusUpdate>;
