import { GraphQLJSONObject } from 'graphql-scalars';
import { AssumedSize } from '../../../common/cost.graphql';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { camelCase, camelKeys } from '../../../common/case';
import {
  CUSTOM_SECTION_FIELDS,
  CUSTOM_SECTIONS_MAX,
  ITEMS_PER_SECTION_MAX,
  PERSONAL_FIELDS,
  SECTION_FIELDS,
  SECTION_KEYS,
  SETTINGS_FIELDS,
  TITLE_MAX,
  emptyPersonal,
  type FieldKind,
} from '../../../contracts/cv/cv.payload';
import type { CvRow } from './cv.service';

function describe(kind: FieldKind): string {
  switch (kind.type) {
    case 'text':
      return `At most ${kind.max} characters.`;
    case 'email':
      return 'An email address.';
    case 'url':
      return 'An http or https address.';
    case 'month':
      return 'YYYY-MM.';
    case 'date':
      return 'YYYY-MM-DD.';
    case 'boolean':
      return 'true or false.';
    case 'color':
      return 'A hex colour such as #1f4e79.';
    case 'enum':
      return `One of ${kind.values.join(', ')}.`;
  }
}

/**
 * An object type and its input twin for one row of the payload table in cv.payload.ts, so the graph
 * offers exactly the fields and limits the document defines. On input every field may be left out
 * (unchanged) or null (cleared).
 */
