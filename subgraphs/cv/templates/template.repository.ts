import type { RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '../../../common/database';
import { Template } from './template.entity';

/** CV designs in `cv.templates`: the platform's (no company) and companies' own. */
export class TemplateRepository {
  constructor(private readonly em: EntityManager) {}

  findById(id: number): Promise<Template | null> {
    return this.em.findOne(Template, { id });
  }

  /** A template a row refers to; the foreign key guarantees it is there. */
  getById(id: number): Promise<Template> {
    return this.em.findOneOrFail(Template, { id });
  }

  findPlatformBySlug(slug: string): Promise<Template | null> {
    return this.em.findOne(Template, { slug, companyId: null });
  }

  /** The platform's free template with the lowest id. */
  findFirstFreePlatform(): Promise<Template | null> {
    return this.em.findOne(Template, { companyId: null, isPremium: false }, { orderBy: { id: 'asc' } });
  }

  /** The platform's templates, then the company's own (none without a company), each by id. */
  listVisibleTo(companyId: number | null): Promise<Template[]> {
    return this.em.find(
      Template,
      companyId === null ? { companyId: null } : { $or: [{ companyId: null }, { companyId }] },
      { orderBy: [{ companyId: 'asc nulls first' }, { id: 'asc' }] },
    );
  }

  /** Whether the slug is taken among the company's templates (the platform's when companyId is null). */
  async slugTaken(slug: string, companyId: number | null): Promise<boolean> {
    const taken = await this.em.execute<{ id: string }[]>(
      'select id from cv.templates where slug = ? and company_id is not distinct from ?',
      [slug, companyId],
    );
    return taken.length > 0;
  }

  async create(values: RequiredEntityData<Template>): Promise<Template> {
    const template = this.em.create(Template, values);
    await this.em.flush();
    return template;
  }
}
