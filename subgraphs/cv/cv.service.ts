import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '../../common/database';
import { ForbiddenError, NotFoundError, ValidationError, type FieldErrors } from '../../common/errors';
import type { TextLanguage } from '../../common/language';
import type { AccountEntitlements } from './account-plan.client';
import type { AccountPrincipal } from './account.service';
import { Template } from './template.entity';

/** The sections of cv-api.md, in the order a new CV shows them. */
export const SECTION_KEYS = [
  'experience',
  'education',
  'skills',
  'languages',
  'certifications',
  'projects',
  'awards',
  'volunteers',
  'references',
  'tasks',
  'expertise',
] as const;

export const TITLE_MAX = 255;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CvRow {
  id: string;
  account_id: string;
  template_id: string;
  title: string;
  locale: 'ar' | 'en';
  share_token: string;
  created_at: string | Date;
  updated_at: string | Date;
}

const TEXTS = {
  limit: {
    en: (n: number) => `Your plan allows ${n} CVs. Delete one or upgrade your plan to create another.`,
    ar: (n: number) => `تسمح خطتك بـ ${n} من السير الذاتية. احذف واحدة أو رقِّ خطتك لإنشاء أخرى.`,
  },
  notFound: { en: 'CV not found.', ar: 'السيرة الذاتية غير موجودة.' },
  notYours: {
    en: 'This CV belongs to another account.',
    ar: 'هذه السيرة الذاتية تخص حساباً آخر.',
  },
  premium: {
    en: 'This template needs a plan with premium templates.',
    ar: 'هذا القالب يتطلب خطة تتضمن القوالب المميزة.',
  },
} as const;

/** CVs of an account: creation within the plan's cv_limit, and the list. */
export class CvService {
  constructor(
    private readonly em: EntityManager,
    private readonly language: TextLanguage,
  ) {}

  /**
   * Creates a CV with the template's default settings. The account row is locked while the CVs are
   * counted and the new one written, so parallel creates at the limit make exactly one more.
   */
  async create(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    input: { title: string; locale: string; templateId: string },
  ): Promise<CvRow> {
    const title = input.title.trim();
    const errors: FieldErrors = {};
    if (title.length < 1) errors.title = ['The title field is required.'];
    else if ([...title].length > TITLE_MAX) {
      errors.title = [`The title field must not be greater than ${TITLE_MAX} characters.`];
    }
    if (input.locale !== 'ar' && input.locale !== 'en') errors.locale = ['The selected locale is invalid.'];
    const template = /^[1-9][0-9]{0,17}$/.test(input.templateId)
      ? await this.em.findOne(Template, { id: Number(input.templateId) })
      : null;
    if (template === null || (template.companyId !== null && template.companyId !== principal.companyId)) {
      errors.template_id = ['The selected template id is invalid.'];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (template!.isPremium && !entitlements.premiumTemplates)
      throw new ForbiddenError(TEXTS.premium[this.language]);
    return this.em.transactional(async (tx) => {
      await tx.execute('select id from cv.accounts where id = ? for update', [principal.accountId]);
      if (entitlements.cvLimit !== null) {
        const [count] = await tx.execute<{ n: string }[]>(
          'select count(*) as n from cv.cvs where account_id = ?',
          [principal.accountId],
        );
        if (Number(count?.n ?? 0) >= entitlements.cvLimit) {
          throw new ForbiddenError(TEXTS.limit[this.language](entitlements.cvLimit));
        }
      }
      const [row] = await tx.execute<CvRow[]>(
        `insert into cv.cvs (id, account_id, template_id, title, locale, settings, section_order, share_token)
         values (?, ?, ?, ?, ?, ?, string_to_array(?, ','), ?) returning *`,
        [
          randomUUID(),
          principal.accountId,
          template!.id,
          title,
          input.locale,
          JSON.stringify(template!.defaultSettings),
          SECTION_KEYS.join(','),
          randomBytes(24).toString('base64url'),
        ],
      );
      return row!;
    });
  }

  /**
   * One CV of the account. cv-api.md answers another account's CV with 403 and an unknown UUID
   * with 404, so the row is found first and its owner compared second.
   */
  async get(principal: AccountPrincipal, id: string, tx: EntityManager = this.em): Promise<CvRow> {
    const [row] = UUID.test(id)
      ? await tx.execute<CvRow[]>('select * from cv.cvs where id = ?', [id.toLowerCase()])
      : [];
    if (row === undefined) throw new NotFoundError(TEXTS.notFound[this.language]);
    if (Number(row.account_id) !== principal.accountId)
      throw new ForbiddenError(TEXTS.notYours[this.language]);
    return row;
  }

  /** Deletes the CV with its section rows (and its photo); its share page is gone with it. */
  async delete(principal: AccountPrincipal, id: string): Promise<void> {
    await this.em.transactional(async (tx) => {
      const row = await this.get(principal, id, tx);
      await tx.execute('delete from cv.cvs where id = ?', [row.id]);
    });
  }

  /** The account's CVs, newest first. */
  list(principal: AccountPrincipal): Promise<CvRow[]> {
    return this.em.execute<CvRow[]>(
      'select * from cv.cvs where account_id = ? order by created_at desc, id desc',
      [principal.accountId],
    );
  }
}
