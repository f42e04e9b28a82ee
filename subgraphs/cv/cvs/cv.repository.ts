import type { EntityManager } from '../../../common/database';
import type { CustomSection, CvPersonal, CvSettings } from '../../../contracts/cv/cv.payload';
import type { ResumeExtra } from '../json-resume';
import { TemplateRepository } from '../templates';

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

/** One item of a CV section, as stored in `cv.cv_items`. */
export interface CvItemRow {
  section: string;
  fields: Record<string, unknown>;
}

/** What an edit writes back to a CV row. */
export type CvRowValues = Pick<
  CvRow,
  'title' | 'personal' | 'settings' | 'section_order' | 'hidden_sections' | 'custom_sections' | 'resume_extra'
> & { locale: string };

/** A new CV row, its id and share token chosen by the caller; a JSON column left out is empty. */
export type NewCvRow = Partial<Omit<CvRowValues, 'title' | 'locale'>> & {
  id: string;
  account_id: number;
  template_id: string | number;
  title: string;
  locale: string;
  share_token: string;
};

/** A stored photo: the bytes (re-encoded) with their type and size. */
export interface CvPhotoValues {
  data: Buffer;
  type: string;
  width: number;
  height: number;
}

const ROW_COLUMNS = `id, account_id, template_id, title, locale, personal, settings, section_order,
  hidden_sections, custom_sections, resume_extra, photo_type, octet_length(photo) as photo_size,
  photo_width, photo_height, share_token, created_at, updated_at`;

