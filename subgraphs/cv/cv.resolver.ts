import { Arg, Mutation, Query, Resolver } from 'type-graphql';
import type { PlanClient } from '../../common/plan-client';
import type { AccountEntitlements } from './account-plan.client';
import { CvAccess } from './cv-access';
import { CvService } from './cv.service';
import { CreateCvInput, CvType, toCvType } from './cv.type';

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
    return (await this.service.list(principal)).map((row) => toCvType(row, this.publicBaseUrl));
  }

  @Mutation(() => CvType, {
    description: 'Creates a CV on an available template, within the plan’s cv_limit (FORBIDDEN beyond it).',
  })
  async createCv(@Arg('input', () => CreateCvInput) input: CreateCvInput): Promise<CvType> {
    const principal = await this.access.require();
    const entitlements = await this.plans.of(principal.accountId);
    return toCvType(await this.service.create(principal, entitlements, input), this.publicBaseUrl);
  }
}
