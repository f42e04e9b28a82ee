import { createHmac } from 'node:crypto';
import { GRAPH_VERSION, WhatsAppGraph } from './whatsapp-graph';

describe('the fake WhatsApp Graph API', () => {
  const graph = new WhatsAppGraph();
  let base: string;

  beforeAll(async () => {
    base = await graph.start();
  });

  afterAll(() => graph.stop());

  const send = (token: string, body: Record<string, unknown>) =>
    fetch(`${base}/${graph.phoneNumberId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers a send with the Cloud API’s contacts and a wamid, and records it', async () => {
    expect(base).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/${GRAPH_VERSION}$`));
    const answer = await send(graph.accessToken, {
      messaging_product: 'whatsapp',
      to: '9647701234567',
      type: 'text',
      text: { body: 'hello' },
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { contacts: unknown[]; messages: { id: string }[] };
    expect(body.contacts).toEqual([{ input: '9647701234567', wa_id: '9647701234567' }]);
    expect(body.messages[0]!.id).toMatch(/^wamid\./);
    expect(graph.sendsTo('9647701234567')).toEqual([
      expect.objectContaining({ answered: 200, messageId: body.messages[0]!.id }),
    ]);
  });

  it('refuses a wrong token with 401 and a told refusal with its Graph error', async () => {
    expect((await send('wrong', { to: '1' })).status).toBe(401);
    graph.refusals.push({ status: 400, code: 131047, message: 'Re-engagement message' });
    const refused = await send(graph.accessToken, { messaging_product: 'whatsapp', to: '2', type: 'text' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { code: 131047, type: 'OAuthException', message: 'Re-engagement message' },
    });
  });

  it('signs webhook payloads as Meta does: HMAC-SHA256 of the raw bytes with the app secret', () => {
    const payload = graph.messagesPayload([{ from: '9647700000000', body: 'hi', id: 'wamid.x' }]);
    expect(payload).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [
        { changes: [{ field: 'messages', value: { metadata: { phone_number_id: graph.phoneNumberId } } }] },
      ],
    });
    const raw = JSON.stringify(payload);
    expect(graph.sign(raw)).toBe(`sha256=${createHmac('sha256', graph.appSecret).update(raw).digest('hex')}`);
  });
});
