import { z } from 'zod';
import type { EntityManager } from '../../common/database';
import { ValidationError } from '../../common/errors';
import { fieldErrorsOf } from '../../common/validation';
import type { CvSettings } from './cv.payload';
import { Template } from './template.entity';

/** How a template arranges a CV (docs/API-DECISIONS.md). */
export const TEMPLATE_LAYOUTS = ['single-column', 'two-column', 'sidebar'] as const;
export const TEMPLATE_CATEGORIES = ['professional', 'modern', 'simple', 'creative', 'academic'] as const;

const TEMPLATE_INPUT = z.object({
  slug: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single dashes'),
  name: z.string().trim().min(1).max(255),
  description: z.string().max(1000),
  category: z.enum(TEMPLATE_CATEGORIES),
  layout: z.enum(TEMPLATE_LAYOUTS),
  isPremium: z.boolean(),
});

export interface NewTemplate {
  companyId: number | null;
  slug: string;
  name: string;
  description?: string;
  category?: string;
  layout: string;
  isPremium?: boolean;
  defaultSettings?: CvSettings;
}

/**
 * The platform's designs, written by seeding; their look arrives with the rendering work. Two are
 * premium, so plans with and without premium templates differ from the first day.
 */
export const PLATFORM_TEMPLATES: readonly NewTemplate[] = [
  {
    companyId: null,
    slug: 'classic',
    name: 'Classic',
    description: 'One calm column, headings in the accent colour.',
    category: 'professional',
    layout: 'single-column',
    defaultSettings: { primary_color: '#1f4e79', theme: 'light', font_family: 'naskh' },
  },
  {
    companyId: null,
    slug: 'sidebar',
    name: 'Sidebar',
    description: 'Contact, skills and languages beside the story.',
    category: 'modern',
    layout: 'sidebar',
    defaultSettings: { primary_color: '#0f766e', theme: 'light', font_family: 'naskh' },
  },
  {
    companyId: null,
    slug: 'minimal',
    name: 'Minimal',
    description: 'Quiet type and generous space.',
    category: 'simple',
    layout: 'single-column',
    defaultSettings: { primary_color: '#374151', theme: 'light', font_family: 'naskh' },
  },
  {
    companyId: null,
    slug: 'scholar',
    name: 'Scholar',
    description: 'Education and research first, for academic posts.',
    category: 'academic',
    layout: 'single-column',
    defaultSettings: { primary_color: '#7c2d12', theme: 'light', font_family: 'naskh' },
  },
  {
    companyId: null,
    slug: 'executive',
    name: 'Executive',
    description: 'Two balanced columns with a bold header band.',
    category: 'professional',
    layout: 'two-column',
    isPremium: true,
    defaultSettings: { primary_color: '#111827', theme: 'dark-header', font_family: 'naskh' },
  },
  {
    companyId: null,
    slug: 'studio',
    name: 'Studio',
    description: 'A coloured sidebar and large name for creative work.',
    category: 'creative',
    layout: 'sidebar',
    isPremium: true,
    defaultSettings: { primary_color: '#9d174d', theme: 'colour-sidebar', font_family: 'naskh' },
  },
];

export class TemplateService {
  constructor(private readonly em: EntityManager) {}

  async create(input: NewTemplate): Promise<Template> {
    const parsed = TEMPLATE_INPUT.safeParse({
      slug: input.slug,
      name: input.name,
      description: input.description ?? '',
      category: input.category ?? 'professional',
      layout: input.layout,
      isPremium: input.isPremium ?? false,
    });
    if (!parsed.success) throw new ValidationError(fieldErrorsOf(parsed.error));
    const taken = await this.em.execute<{ id: string }[]>(
      'select id from cv.templates where slug = ? and company_id is not distinct from ?',
      [parsed.data.slug, input.companyId],
    );
    if (taken.length > 0) throw new ValidationError({ slug: ['The slug has already been taken.'] });
    const template = this.em.create(Template, {
      ...parsed.data,
      companyId: input.companyId,
      defaultSettings: input.defaultSettings ?? {
        primary_color: '#1f4e79',
        theme: 'light',
        font_family: 'naskh',
      },
    });
    await this.em.flush();
    return template;
  }

  /** Writes the platform templates that are missing; running it again changes nothing. */
  async seedPlatform(): Promise<number> {
    let written = 0;
    for (const template of PLATFORM_TEMPLATES) {
      const existing = await this.em.findOne(Template, { slug: template.slug, companyId: null });
      if (existing !== null) continue;
      await this.create(template);
      written += 1;
    }
    return written;
  }
}
