import { Arg, Directive, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { NotFoundError } from '../../common/errors';
import { say } from '../../common/messages';
import { parseRecordId } from '../../common/input.rules';
import { SubscriptionService, type DownloadMeter } from './subscription.service';

function accountIdOf(accountId: string): number {
  const id = parseRecordId(accountId);
  if (id === null) throw new NotFoundError(say('cv.account_not_found'));
  return id;
}

@Directive('@inaccessible')
@ObjectType('CvDownloadMeter', { description: 'An export counted against the month’s download_limit.' })
export class CvDownloadMeterType implements DownloadMeter {
  @Field(() => Boolean, { description: 'False at the limit: nothing was counted.' })
  allowed!: boolean;

  @Field(() => Int)
  downloads!: number;

  @Field(() => Int, { nullable: true, description: 'null: unlimited.' })
  limit!: number | null;
}

/**
 * Metering for the cv subgraph's exports. `@inaccessible`: the gateway never offers these to
 * clients; only the cv subgraph calls them, on billing's own address (docs/ARCHITECTURE.md).
 */
@Resolver()
export class MeterResolver {
  constructor(private readonly subscriptions: SubscriptionService) {}

  @Directive('@inaccessible')
  @Mutation(() => CvDownloadMeterType)
  meterCvDownload(@Arg('accountId', () => ID) accountId: string): Promise<DownloadMeter> {
    return this.subscriptions.meterDownload('account', accountIdOf(accountId));
  }

  @Directive('@inaccessible')
  @Mutation(() => Boolean)
  async refundCvDownload(@Arg('accountId', () => ID) accountId: string): Promise<boolean> {
    await this.subscriptions.refundDownload('account', accountIdOf(accountId));
    return true;
  }
}
