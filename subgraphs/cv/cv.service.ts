import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EntityManager } from '../../common/database';
import { ForbiddenError, NotFoundError, ValidationError, type FieldErrors } from '../../common/errors';
import { parseRecordId } from '../../common/input.rules';
import type { TextLanguage } from '../../common/language';
import { fieldErrorsOf } from '../../common/validation';
import type { AccountEntitlements } from './account-plan.client';
import type { AccountPrincipal } from './account.service';
import {
  SECTION_KEYS,
  TITLE_MAX,
  completeItem,
  cvUpdateRequest,
  emptyPersonal,
  normalizeStrings,
  type CustomSection,
  type CvDocument,
  type CvPatch,
  type CvPersonal,
  type CvSections,
  type CvSettings,
  type SectionKey,
} from './cv.payload';
import { fromJsonResume, toJsonResume, type ResumeExtra } from './json-resume';
import { preparePhoto } from './photo';
import { Template } from './template.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A CV row without its photo bytes, which only the renderer reads. */
export interface CvRow {
  id: string;
  account_id: string;
  template_id: string;
  title: string;
  locale: 'ar' | 'en';
  personal: Partial<CvPersonal>;
  settings: CvSettings;
  section_order: string[];
  hidden_sections: string[];
  custom_sections: CustomSection[];
  resume_extra: ResumeExtra;
  photo_type: string | null;
  photo_size: number | null;
  photo_width: number | null;
  photo_height: number | null;
  share_token: string;
  created_at: string | Date;
  updated_at: string | Date;
}

const ROW_COLUMNS = `id, account_id, template_id, title, locale, personal, settings, section_order,
  hidden_sections, custom_sections, resume_extra, photo_type, octet_length(photo) as photo_size,
  photo_width, photo_height, share_token, created_at, updated_at`;

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
  copy: { en: ' (copy)', ar: ' (نسخة)' },
  imported: { en: 'Imported CV', ar: 'سيرة ذاتية مستوردة' },
} as const;

type ItemRow = { section: string; fields: Record<string, unknown> };

/** Section rows, in position order, as the payload's sections with every field present. */
function sectionsFrom(items: ItemRow[]): CvSections {
  const sections = Object.fromEntries(SECTION_KEYS.map((key) => [key, []])) as unknown as CvSections;
  for (const item of items) {
    const section = item.section as SectionKey;
    (sections[section] as unknown[] | undefined)?.push(completeItem(section, item.fields));
  }
  return sections;
}

/** The whole document of a row and its sections. */
function documentOf(row: CvRow, sections: CvSections): CvDocument {
  return {
    title: row.title,
    locale: row.locale,
    personal: { ...emptyPersonal(), ...row.personal },
    settings: row.settings,
    section_order: row.section_order,
    hidden_sections: row.hidden_sections,
    sections,
    custom_sections: row.custom_sections.map((section) => ({ ...section, content: section.content ?? null })),
  };
}

/** Drops what a field set to null clears, so storage holds only what was written. */
function withoutNulls<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}

/** CVs of an account: creation within the plan's limits, reads, edits, copies, photo and JSON Resume. */
export class CvService {
  constructor(
    private readonly em: EntityManager,
    private readonly language: TextLanguage,
  ) {}

