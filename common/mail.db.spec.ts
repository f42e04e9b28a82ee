import { LocalSmtpServer } from '../test/support/smtp-server';
import { createMailer, mailFromMessages, MailNotSentError, type Mailer } from './mail';
import { recordingLogger } from '../test/support/recording-logger';

const FROM = 'Nida <no-reply@nida.invalid>';
const VERIFY_URL = 'https://nida.example/verify?token=abc123&lang=x';

describe('mailFromMessages', () => {
  it('escapes values in the HTML and links the URL, leaving the plain text as written', () => {
    const mail = mailFromMessages('invite', 'en', {
      venue: 'Café <b>&</b> Co',
      role: 'staff',
      inviter: 'Sara "S"',
      url: 'https://nida.example/invite?token=t1&v=2',
    });
    expect(mail.subject).toBe('Sara "S" invited you to Café <b>&</b> Co');
    expect(mail.text).toContain('https://nida.example/invite?token=t1&v=2');
    expect(mail.text).toContain('seven days');
    expect(mail.html).toContain('Café &lt;b&gt;&amp;&lt;/b&gt; Co');
    expect(mail.html).toContain('Sara &quot;S&quot;');
    expect(mail.html).toContain(
      '<a href="https://nida.example/invite?token=t1&amp;v=2" dir="ltr">https://nida.example/invite?token=t1&amp;v=2</a>',
    );
    expect(mail.html).not.toMatch(/<b>|\{\w+\}/);
  });
});

describe('the smtp mailer on a real SMTP server', () => {
  let smtp: LocalSmtpServer;
  let mailer: Mailer;

  beforeAll(async () => {
    smtp = await LocalSmtpServer.start();
    mailer = createMailer(
      { driver: 'smtp', smtpUrl: smtp.url, from: FROM },
      recordingLogger<{ level: number; msg: string; mail?: Record<string, string> }>().logger,
    );
  });

  afterAll(async () => {
    await mailer.close();
    await smtp.stop();
  });

  it('delivers an English verification mail with its link in the text and the HTML', async () => {
    const content = mailFromMessages('verify', 'en', { name: 'Sam', url: VERIFY_URL });
    await mailer.send({ to: 'sam@example.test', language: 'en', ...content });

    await smtp.waitFor((received) => received.some((mail) => mail.to.includes('sam@example.test')));
    const mail = smtp.received.find((m) => m.to.includes('sam@example.test'))!;
    expect(mail.to).toEqual(['sam@example.test']);
    expect(mail.from).toBe('no-reply@nida.invalid');
    expect(mail.headers.get('from')).toBe(FROM);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.text).toContain('Hello Sam,');
    expect(mail.text).toContain(VERIFY_URL);
    expect(mail.text).toContain('expires in one hour');
    expect(mail.html).toMatch(/<html dir="ltr" lang="en">/);
    expect(mail.html).toContain(`<a href="${VERIFY_URL.replace(/&/g, '&amp;')}"`);
  });

  it('delivers an Arabic verification mail right to left, its encoded subject and body intact', async () => {
    const content = mailFromMessages('verify', 'ar', { name: 'سارة', url: VERIFY_URL });
    await mailer.send({ to: 'sara@example.test', language: 'ar', ...content });

    await smtp.waitFor((received) => received.some((mail) => mail.to.includes('sara@example.test')));
    const mail = smtp.received.find((m) => m.to.includes('sara@example.test'))!;
    // Non-ASCII travels encoded (RFC 2047 subject, quoted-printable or base64 body), never raw.
    expect(mail.raw).not.toContain('سارة');
    expect(mail.subject).toBe('أكّد عنوان بريدك الإلكتروني');
    expect(mail.text).toContain('مرحباً سارة،');
    expect(mail.text).toContain('تنتهي صلاحية الرابط بعد ساعة واحدة.');
    expect(mail.text).toContain(VERIFY_URL);
    expect(mail.html).toMatch(/<html dir="rtl" lang="ar">/);
    expect(mail.html).toContain('مرحباً سارة،');
    expect(mail.headers.get('content-language')).toBe('ar');
  });

  it('rejects a refused mail with the reply, and without the password of SMTP_URL', async () => {
    const withLogin = smtp.url.replace('smtp://', 'smtp://mailer:s3cret-pa55@');
    const authenticated = createMailer(
      { driver: 'smtp', smtpUrl: withLogin, from: FROM },
      recordingLogger<{ level: number; msg: string; mail?: Record<string, string> }>().logger,
    );
    smtp.refuseNext(550, 'Mailbox unavailable');
    const content = mailFromMessages('reset', 'en', {
      name: 'Sam',
      url: 'https://nida.example/reset?token=r1',
    });

    const failure = await authenticated.send({ to: 'refused@example.test', language: 'en', ...content }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await authenticated.close();

    expect(failure).toBeInstanceOf(MailNotSentError);
    const { message, responseCode } = failure as MailNotSentError;
    expect(message).toMatch(/550 Mailbox unavailable/);
    expect(message).toContain('smtp://[redacted]@127.0.0.1:');
    expect(message).not.toContain('s3cret-pa55');
    expect(message).not.toContain('mailer:');
    expect(responseCode).toBe(550);
    expect(smtp.received.some((mail) => mail.to.includes('refused@example.test'))).toBe(false);
  });

  it('logs in with the credentials of SMTP_URL', async () => {
    const withLogin = smtp.url.replace('smtp://', 'smtp://mailer:s3cret-pa55@');
    const authenticated = createMailer(
      { driver: 'smtp', smtpUrl: withLogin, from: FROM },
      recordingLogger<{ level: number; msg: string; mail?: Record<string, string> }>().logger,
    );
    const content = mailFromMessages('reset', 'en', {
      name: 'Sam',
      url: 'https://nida.example/reset?token=r2',
    });
    await authenticated.send({ to: 'login@example.test', language: 'en', ...content });
    await authenticated.close();

    const mail = smtp.received.find((m) => m.to.includes('login@example.test'));
    expect(mail?.user).toBe('mailer');
    expect(mail?.subject).toBe('Reset your password');
  });
});

describe('the log mailer', () => {
  it('sends nothing and logs the recipient, the subject and the text', async () => {
    const smtp = await LocalSmtpServer.start();
    try {
      const { logger, lines } = recordingLogger<{
        level: number;
        msg: string;
        mail?: Record<string, string>;
      }>();
      const mailer = createMailer({ driver: 'log', smtpUrl: smtp.url, from: FROM }, logger);
      const content = mailFromMessages('verify', 'en', { name: 'Sam', url: VERIFY_URL });
      await mailer.send({ to: 'sam@example.test', language: 'en', ...content });
      await mailer.close();

      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 30,
        mail: { to: 'sam@example.test', subject: 'Confirm your email address' },
      });
      expect(lines[0]!.mail!.text).toContain(VERIFY_URL);
      expect(smtp.received).toEqual([]);
    } finally {
      await smtp.stop();
    }
  });
});
