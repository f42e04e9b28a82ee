import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { camelKeys, snakeKeys } from '../../../common/case';
import type { PlanClient } from '../../../common/plan-client';
import { type AccountEntitlements, CvAccess } from '../accounts';
import { CvService, type CvRow } from './cv.service';
import {
  CreateCvInput,
  CvSectionsType,
  CvType,
  ImportJsonResumeInput,
  UpdateCvInput,
  toCvType,
} from './cv.type';

/** How every operation here names its CV. */
const CV_ID = { description: 'The CV’s UUID.' };

/** The CV operations of cv-api.md; the REST adapter maps each endpoint onto one of these. */
@Resolver(() => CvType)
export class CvResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly service: CvService,
    private readonly plans: PlanClient<AccountEntitlements>,
    private readonly publicBaseUrl: string,
  ) {}

  @Query(() => [CvType], { description: 'The account’s CVs, newest first.' })
  async cvs(): Promise<CvType[]> {
    const principal = await this.access.require();
    return (await this.service.list(principal)).map((row) => this.toType(row));
  }

  @Query(() => CvType, { description: 'One CV: another account’s is FORBIDDEN, an unknown one NOT_FOUND.' })
  async cv(@Arg('id', () => ID, CV_ID) id: string): Promise<CvType> {
    const principal = await this.access.require();
    return this.toType(await this.service.get(principal, id));
  }

  /** Section rows are read only when a selection asks for them (a list seldom does). */
  @FieldResolver(() => CvSectionsType, { description: 'Every built-in section with its items.' })
  async sections(@Root() cv: CvType): Promise<Record<string, unknown>> {
    return camelKeys(await this.service.sectionsOf(cv.id));
  }

  @FieldResolver(() => GraphQLJSONObject, {
    description: 'The CV as JSON Resume 1.2.1; what JSON Resume has no field for is kept under extra keys.',
  })
  async jsonResume(@Root() cv: CvType): Promise<Record<string, unknown>> {
    return this.service.exportResume(await this.access.require(), cv.id, cv.links.self);
  }

  @Mutation(() => CvType, {
    description: 'Creates a CV on an available template, within the plan’s cv_limit (FORBIDDEN beyond it).',
  })
  async createCv(
    @Arg('input', () => CreateCvInput, { description: 'The CV’s title, locale and template.' })
    input: CreateCvInput,
  ): Promise<CvType> {
    const principal = await this.access.require();
    const entitlements = await this.plans.of(principal.accountId);
    return this.toType(await this.service.create(principal, entitlements, input));
  }

  @Mutation(() => CvType, {
    description:
      'Changes only the fields sent; each section sent replaces that section. Field errors are keyed by the document’s snake_case path, e.g. sections.experience.0.start_date.',
  })
  async updateCv(
    @Arg('id', () => ID, CV_ID) id: string,
    @Arg('input', () => UpdateCvInput, { description: 'The fields to change.' }) input: UpdateCvInput,
  ): Promise<CvType> {
    const principal = await this.access.require();
    return this.toType(await this.service.update(principal, id, snakeKeys(input)));
  }

  @Mutation(() => CvType, {
    description: 'A deep copy with every section row and the photo, within cv_limit.',
  })
  async duplicateCv(@Arg('id', () => ID, CV_ID) id: string): Promise<CvType> {
    const principal = await this.access.require();
    const entitlements = await this.plans.of(principal.accountId);
    return this.toType(await this.service.duplicate(principal, entitlements, id));
  }

  @Mutation(() => CvType, {
    description: 'Moves the CV to another template and resets settings to its defaults.',
  })
  async switchCvTemplate(
    @Arg('id', () => ID, CV_ID) id: string,
    @Arg('templateId', () => ID, {
      description: 'A template the account can see; a premium one needs a plan with premium templates.',
    })
    templateId: string,
  ): Promise<CvType> {
    const principal = await this.access.require();
    const entitlements = await this.plans.of(principal.accountId);
    return this.toType(await this.service.switchTemplate(principal, entitlements, id, templateId));
  }

  @Mutation(() => CvType, {
    description:
      'Sets the photo: base64 of a JPEG, PNG or WebP of at most 4 MB, checked by content; metadata is removed.',
  })
  async setCvPhoto(
    @Arg('id', () => ID, CV_ID) id: string,
    @Arg('photoBase64', () => String, {
      description: 'The image file in base64: JPEG, PNG or WebP, at most 4 MB once decoded.',
    })
    photoBase64: string,
  ): Promise<CvType> {
    const principal = await this.access.require();
    return this.toType(await this.service.setPhoto(principal, id, Buffer.from(photoBase64, 'base64')));
  }

  @Mutation(() => CvType, { description: 'Removes the CV’s photo; a CV without one comes back unchanged.' })
  async removeCvPhoto(@Arg('id', () => ID, CV_ID) id: string): Promise<CvType> {
    const principal = await this.access.require();
    return this.toType(await this.service.removePhoto(principal, id));
  }

  @Mutation(() => Boolean, { description: 'Deletes the CV with every section; its share page goes too.' })
  async deleteCv(@Arg('id', () => ID, CV_ID) id: string): Promise<boolean> {
    const principal = await this.access.require();
    await this.service.delete(principal, id);
    return true;
  }

  @Mutation(() => CvType, { description: 'A new CV from a JSON Resume document, within cv_limit.' })
  async importJsonResume(
    @Arg('input', () => ImportJsonResumeInput, {
      description: 'The resume, and the template, title and locale when not the defaults.',
    })
    input: ImportJsonResumeInput,
  ): Promise<CvType> {
    const principal = await this.access.require();
    const entitlements = await this.plans.of(principal.accountId);
    return this.toType(await this.service.importResume(principal, entitlements, input.resume, input));
  }

  private toType(row: CvRow): CvType {
    return toCvType(row, this.publicBaseUrl);
  }
}
