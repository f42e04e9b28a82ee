import { z } from 'zod';
import { ValidationError } from '../../../common/errors';
import { fieldErrorsOf, rule } from '../../../common/validation';
import { TEMPLATE_CATEGORIES, TEMPLATE_LAYOUTS } from '../../../contracts/cv/template.limits';
import type { CvSettings } from '../../../contracts/cv/cv.payload';
import type { Template } from './template.entity';
import type { TemplateRepository } from './template.repository';
import { say } from '../../../common/messages';

const TEMPLATE_INPUT = z.object({
  slug: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, rule('field.slug_characters')),
  name: z.string().trim().min(1).max(255),
  description: z.string().max(1000),
  category: z.enum(TEMPLATE_CATEGORIES),
  layout: z.enum(TEMPLATE_LAYOUTS),
  isPremium: z.boolean(),
});

/** What makes a template; what is left out takes the defaults of TemplateService#create. */
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

/** CV designs: the platform's seeded ones, companies' own, and which an account sees. */
export class TemplateService {
  constructor(private readonly templates: TemplateRepository) {}

  /** The platform's templates, then the company's own (none without a company). */
  visibleTo(companyId: number | null): Promise<Template[]> {
    return this.templates.listVisibleTo(companyId);
  }

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
    if (await this.templates.slugTaken(parsed.data.slug, input.companyId))
      throw new ValidationError({ slug: [say('field.taken', { field: 'slug' })] });
    return this.templates.create({
      ...parsed.data,
      companyId: input.companyId,
      defaultSettings: input.defaultSettings ?? {
        primary_color: '#1f4e79',
        theme: 'light',
        font_family: 'naskh',
      },
    });
  }

  /** Writes the platform templates that are missing; running it again changes nothing. */
  async seedPlatform(): Promise<number> {
    let written = 0;
    for (const template of PLATFORM_TEMPLATES) {
      const existing = await this.templates.findPlatformBySlug(template.slug);
      if (existing !== null) continue;
      await this.create(template);
      written += 1;
    }
    return written;
  }
}
