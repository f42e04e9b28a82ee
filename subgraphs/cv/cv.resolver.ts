import { Arg, ID, Mutation, Query, Resolver } from 'type-graphql';
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

  @Query(() => CvType, { description: 'One CV: another account’s is FORBIDDEN, an unknown one NOT_FOUND.' })
  async cv(@Arg('id', () => ID) id: string): Promise<CvType> {
    const principal = await this.access.require();
    return toCvType(await this.service.get(principal, id), this.publicBaseUrl);
  }

  @Mutation(() => Boolean, { description: 'Deletes the CV with every section; its share page goes too.' })
  async deleteCv(@Arg('id', () => ID) id: string): Promise<boolean> {
    const principal = await this.access.require();
    await this.service.delete(principal, id);
    return true;
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