  /** Creates a CV with the template's default settings. */
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
    const template = await this.templateFor(principal, input.templateId);
    if (template === null) errors.template_id = ['The selected template id is invalid.'];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    this.requireAvailable(template!, entitlements);
    return this.em.transactional(async (tx) => {
      const id = await this.insertWithinLimit(tx, principal, entitlements, {
        template_id: template!.id,
        title,
        locale: input.locale,
        settings: template!.defaultSettings,
        section_order: [...SECTION_KEYS],
      });
      return this.get(principal, id, tx);
    });
  }

  /**
   * One CV of the account. cv-api.md answers another account's CV with 403 and an unknown UUID
   * with 404, so the row is found first and its owner compared second. `lock` holds the row for
   * the rest of the transaction, so two edits of one CV apply one after the other.
   */
  async get(
    principal: AccountPrincipal,
    id: string,
    tx: EntityManager = this.em,
    lock = false,
  ): Promise<CvRow> {
    const [row] = UUID.test(id)
      ? await tx.execute<CvRow[]>(
          `select ${ROW_COLUMNS} from cv.cvs where id = ?${lock ? ' for update' : ''}`,
          [id.toLowerCase()],
        )
      : [];
    if (row === undefined) throw new NotFoundError(TEXTS.notFound[this.language]);
    if (Number(row.account_id) !== principal.accountId)
      throw new ForbiddenError(TEXTS.notYours[this.language]);
    return row;
  }

  /** The CV behind a share link, whoever asks; null for an unknown token. */
  async findShared(token: string): Promise<CvRow | null> {
    if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return null;
    const [row] = await this.em.execute<CvRow[]>(`select ${ROW_COLUMNS} from cv.cvs where share_token = ?`, [
      token,
    ]);
    return row ?? null;
  }

  /** The sections of a CV, every field of every item present. */
  async sectionsOf(cvId: string): Promise<CvSections> {
    return sectionsFrom(
      await this.em.execute<ItemRow[]>(
        'select section, fields from cv.cv_items where cv_id = ? order by section, position',
        [cvId],
      ),
    );
  }

  /** The full document of a CV row: what exports render and JSON Resume maps. */
  async documentOf(row: CvRow): Promise<CvDocument> {
    return documentOf(row, await this.sectionsOf(row.id));
  }

  /**
   * PUT /cvs/{uuid}: only the keys sent change. personal and settings change field by field (null
   * clears a field; a cleared setting falls back to the template's default), each section sent
   * replaces that section, and the lists replace theirs.
   */
  async update(principal: AccountPrincipal, id: string, body: unknown): Promise<CvRow> {
    const patch = this.parsePatch(body);
    return this.em.transactional(async (tx) => {
      const row = await this.get(principal, id, tx, true);
      const customSections = patch.custom_sections ?? row.custom_sections;
      const known = new Set<string>([...SECTION_KEYS, ...customSections.map((section) => section.key)]);
      const errors: FieldErrors = {};
      for (const list of ['section_order', 'hidden_sections'] as const) {
        patch[list]?.forEach((key, index) => {
          if (!known.has(key))
            errors[`${list}.${index}`] = [`The selected ${list.replace('_', ' ')}.${index} is invalid.`];
        });
      }
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      // A custom section that is gone leaves the lists that named it.
      const prune = (keys: string[]) => keys.filter((key) => known.has(key));
      let settings = row.settings;
      if (patch.settings !== undefined) {
        const template = await tx.findOneOrFail(Template, { id: Number(row.template_id) });
        settings = { ...template.defaultSettings, ...row.settings, ...withoutNulls(patch.settings) };
        for (const [key, value] of Object.entries(patch.settings)) {
          if (value === null) {
            const fallback = template.defaultSettings[key as keyof CvSettings];
            if (fallback === undefined) delete settings[key as keyof CvSettings];
            else settings[key as keyof CvSettings] = fallback;
          }
        }
      }
      const replaced = Object.keys(patch.sections ?? {}) as SectionKey[];
      const extra: ResumeExtra = { ...row.resume_extra };
      if (replaced.length > 0 && extra.items !== undefined) {
        extra.items = Object.fromEntries(
          Object.entries(extra.items).filter(([section]) => !replaced.includes(section as SectionKey)),
        );
      }
      await tx.execute(
        `update cv.cvs set title = ?, locale = ?, personal = ?::jsonb, settings = ?::jsonb,
           section_order = array(select jsonb_array_elements_text(?::jsonb)),
           hidden_sections = array(select jsonb_array_elements_text(?::jsonb)),
           custom_sections = ?::jsonb, resume_extra = ?::jsonb, updated_at = now()
         where id = ?`,
        [
          patch.title ?? row.title,
          patch.locale ?? row.locale,
          JSON.stringify(withoutNulls({ ...row.personal, ...patch.personal })),
          JSON.stringify(settings),
          JSON.stringify(prune(patch.section_order ?? row.section_order)),
          JSON.stringify(prune(patch.hidden_sections ?? row.hidden_sections)),
          JSON.stringify(customSections),
          JSON.stringify(extra),
          row.id,
        ],
      );
      if (patch.sections !== undefined) await this.writeSections(tx, row.id, patch.sections);
      return this.get(principal, row.id, tx);
    });
  }

  /** A deep copy: every field, section row, custom section and the photo; a share link of its own. */
  async duplicate(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    id: string,
  ): Promise<CvRow> {
    return this.em.transactional(async (tx) => {
      const source = await this.get(principal, id, tx);
      const template = await tx.findOneOrFail(Template, { id: Number(source.template_id) });
      this.requireAvailable(template, entitlements);
      const suffix = TEXTS.copy[source.locale];
      const title = [...source.title].slice(0, TITLE_MAX - [...suffix].length).join('') + suffix;
      const copy = await this.insertWithinLimit(tx, principal, entitlements, {
        ...source,
        title,
      });
      await tx.execute(
        `update cv.cvs set photo = source.photo, photo_type = source.photo_type,
           photo_width = source.photo_width, photo_height = source.photo_height
         from cv.cvs source where source.id = ? and cv.cvs.id = ?`,
        [source.id, copy],
      );
      await tx.execute(
        `insert into cv.cv_items (cv_id, section, position, fields)
         select ?, section, position, fields from cv.cv_items where cv_id = ?`,
        [copy, source.id],
      );
      return this.get(principal, copy, tx);
    });
  }

  /** Moves a CV to another template; the new design's default settings replace the old overrides. */
  async switchTemplate(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    id: string,
    templateId: string,
  ): Promise<CvRow> {
    return this.em.transactional(async (tx) => {
      const row = await this.get(principal, id, tx, true);
      const template = await this.templateFor(principal, templateId, tx);
      if (template === null)
        throw new ValidationError({ template_id: ['The selected template id is invalid.'] });
      this.requireAvailable(template, entitlements);
      await tx.execute(
        'update cv.cvs set template_id = ?, settings = ?::jsonb, updated_at = now() where id = ?',
        [template.id, JSON.stringify(template.defaultSettings), row.id],
      );
      return this.get(principal, row.id, tx);
    });
  }

  /** Stores the photo after checking it by content and removing its metadata (see photo.ts). */
  async setPhoto(principal: AccountPrincipal, id: string, data: Buffer): Promise<CvRow> {
    const row = await this.get(principal, id);
    const photo = await preparePhoto(data);
    await this.em.execute(
      `update cv.cvs set photo = ?, photo_type = ?, photo_width = ?, photo_height = ?, updated_at = now()
       where id = ?`,
      [photo.data, photo.type, photo.width, photo.height, row.id],
    );
    return this.get(principal, row.id);
  }

  async removePhoto(principal: AccountPrincipal, id: string): Promise<CvRow> {
    const row = await this.get(principal, id);
    await this.em.execute(
      `update cv.cvs set photo = null, photo_type = null, photo_width = null, photo_height = null,
         updated_at = now() where id = ?`,
      [row.id],
    );
    return this.get(principal, row.id);
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
      `select ${ROW_COLUMNS} from cv.cvs where account_id = ? order by created_at desc, id desc`,
      [principal.accountId],
    );
  }

  /** The CV as JSON Resume 1.2.1, with what JSON Resume has no field for kept under extra keys. */
  async exportResume(
    principal: AccountPrincipal,
    id: string,
    selfUrl: string,
  ): Promise<Record<string, unknown>> {
    const row = await this.get(principal, id);
    return toJsonResume(await this.documentOf(row), row.resume_extra, {
      canonicalUrl: selfUrl,
      lastModified: new Date(row.updated_at).toISOString(),
    });
  }

  /**
   * A new CV from a JSON Resume document. The mapped document is validated as an update would be;
   * the template is the one asked for, else the platform's first free one.
   */
  async importResume(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    resume: unknown,
    options: { templateId?: string | null; title?: string | null; locale?: string | null },
  ): Promise<CvRow> {
    const { document, extra } = fromJsonResume(resume);
    const locale = options.locale ?? document.locale ?? 'en';
    const title = options.title ?? document.title ?? TEXTS.imported[locale === 'ar' ? 'ar' : 'en'];
    const { title: _t, locale: _l, ...rest } = document;
    const patch = this.parsePatch({ ...rest, title, locale }, 'resume');
    const template =
      options.templateId !== undefined && options.templateId !== null
        ? await this.templateFor(principal, options.templateId)
        : await this.em.findOne(Template, { companyId: null, isPremium: false }, { orderBy: { id: 'asc' } });
    if (template === null)
      throw new ValidationError({ template_id: ['The selected template id is invalid.'] });
    this.requireAvailable(template, entitlements);
    return this.em.transactional(async (tx) => {
      const id = await this.insertWithinLimit(tx, principal, entitlements, {
        template_id: template.id,
        title: patch.title!,
        locale: patch.locale!,
        personal: withoutNulls(patch.personal ?? {}),
        settings: { ...template.defaultSettings, ...withoutNulls(patch.settings ?? {}) },
        section_order: patch.section_order ?? [...SECTION_KEYS],
        hidden_sections: patch.hidden_sections ?? [],
        custom_sections: patch.custom_sections ?? [],
        resume_extra: extra,
      });
      await this.writeSections(tx, id, patch.sections ?? {});
      return this.get(principal, id, tx);
    });
  }

  /** Validates a payload; errors are keyed by the document's paths, under `prefix` when given. */
  private parsePatch(body: unknown, within?: 'resume'): CvPatch {
    // Nested under `resume`, an import's errors name where the value came from.
    const schema = within === undefined ? cvUpdateRequest : z.object({ resume: cvUpdateRequest });
    const input = within === undefined ? normalizeStrings(body) : { resume: normalizeStrings(body) };
    const parsed = schema.safeParse(input, { reportInput: true });
    if (!parsed.success) throw new ValidationError(fieldErrorsOf(parsed.error));
    const data = (
      within === undefined ? parsed.data : (parsed.data as { resume: unknown }).resume
    ) as z.infer<typeof cvUpdateRequest>;
    const { id: _id, template_id: _t, photo: _p, links: _l, created_at: _c, updated_at: _u, ...patch } = data;
    return patch as CvPatch;
  }

  /** A template the account may see: the platform's or its company's; null for anything else. */
  private async templateFor(
    principal: AccountPrincipal,
    templateId: string,
    tx: EntityManager = this.em,
  ): Promise<Template | null> {
    const id = parseRecordId(templateId);
    const template = id === null ? null : await tx.findOne(Template, { id });
    if (template === null || (template.companyId !== null && template.companyId !== principal.companyId))
      return null;
    return template;
  }

  private requireAvailable(template: Template, entitlements: AccountEntitlements): void {
    if (template.isPremium && !entitlements.premiumTemplates)
      throw new ForbiddenError(TEXTS.premium[this.language]);
  }

  /**
   * Writes a new CV row. The account row is locked while its CVs are counted and the new one
   * written, so parallel creates at the limit make exactly one more.
   */
  private async insertWithinLimit(
    tx: EntityManager,
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    values: Partial<Omit<CvRow, 'template_id' | 'locale'>> & {
      template_id: string | number;
      title: string;
      locale: string;
    },
  ): Promise<string> {
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
    const id = randomUUID();
    await tx.execute(
      `insert into cv.cvs (id, account_id, template_id, title, locale, personal, settings, section_order,
         hidden_sections, custom_sections, resume_extra, share_token)
       values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, array(select jsonb_array_elements_text(?::jsonb)),
         array(select jsonb_array_elements_text(?::jsonb)), ?::jsonb, ?::jsonb, ?)`,
      [
        id,
        principal.accountId,
        values.template_id,
        values.title,
        values.locale,
        JSON.stringify(values.personal ?? {}),
        JSON.stringify(values.settings ?? {}),
        JSON.stringify(values.section_order ?? []),
        JSON.stringify(values.hidden_sections ?? []),
        JSON.stringify(values.custom_sections ?? []),
        JSON.stringify(values.resume_extra ?? {}),
        randomBytes(24).toString('base64url'),
      ],
    );
    return id;
  }

  /** Replaces the given sections' rows in one statement each way. */
  private async writeSections(tx: EntityManager, cvId: string, sections: Partial<CvSections>): Promise<void> {
    const replaced = Object.keys(sections);
    if (replaced.length === 0) return;
    await tx.execute(
      'delete from cv.cv_items where cv_id = ? and section in (select jsonb_array_elements_text(?::jsonb))',
      [cvId, JSON.stringify(replaced)],
    );
    const rows = Object.entries(sections).flatMap(([section, items]) =>
      (items as Record<string, unknown>[]).map((fields, position) => ({
        section,
        position,
        fields: withoutNulls(fields),
      })),
    );
    if (rows.length === 0) return;
    await tx.execute(
      `insert into cv.cv_items (cv_id, section, position, fields)
       select ?, x.section, x.position, x.fields
       from jsonb_to_recordset(?::jsonb) as x(section text, position integer, fields jsonb)`,
      [cvId, JSON.stringify(rows)],
    );
  }
}
