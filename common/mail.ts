import { createTransport } from 'nodemailer';
import type { Config } from './config';
import type { TextLanguage } from './language';
import type { Logger } from './logger';
import { MESSAGES } from './catalogue-ar-en';
import { text, type MessageId } from './messages';
import { escapeHtml } from './html';

/** One mail to one person, already in the reader's language. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** A body fragment; the mailer wraps it in a document with the reader's language and direction. */
  html?: string;
  language: TextLanguage;
}

/** Hands a mail to the configured driver; resolves once it was accepted, throws when it was not. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/** The SMTP server did not take a mail; `responseCode` (4xx: try later, 5xx: don't) when it said why. */
export class MailNotSentError extends Error {
  constructor(
    message: string,
    readonly responseCode: number | undefined,
  ) {
    super(message);
    this.name = 'MailNotSentError';
  }
}

// A server that never answers must not hold a request or a job for nodemailer's default minutes.
const SMTP_TIMEOUT_MS = 10_000;

/** The driver config.mail names: `log` in development, `smtp` wherever mail must reach people. */
export function createMailer(config: Config['mail'], logger: Logger): Mailer {
  switch (config.driver) {
    case 'log':
      return logMailer(logger);
    case 'smtp':
      if (config.smtpUrl === undefined) throw new Error('MAIL_DRIVER=smtp needs SMTP_URL');
      return smtpMailer(config.smtpUrl, config.from);
  }
}

/**
 * Development's default. The links in these mails carry single-use tokens, so writing them to the
 * log is acceptable only here, where the log is the developer's own inbox; production uses smtp.
 */
function logMailer(logger: Logger): Mailer {
  return {
    send: ({ to, subject, text: body, language }) => {
      logger.info({ mail: { to, subject, language, text: body } }, 'mail (log driver)');
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

function smtpMailer(smtpUrl: string, from: string): Mailer {
  // Not pooled: mail to people is rare, and a fresh connection per mail survives server restarts.
  const transport = createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  const server = redactCredentials(smtpUrl, smtpUrl);
  return {
    send: async (mail) => {
      try {
        await transport.sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          ...(mail.html === undefined ? {} : { html: htmlDocument(mail.html, mail.language) }),
          headers: { 'Content-Language': mail.language },
        });
      } catch (failure) {
        // A fresh error: nothing of nodemailer's (its command, response, cause) reaches a log unredacted.
        const { message, responseCode } = failure as Error & { responseCode?: unknown };
        throw new MailNotSentError(
          `mail not sent through ${server}: ${redactCredentials(message, smtpUrl)}`,
          typeof responseCode === 'number' ? responseCode : undefined,
        );
      }
    },
    close: () => {
      transport.close();
      return Promise.resolve();
    },
  };
}

/** `user:pass@` of a URL, and the password wherever else it appears, never reach a log. */
function redactCredentials(value: string, smtpUrl: string): string {
  let redacted = value.replace(/(\/\/)[^@/\s]*@/g, '$1[redacted]@');
  for (const secret of passwordForms(smtpUrl)) redacted = redacted.split(secret).join('[redacted]');
  return redacted;
}

/** The password as written in the URL and as the server receives it (percent-decoded). */
function passwordForms(smtpUrl: string): string[] {
  try {
    const written = new URL(smtpUrl).password;
    return written === '' ? [] : [...new Set([written, decodeURIComponent(written)])];
  } catch {
    return [];
  }
}

// Some mail clients drop <html> and keep <body>, others the reverse: the direction goes on both.
function htmlDocument(body: string, language: TextLanguage): string {
  const dir = language === 'ar' ? 'rtl' : 'ltr';
  return `<!doctype html>\n<html dir="${dir}" lang="${language}">\n<head><meta charset="utf-8"></head>\n<body dir="${dir}">\n${body}\n</body>\n</html>\n`;
}

/** What each kind of mail names; `role` is already in the reader's language. */
export interface MailParams {
  verify: { name: string; url: string };
  reset: { name: string; url: string };
  invite: { venue: string; role: string; inviter: string; url: string };
}

export type MailKind = keyof MailParams;

/** Subject, plain text and HTML of a mail, from the catalogue in the reader's language. */
export function mailFromMessages<K extends MailKind>(
  kind: K,
  language: TextLanguage,
  params: MailParams[K],
): { subject: string; text: string; html: string } {
  const values: Record<string, string> = { ...params };
  const body: MessageId = `mail.${kind}.body`;
  return {
    subject: text(`mail.${kind}.subject`, language, values),
    text: text(body, language, values),
    html: htmlOf(MESSAGES[body][language], values),
  };
}

const VALUE = /(\{\w+\})/;

// The sentence is escaped piece by piece, so a value can never be read as markup or as a value.
function htmlOf(sentence: string, values: Record<string, string>): string {
  const inline = (paragraph: string) =>
    paragraph
      .split(VALUE)
      .map((piece) => {
        const name = /^\{(\w+)\}$/.exec(piece)?.[1];
        if (name === undefined || !Object.hasOwn(values, name)) return escapeHtml(piece);
        const value = escapeHtml(values[name]!);
        // A link stays left to right inside Arabic, or its slashes are reordered.
        return name === 'url' ? `<a href="${value}" dir="ltr">${value}</a>` : value;
      })
      .join('')
      .replace(/\n/g, '<br>\n');
  return sentence
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${inline(paragraph)}</p>`)
    .join('\n');
}
