import { InflightJoin } from '../common/inflight-join';
import type { JsonHttpAnswer } from '../common/json-http';
import { RedisSubscription, type Redis } from '../common/redis';
import { accessChannel } from '../contracts/tickets/access-change';

/**
 * Where the adapter's identical reads join one call to the gateway in flight, under the gateway's
 * rule for its own subgraph fetches (docs/API-DECISIONS.md, "Identical subgraph fetches in
 * flight"): the adapter hears the access announcements itself, so nothing joins a call sent
 * before the last one it heard, and nothing joins while it may miss one (its subscription lost).
 */
export class SharedReads {
  readonly join: InflightJoin<JsonHttpAnswer>;
  private subscription?: RedisSubscription;

  private constructor() {
    this.join = new InflightJoin<JsonHttpAnswer>(() => this.subscription?.isLive === true);
  }

  /** `heard`: told of each announcement too (what the adapter keeps of who a credential is). */
  static async listen(redis: Redis, redisPrefix: string, heard?: () => void): Promise<SharedReads> {
    const reads = new SharedReads();
    const forget = () => {
      reads.join.forgetUnderWay();
      heard?.();
    };
    reads.subscription = await RedisSubscription.open(
      redis,
      'rest-adapter:access',
      [accessChannel(redisPrefix)],
      {
        message: forget,
        lost: forget,
        restored: forget,
      },
    );
    return reads;
  }

  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