/** CVs with their section rows and photos: `cv.cvs` and `cv.cv_items`. */
export class CvRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Runs `work` in one transaction, with this repository and the templates' on its connection: a
   * CV's writes read the template the row refers to.
   */
  transaction<T>(work: (cvs: CvRepository, templates: TemplateRepository) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) => work(new CvRepository(tx), new TemplateRepository(tx)));
  }

  /** The row by id; `lock` holds it (FOR UPDATE) until the transaction ends. */
  async findById(id: string, lock = false): Promise<CvRow | null> {
    const [row] = await this.em.execute<CvRow[]>(
      `select ${ROW_COLUMNS} from cv.cvs where id = ?${lock ? ' for update' : ''}`,
      [id],
    );
    return row ?? null;
  }

  async findByShareToken(token: string): Promise<CvRow | null> {
    const [row] = await this.em.execute<CvRow[]>(`select ${ROW_COLUMNS} from cv.cvs where share_token = ?`, [
      token,
    ]);
    return row ?? null;
  }

  /** The account's CVs, newest first. */
  listByAccount(accountId: number): Promise<CvRow[]> {
    return this.em.execute<CvRow[]>(
      `select ${ROW_COLUMNS} from cv.cvs where account_id = ? order by created_at desc, id desc`,
      [accountId],
    );
  }

  async countByAccount(accountId: number): Promise<number> {
    const [row] = await this.em.execute<{ n: string }[]>(
      'select count(*) as n from cv.cvs where account_id = ?',
      [accountId],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Holds the account's row until the transaction ends, so counting its CVs and writing a new one
   * happen for one request of the account at a time.
   */
  async lockAccount(accountId: number): Promise<void> {
    await this.em.execute('select id from cv.accounts where id = ? for update', [accountId]);
  }

  async insert(row: NewCvRow): Promise<void> {
    await this.em.execute(
      `insert into cv.cvs (id, account_id, template_id, title, locale, personal, settings, section_order,
         hidden_sections, custom_sections, resume_extra, share_token)
       values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, array(select jsonb_array_elements_text(?::jsonb)),
         array(select jsonb_array_elements_text(?::jsonb)), ?::jsonb, ?::jsonb, ?)`,
      [
        row.id,
        row.account_id,
        row.template_id,
        row.title,
        row.locale,
        JSON.stringify(row.personal ?? {}),
        JSON.stringify(row.settings ?? {}),
        JSON.stringify(row.section_order ?? []),
        JSON.stringify(row.hidden_sections ?? []),
        JSON.stringify(row.custom_sections ?? []),
        JSON.stringify(row.resume_extra ?? {}),
        row.share_token,
      ],
    );
  }

  async update(id: string, values: CvRowValues): Promise<void> {
    await this.em.execute(
      `update cv.cvs set title = ?, locale = ?, personal = ?::jsonb, settings = ?::jsonb,
           section_order = array(select jsonb_array_elements_text(?::jsonb)),
           hidden_sections = array(select jsonb_array_elements_text(?::jsonb)),
           custom_sections = ?::jsonb, resume_extra = ?::jsonb, updated_at = now()
         where id = ?`,
      [
        values.title,
        values.locale,
        JSON.stringify(values.personal),
        JSON.stringify(values.settings),
        JSON.stringify(values.section_order),
        JSON.stringify(values.hidden_sections),
        JSON.stringify(values.custom_sections),
        JSON.stringify(values.resume_extra),
        id,
      ],
    );
  }

  async setTemplate(id: string, templateId: number, settings: CvSettings): Promise<void> {
    await this.em.execute(
      'update cv.cvs set template_id = ?, settings = ?::jsonb, updated_at = now() where id = ?',
      [templateId, JSON.stringify(settings), id],
    );
  }

  async delete(id: string): Promise<void> {
    await this.em.execute('delete from cv.cvs where id = ?', [id]);
  }

  /** The photo's bytes; null for an unknown CV (a CV without a photo has null bytes). */
  async findPhoto(id: string): Promise<{ photo: Buffer } | null> {
    const [row] = await this.em.execute<{ photo: Buffer }[]>('select photo from cv.cvs where id = ?', [id]);
    return row ?? null;
  }

  async setPhoto(id: string, photo: CvPhotoValues): Promise<void> {
    await this.em.execute(
      `update cv.cvs set photo = ?, photo_type = ?, photo_width = ?, photo_height = ?, updated_at = now()
       where id = ?`,
      [photo.data, photo.type, photo.width, photo.height, id],
    );
  }

  async removePhoto(id: string): Promise<void> {
    await this.em.execute(
      `update cv.cvs set photo = null, photo_type = null, photo_width = null, photo_height = null,
         updated_at = now() where id = ?`,
      [id],
    );
  }

  /** Gives the target CV the source's photo (or none). */
  async copyPhoto(sourceId: string, targetId: string): Promise<void> {
    await this.em.execute(
      `update cv.cvs set photo = source.photo, photo_type = source.photo_type,
           photo_width = source.photo_width, photo_height = source.photo_height
         from cv.cvs source where source.id = ? and cv.cvs.id = ?`,
      [sourceId, targetId],
    );
  }

  /** The CV's section rows, by section then position. */
  itemsOf(cvId: string): Promise<CvItemRow[]> {
    return this.em.execute<CvItemRow[]>(
      'select section, fields from cv.cv_items where cv_id = ? order by section, position',
      [cvId],
    );
  }

  /** Copies every section row of the source CV to the target. */
  async copyItems(sourceId: string, targetId: string): Promise<void> {
    await this.em.execute(
      `insert into cv.cv_items (cv_id, section, position, fields)
         select ?, section, position, fields from cv.cv_items where cv_id = ?`,
      [targetId, sourceId],
    );
  }

  /** Deletes the rows of these sections, in one statement. */
  async deleteItems(cvId: string, sections: string[]): Promise<void> {
    await this.em.execute(
      'delete from cv.cv_items where cv_id = ? and section in (select jsonb_array_elements_text(?::jsonb))',
      [cvId, JSON.stringify(sections)],
    );
  }

  /** Inserts section rows, in one statement. */
  async insertItems(
    cvId: string,
    rows: { section: string; position: number; fields: Record<string, unknown> }[],
  ): Promise<void> {
    await this.em.execute(
      `insert into cv.cv_items (cv_id, section, position, fields)
       select ?, x.section, x.position, x.fields
       from jsonb_to_recordset(?::jsonb) as x(section text, position integer, fields jsonb)`,
      [cvId, JSON.stringify(rows)],
    );
  }
}