function rowTypes(name: string, fields: Record<string, FieldKind>, description: string) {
  const output = class {};
  const input = class {};
  for (const [field, kind] of Object.entries(fields)) {
    const type = kind.type === 'boolean' ? Boolean : String;
    const options = { description: describe(kind) };
    Field(() => type, { ...options, nullable: kind.type !== 'boolean' })(output.prototype, camelCase(field));
    Field(() => type, { ...options, nullable: true })(input.prototype, camelCase(field));
  }
  ObjectType(name, { description })(output);
  InputType(`${name}Input`, { description })(input);
  return { output, input };
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + camelCase(name).slice(1);

const personal = rowTypes('CvPersonal', PERSONAL_FIELDS, 'Who the CV is about.');
const settings = rowTypes('CvSettings', SETTINGS_FIELDS, 'How the template shows the CV.');
const custom = rowTypes('CvCustomSection', CUSTOM_SECTION_FIELDS, 'A section of the account’s own.');
const items = Object.fromEntries(
  SECTION_KEYS.map((section) => [
    section,
    rowTypes(`Cv${pascal(section)}Item`, SECTION_FIELDS[section], `One item of the ${section} section.`),
  ]),
) as Record<(typeof SECTION_KEYS)[number], ReturnType<typeof rowTypes>>;

const sectionsOutput = class {};
const sectionsInput = class {};
for (const section of SECTION_KEYS) {
  AssumedSize(ITEMS_PER_SECTION_MAX)(sectionsOutput.prototype, section);
  Field(() => [items[section].output], {
    description: `The ${section} section’s items in display order, at most ${ITEMS_PER_SECTION_MAX}; empty when it has none.`,
  })(sectionsOutput.prototype, section);
  Field(() => [items[section].input], {
    nullable: true,
    description: `Replaces the whole section; at most ${ITEMS_PER_SECTION_MAX} items.`,
  })(sectionsInput.prototype, section);
}
ObjectType('CvSections', { description: 'Every section of the CV, items in display order.' })(sectionsOutput);
InputType('CvSectionsInput', { description: 'Only the sections sent are replaced.' })(sectionsInput);

@ObjectType('CvLinks', { description: 'Where a CV is read and exported; share needs no key.' })
export class CvLinksType {
  @Field(() => String, {
    description: 'The CV on the REST API (/api/v1/cvs/{uuid}); needs the account’s key.',
  })
  self!: string;

  @Field(() => String, { description: 'Its PDF export on the REST API; each fetch counts as a download.' })
  pdf!: string;

  @Field(() => String, { description: 'Its HTML export on the REST API; each fetch counts as a download.' })
  html!: string;

  @Field(() => String, { description: 'The public share page (/cv/{token}): no key, not a download.' })
  share!: string;
}

@ObjectType('CvPhoto', { description: 'The CV’s photo as stored: metadata removed, at most 1200 px a side.' })
export class CvPhotoType {
  @Field(() => String, { description: 'image/jpeg, image/png or image/webp.' })
  type!: string;

  @Field(() => Int, { description: 'Pixels, at most 1200.' })
  width!: number;

  @Field(() => Int, { description: 'Pixels, at most 1200.' })
  height!: number;

  @Field(() => Int, { description: 'Bytes.' })
  size!: number;
}

type Row = Record<string, string | boolean | null>;

@ObjectType('Cv', { description: 'A CV of the account, addressed by its UUID.' })
export class CvType {
  @Field(() => ID, { description: 'The CV’s UUID.' })
  id!: string;

  @Field(() => String, { description: `Internal name, 1 to ${TITLE_MAX} characters.` })
  title!: string;

  @Field(() => String, { description: 'ar or en.' })
  locale!: string;

  @Field(() => ID, { description: 'The template the CV is designed with.' })
  templateId!: string;

  @Field(() => personal.output, { description: 'Who the CV is about; every field present, null when empty.' })
  personal!: Row;

  @Field(() => settings.output, { description: 'The template’s defaults with the CV’s own choices.' })
  settings!: Row;

  @AssumedSize(SECTION_KEYS.length + CUSTOM_SECTIONS_MAX)
  @Field(() => [String], { description: 'Section keys (built-in and custom) in display order.' })
  sectionOrder!: string[];

  @AssumedSize(SECTION_KEYS.length + CUSTOM_SECTIONS_MAX)
  @Field(() => [String], {
    description: 'Section keys (built-in or custom) left out when the CV is rendered.',
  })
  hiddenSections!: string[];

  @AssumedSize(CUSTOM_SECTIONS_MAX)
  @Field(() => [custom.output], { description: `The CV’s own sections, at most ${CUSTOM_SECTIONS_MAX}.` })
  customSections!: Row[];

  @Field(() => CvPhotoType, { nullable: true, description: 'The photo; null when the CV has none.' })
  photo!: CvPhotoType | null;

  @Field(() => CvLinksType, { description: 'Where the CV is read, exported and shared.' })
  links!: CvLinksType;

  @Field(() => Date, { description: 'When the CV was created.' })
  createdAt!: Date;

  @Field(() => Date, { description: 'When it last changed.' })
  updatedAt!: Date;
}

export const CvSectionsType = sectionsOutput;

@InputType('CreateCvInput', {
  description: 'A new CV: it takes the template’s default settings and shows every section.',
})
export class CreateCvInput {
  @Field(() => String, { description: `Internal name, at most ${TITLE_MAX} characters.` })
  title!: string;

  @Field(() => String, { description: 'ar or en.' })
  locale!: string;

  @Field(() => ID, {
    description: 'A template the account can see; a premium one needs a plan with premium templates.',
  })
  templateId!: string;
}

@InputType('UpdateCvInput', { description: 'Only the fields sent change (PUT /cvs/{uuid}).' })
export class UpdateCvInput {
  @Field(() => String, { nullable: true, description: `Internal name, 1 to ${TITLE_MAX} characters.` })
  title?: string;

  @Field(() => String, { nullable: true, description: 'ar or en.' })
  locale?: string;

  @Field(() => personal.input, { nullable: true, description: 'Field by field; null clears a field.' })
  personal?: Row;

  @Field(() => settings.input, {
    nullable: true,
    description: 'Field by field; null returns a setting to the template’s default.',
  })
  settings?: Row;

  @Field(() => [String], {
    nullable: true,
    description: 'Section keys (built-in or custom), each once, in display order; replaces the order.',
  })
  sectionOrder?: string[];

  @Field(() => [String], {
    nullable: true,
    description: 'Section keys (built-in or custom), each once, to leave out; replaces the list.',
  })
  hiddenSections?: string[];

  @Field(() => sectionsInput, {
    nullable: true,
    description: 'Each section sent replaces that section whole; the others stay.',
  })
  sections?: Record<string, Row[]>;

  @Field(() => [custom.input], { nullable: true, description: 'Replaces every custom section.' })
  customSections?: Row[];
}

@InputType('ImportJsonResumeInput', {
  description: 'A JSON Resume document to make a new CV of, with optional template, title and locale.',
})
export class ImportJsonResumeInput {
  @Field(() => GraphQLJSONObject, { description: 'A JSON Resume 1.2.1 document.' })
  resume!: Record<string, unknown>;

  @Field(() => ID, { nullable: true, description: 'Default: the platform’s first free template.' })
  templateId?: string;

  @Field(() => String, {
    nullable: true,
    description: 'Default: the title kept by an export, else the name.',
  })
  title?: string;

  @Field(() => String, { nullable: true, description: 'ar or en. Default: from the resume’s text.' })
  locale?: string;
}

export function toCvType(row: CvRow, publicBaseUrl: string): CvType {
  const self = `${publicBaseUrl}/api/v1/cvs/${row.id}`;
  return {
    id: row.id,
    title: row.title,
    locale: row.locale,
    templateId: String(row.template_id),
    personal: camelKeys({ ...emptyPersonal(), ...row.personal }),
    settings: camelKeys(row.settings),
    sectionOrder: row.section_order,
    hiddenSections: row.hidden_sections,
    customSections: row.custom_sections.map((section) => ({ ...section, content: section.content ?? null })),
    photo:
      row.photo_type === null
        ? null
        : {
            type: row.photo_type,
            width: row.photo_width ?? 0,
            height: row.photo_height ?? 0,
            size: row.photo_size ?? 0,
          },
    links: {
      self,
      pdf: `${self}/pdf`,
      html: `${self}/html`,
      share: `${publicBaseUrl}/cv/${row.share_token}`,
    },
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
