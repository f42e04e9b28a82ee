import { Arg, ID, Query, Resolver } from 'type-graphql';
import { NotFoundError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import type { TextLanguage } from '../../../common/language';
import type { PlanClient } from '../../../common/plan-client';
import { type AccountEntitlements, CvAccess } from '../accounts';
import type { Template } from './template.entity';
import type { TemplateService } from './template.service';
import { TemplateType, toTemplateType } from './template.type';
import { text } from '../../../common/messages';

@Resolver(() => TemplateType)
export class TemplateResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly templateService: TemplateService,
    private readonly plans: PlanClient<AccountEntitlements>,
    private readonly publicBaseUrl: string,
    private readonly language: TextLanguage,
  ) {}

  @Query(() => [TemplateType], { description: 'The platform’s templates, then the account’s company’s own.' })
  async templates(): Promise<TemplateType[]> {
    const { templates, premiumAllowed } = await this.visible();
    return templates.map((t) => toTemplateType(t, premiumAllowed, this.publicBaseUrl));
  }

  @Query(() => TemplateType, {
    description: 'One template the account can see; another company’s is not found.',
  })
  async template(
    @Arg('id', () => ID, { description: 'The template’s id.' }) id: string,
  ): Promise<TemplateType> {
    const { templates, premiumAllowed } = await this.visible();
    const templateId = parseRecordId(id);
    const template = templates.find((t) => t.id === templateId);
    if (template === undefined) throw new NotFoundError(text('cv.template_not_found', this.language));
    return toTemplateType(template, premiumAllowed, this.publicBaseUrl);
  }

  private async visible(): Promise<{ templates: Template[]; premiumAllowed: boolean }> {
    const principal = await this.access.require();
    const [templates, entitlements] = await Promise.all([
      this.templateService.visibleTo(principal.companyId),
      this.plans.of(principal.accountId),
    ]);
    return { templates, premiumAllowed: entitlements.premiumTemplates };
  }
}
