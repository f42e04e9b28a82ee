import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/** One message as the server took it: the envelope, and the headers and parts a test reads. */
export interface ReceivedMail {
  /** MAIL FROM of the envelope. */
  from: string;
  /** RCPT TO of the envelope. */
  to: string[];
  /** Header names in lower case, values unfolded and decoded. */
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string | undefined;
  /** Who logged in (AUTH), when the client did. */
  user: string | undefined;
  raw: string;
}

/**
 * A real SMTP server on 127.0.0.1 for tests: plain text, login optional and any password taken,
 * so the mailer under test goes through the same connection, AUTH and DATA as with a provider.
 */
export class LocalSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** smtp://127.0.0.1:PORT, for SMTP_URL. */
  url = '';
  private refusal: { code: number; message: string } | undefined;

  private readonly server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    // Advertised STARTTLS would make nodemailer upgrade to the server's self-signed certificate.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData: (stream, session, callback) => {
      readAll(stream)
        .then((raw) => {
          const refusal = this.refusal;
          this.refusal = undefined;
          if (refusal !== undefined) {
            callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
            return;
          }
          this.received.push(parseMail(raw, session));
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });

  private constructor() {}

  static async start(): Promise<LocalSmtpServer> {
    const smtp = new LocalSmtpServer();
    await new Promise<void>((resolve, reject) => {
      smtp.server.server.once('error', reject);
      smtp.server.listen(0, '127.0.0.1', () => resolve());
    });
    smtp.url = `smtp://127.0.0.1:${(smtp.server.server.address() as AddressInfo).port}`;
    return smtp;
  }

  /** The next message is answered with `code message` after its DATA, and not kept. */
  refuseNext(code: number, message: string): void {
    this.refusal = { code, message };
  }

  /** Resolves once `predicate` holds for what arrived, or rejects after `timeoutMs`. */
  async waitFor(predicate: (received: ReceivedMail[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) {
        const subjects = this.received.map((mail) => JSON.stringify(mail.subject)).join(', ');
        throw new Error(`mail not as expected within ${timeoutMs} ms; got ${subjects || 'none'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function readAll(stream: SMTPServerDataStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseMail(raw: string, session: SMTPServerSession): ReceivedMail {
  const { headers, body } = splitEntity(raw);
  const parts = { text: undefined as string | undefined, html: undefined as string | undefined };
  collectTextParts(headers, body, parts);
  return {
    from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
    to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    headers,
    subject: headers.get('subject') ?? '',
    text: parts.text ?? '',
    html: parts.html,
    user: typeof session.user === 'string' ? session.user : undefined,
    raw,
  };
}

/** Headers (unfolded, encoded words decoded) and the body of a message or of one MIME part. */
function splitEntity(entity: string): { headers: Map<string, string>; body: string } {
  const end = /\r?\n\r?\n/.exec(entity);
  const head = end === null ? entity : entity.slice(0, end.index);
  const body = end === null ? '' : entity.slice(end.index + end[0].length);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n(?=[ \t])/g, '').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeEncodedWords(line.slice(colon + 1).trim()));
  }
  return { headers, body };
}

/** The first text/plain and text/html that are not attachments, looking inside multiparts. */
function collectTextParts(
  headers: Map<string, string>,
  body: string,
  found: { text: string | undefined; html: string | undefined },
): void {
  const { type, params } = contentType(headers.get('content-type'));
  if (type.startsWith('multipart/') && params.boundary !== undefined) {
    for (const part of multipartParts(body, params.boundary)) {
      const entity = splitEntity(part);
      collectTextParts(entity.headers, entity.body, found);
    }
    return;
  }
  if (/^attachment\b/i.test(headers.get('content-disposition') ?? '')) return;
  const kind = type === 'text/plain' ? 'text' : type === 'text/html' ? 'html' : undefined;
  if (kind === undefined || found[kind] !== undefined) return;
  const bytes = decodeTransfer(body, headers.get('content-transfer-encoding') ?? '7bit');
  found[kind] = decodeCharset(bytes, params.charset).replace(/\r\n/g, '\n');
}

function contentType(value = 'text/plain'): { type: string; params: Record<string, string> } {
  const [type = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const match of rest.join(';').matchAll(/([\w-]+)\s*=\s*(?:"([^"]*)"|([^;\s]*))/g)) {
    params[match[1]!.toLowerCase()] = match[2] ?? match[3] ?? '';
  }
  return { type: type.trim().toLowerCase(), params };
}

function multipartParts(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let current: string[] | undefined;
  for (const line of body.split(/\r?\n/)) {
    if (line === `${delimiter}--`) break;
    if (line === delimiter) {
      if (current !== undefined) parts.push(current.join('\r\n'));
      current = [];
    } else {
      current?.push(line);
    }
  }
  if (current !== undefined) parts.push(current.join('\r\n'));
  return parts;
}

function decodeTransfer(body: string, encoding: string): Buffer {
  switch (encoding.trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.replace(/=\r?\n/g, ''));
    default:
      return Buffer.from(body, 'utf8');
  }
}

/** `=XX` is a byte; anything else is itself (a message that arrived 8-bit keeps its UTF-8). */
function decodeQuotedPrintable(value: string): Buffer {
  const bytes: Buffer[] = [];
  let last = 0;
  for (const match of value.matchAll(/=([0-9A-Fa-f]{2})/g)) {
    bytes.push(Buffer.from(value.slice(last, match.index), 'utf8'), Buffer.from([parseInt(match[1]!, 16)]));
    last = match.index + match[0].length;
  }
  bytes.push(Buffer.from(value.slice(last), 'utf8'));
  return Buffer.concat(bytes);
}

function decodeCharset(bytes: Buffer, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

const ENCODED_WORD = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g;

/**
 * RFC 2047 `=?charset?B|Q?…?=`. Adjacent words are joined before decoding: the whitespace between
 * them is folding, and a long subject may split one character's bytes across two words.
 */
function decodeEncodedWords(value: string): string {
  const joined = value.replace(/(\?=)\s+(?==\?[^?]+\?[BbQq]\?)/g, '$1');
  let out = '';
  let last = 0;
  let pending: { charset: string; bytes: Buffer[] } | undefined;
  const flush = () => {
    if (pending !== undefined) out += decodeCharset(Buffer.concat(pending.bytes), pending.charset);
    pending = undefined;
  };
  for (const match of joined.matchAll(ENCODED_WORD)) {
    const [word, charset = 'utf-8', encoding = 'B', data = ''] = match;
    if (match.index > last) {
      flush();
      out += joined.slice(last, match.index);
    }
    const bytes =
      encoding.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64')
        : decodeQuotedPrintable(data.replace(/_/g, ' '));
    const name = charset.toLowerCase().split('*')[0]!;
    if (pending?.charset !== name) flush();
    pending ??= { charset: name, bytes: [] };
    pending.bytes.push(bytes);
    last = match.index + word.length;
  }
  flush();
  return out + joined.slice(last);
}
