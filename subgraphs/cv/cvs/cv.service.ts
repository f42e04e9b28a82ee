import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ForbiddenError, NotFoundError, ValidationError, type FieldMessages } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import type { TextLanguage } from '../../../common/language';
import { fieldErrorsOf } from '../../../common/validation';
import type { AccountEntitlements, AccountPrincipal } from '../accounts';
import {
  SECTION_KEYS,
  TITLE_MAX,
  completeItem,
  cvUpdateRequest,
  emptyPersonal,
  normalizeStrings,
  type CvDocument,
  type CvPatch,
  type CvSections,
  type CvSettings,
  type SectionKey,
} from '../../../contracts/cv/cv.payload';
import type { CvItemRow, CvRepository, CvRow, NewCvRow } from './cv.repository';
import { fromJsonResume, type ResumeExtra, toJsonResume } from '../json-resume';
import { preparePhoto } from './photo';
import type { Template, TemplateRepository } from '../templates';
import { TOKEN } from '../../../common/patterns';
import { say, text } from '../../../common/messages';

export type { CvRow } from './cv.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Section rows, in position order, as the payload's sections with every field present. */
function sectionsFrom(items: CvItemRow[]): CvSections {
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
    private readonly cvs: CvRepository,
    private readonly templates: TemplateRepository,
    private readonly language: TextLanguage,
  ) {}

  /** Creates a CV with the template's default settings. */
  async create(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    input: { title: string; locale: string; templateId: string },
  ): Promise<CvRow> {
    const title = input.title.trim();
    const errors: FieldMessages = {};
    if (title.length < 1) errors.title = [say('field.required', { field: 'title' })];
    else if ([...title].length > TITLE_MAX) {
      errors.title = [say('field.max_characters', { field: 'title', max: TITLE_MAX })];
    }
    if (input.locale !== 'ar' && input.locale !== 'en')
      errors.locale = [say('field.selected_invalid', { field: 'locale' })];
    const template = await this.templateFor(principal, input.templateId);
    if (template === null) errors.template_id = [say('field.selected_invalid', { field: 'template id' })];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    this.requireAvailable(template!, entitlements);
    return this.cvs.transaction(async (cvs) => {
      const id = await this.insertWithinLimit(cvs, principal, entitlements, {
        template_id: template!.id,
        title,
        locale: input.locale,
        settings: template!.defaultSettings,
        section_order: [...SECTION_KEYS],
      });
      return this.read(cvs, principal, id);
    });
  }

  /** One CV of the account: NOT_FOUND for an unknown id, FORBIDDEN for another account's. */
  get(principal: AccountPrincipal, id: string): Promise<CvRow> {
    return this.read(this.cvs, principal, id);
  }

  /** How many CVs the account holds, whatever its plan allows. */
  countFor(accountId: number): Promise<number> {
    return this.cvs.countByAccount(accountId);
  }

  /** The CV behind a share link, whoever asks; null for an unknown token. */
  async findShared(token: string): Promise<CvRow | null> {
    if (!TOKEN.test(token)) return null;
    return this.cvs.findByShareToken(token);
  }

  /** The sections of a CV, every field of every item present. */
  async sectionsOf(cvId: string): Promise<CvSections> {
    return sectionsFrom(await this.cvs.itemsOf(cvId));
  }

  /** The photo's bytes and type for rendering; null without one. */
  async photoOf(row: CvRow): Promise<{ type: string; data: Buffer } | null> {
    if (row.photo_type === null) return null;
    const found = await this.cvs.findPhoto(row.id);
    return found === null ? null : { type: row.photo_type, data: found.photo };
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
    return this.cvs.transaction(async (cvs, templates) => {
      const row = await this.read(cvs, principal, id, true);
      const customSections = patch.custom_sections ?? row.custom_sections;
      const known = new Set<string>([...SECTION_KEYS, ...customSections.map((section) => section.key)]);
      const errors: FieldMessages = {};
      for (const list of ['section_order', 'hidden_sections'] as const) {
        patch[list]?.forEach((key, index) => {
          if (!known.has(key))
            errors[`${list}.${index}`] = [
              say('field.selected_invalid', { field: `${list.replace('_', ' ')}.${index}` }),
            ];
        });
      }
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      // A custom section that is gone leaves the lists that named it.
      const prune = (keys: string[]) => keys.filter((key) => known.has(key));
      let settings = row.settings;
      if (patch.settings !== undefined) {
        const template = await templates.getById(Number(row.template_id));
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
      await cvs.update(row.id, {
        title: patch.title ?? row.title,
        locale: patch.locale ?? row.locale,
        personal: withoutNulls({ ...row.personal, ...patch.personal }),
        settings,
        section_order: prune(patch.section_order ?? row.section_order),
        hidden_sections: prune(patch.hidden_sections ?? row.hidden_sections),
        custom_sections: customSections,
        resume_extra: extra,
      });
      if (patch.sections !== undefined) await this.writeSections(cvs, row.id, patch.sections);
      return this.read(cvs, principal, row.id);
    });
  }

  /** A deep copy: every field, section row, custom section and the photo; a share link of its own. */
  async duplicate(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    id: string,
  ): Promise<CvRow> {
    return this.cvs.transaction(async (cvs, templates) => {
      const source = await this.read(cvs, principal, id);
      const template = await templates.getById(Number(source.template_id));
      this.requireAvailable(template, entitlements);
      const suffix = text('cv.copy_suffix', source.locale);
      const title = [...source.title].slice(0, TITLE_MAX - [...suffix].length).join('') + suffix;
      const copy = await this.insertWithinLimit(cvs, principal, entitlements, {
        ...source,
        title,
      });
      await cvs.copyPhoto(source.id, copy);
      await cvs.copyItems(source.id, copy);
      return this.read(cvs, principal, copy);
    });
  }

  /** Moves a CV to another template; the new design's default settings replace the old overrides. */
  async switchTemplate(
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    id: string,
    templateId: string,
  ): Promise<CvRow> {
    return this.cvs.transaction(async (cvs, templates) => {
      const row = await this.read(cvs, principal, id, true);
      const template = await this.templateFor(principal, templateId, templates);
      if (template === null)
        throw new ValidationError({ template_id: [say('field.selected_invalid', { field: 'template id' })] });
      this.requireAvailable(template, entitlements);
      await cvs.setTemplate(row.id, template.id, template.defaultSettings);
      return this.read(cvs, principal, row.id);
    });
  }

  /** Stores the photo after checking it by content and removing its metadata (see photo.ts). */
  async setPhoto(principal: AccountPrincipal, id: string, data: Buffer): Promise<CvRow> {
    const row = await this.get(principal, id);
    const photo = await preparePhoto(data);
    await this.cvs.setPhoto(row.id, photo);
    return this.get(principal, row.id);
  }

  async removePhoto(principal: AccountPrincipal, id: string): Promise<CvRow> {
    const row = await this.get(principal, id);
    await this.cvs.removePhoto(row.id);
    return this.get(principal, row.id);
  }

  /** Deletes the CV with its section rows (and its photo); its share page is gone with it. */
  async delete(principal: AccountPrincipal, id: string): Promise<void> {
    await this.cvs.transaction(async (cvs) => {
      const row = await this.read(cvs, principal, id);
      await cvs.delete(row.id);
    });
  }

  /** The account's CVs, newest first. */
  list(principal: AccountPrincipal): Promise<CvRow[]> {
    return this.cvs.listByAccount(principal.accountId);
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
    const title = options.title ?? document.title ?? text('cv.imported_title', locale === 'ar' ? 'ar' : 'en');
    const { title: _t, locale: _l, ...rest } = document;
    const patch = this.parsePatch({ ...rest, title, locale }, 'resume');
    const template =
      options.templateId !== undefined && options.templateId !== null
        ? await this.templateFor(principal, options.templateId)
        : await this.templates.findFirstFreePlatform();
    if (template === null)
      throw new ValidationError({ template_id: [say('field.selected_invalid', { field: 'template id' })] });
    this.requireAvailable(template, entitlements);
    return this.cvs.transaction(async (cvs) => {
      const id = await this.insertWithinLimit(cvs, principal, entitlements, {
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
      await this.writeSections(cvs, id, patch.sections ?? {});
      return this.read(cvs, principal, id);
    });
  }

  /**
   * One CV of the account through `cvs` (a transaction's, or the request's). cv-api.md answers
   * another account's CV with 403 and an unknown UUID with 404, so the row is found first and its
   * owner compared second. `lock` holds the row for the rest of the transaction, so two edits of
   * one CV apply one after the other.
   */
  private async read(
    cvs: CvRepository,
    principal: AccountPrincipal,
    id: string,
    lock = false,
  ): Promise<CvRow> {
    const row = UUID.test(id) ? await cvs.findById(id.toLowerCase(), lock) : null;
    if (row === null) throw new NotFoundError(text('cv.not_found', this.language));
    if (Number(row.account_id) !== principal.accountId)
      throw new ForbiddenError(text('cv.not_yours', this.language));
    return row;
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
    templates: TemplateRepository = this.templates,
  ): Promise<Template | null> {
    const id = parseRecordId(templateId);
    const template = id === null ? null : await templates.findById(id);
    if (template === null || (template.companyId !== null && template.companyId !== principal.companyId))
      return null;
    return template;
  }

  private requireAvailable(template: Template, entitlements: AccountEntitlements): void {
    if (template.isPremium && !entitlements.premiumTemplates)
      throw new ForbiddenError(text('cv.premium_template', this.language));
  }

  /**
   * Writes a new CV row. The account row is locked while its CVs are counted and the new one
   * written, so parallel creates at the limit make exactly one more.
   */
  private async insertWithinLimit(
    cvs: CvRepository,
    principal: AccountPrincipal,
    entitlements: AccountEntitlements,
    values: Omit<NewCvRow, 'id' | 'account_id' | 'share_token'>,
  ): Promise<string> {
    await cvs.lockAccount(principal.accountId);
    if (entitlements.cvLimit !== null) {
      if ((await cvs.countByAccount(principal.accountId)) >= entitlements.cvLimit) {
        throw new ForbiddenError(text('cv.limit', this.language, { max: entitlements.cvLimit }));
      }
    }
    const id = randomUUID();
    await cvs.insert({
      id,
      account_id: principal.accountId,
      template_id: values.template_id,
      title: values.title,
      locale: values.locale,
      personal: values.personal,
      settings: values.settings,
      section_order: values.section_order,
      hidden_sections: values.hidden_sections,
      custom_sections: values.custom_sections,
      resume_extra: values.resume_extra,
      share_token: randomBytes(24).toString('base64url'),
    });
    return id;
  }

  /** Replaces the given sections' rows in one statement each way. */
  private async writeSections(cvs: CvRepository, cvId: string, sections: Partial<CvSections>): Promise<void> {
    const replaced = Object.keys(sections);
    if (replaced.length === 0) return;
    await cvs.deleteItems(cvId, replaced);
    const rows = Object.entries(sections).flatMap(([section, items]) =>
      (items as Record<string, unknown>[]).map((fields, position) => ({
        section,
        position,
        fields: withoutNulls(fields),
      })),
    );
    if (rows.length === 0) return;
    await cvs.insertItems(cvId, rows);
  }
}
