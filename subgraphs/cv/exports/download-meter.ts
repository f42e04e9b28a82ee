import type { Config } from '../../../common/config';
import { SubgraphClient } from '../../../common/subgraph-call';

export interface MeteredDownload {
  allowed: boolean;
  downloads: number;
  limit: number | null;
}

/**
 * Billing owns usage and the plan's download_limit; the cv subgraph asks it to count each export
 * (and to give one back when the render fails) on billing's own address, where the mutations
 * the gateway hides (`@inaccessible`) are served.
 */
export class DownloadMeter {
  constructor(private readonly billing: SubgraphClient) {}

  static from(config: Config): DownloadMeter {
    return new DownloadMeter(SubgraphClient.of(config, 'billing'));
  }

  async meter(accountId: number, requestId?: string): Promise<MeteredDownload> {
    const data = await this.billing.call<{ meterCvDownload: MeteredDownload }>(
      `metering an export of account ${accountId}`,
      'mutation Meter($id: ID!) { meterCvDownload(accountId: $id) { allowed downloads limit } }',
      { id: String(accountId) },
      { requestId },
    );
    return data.meterCvDownload;
  }

  async refund(accountId: number, requestId?: string): Promise<void> {
    await this.billing.call(
      `giving back an export of account ${accountId}`,
      'mutation Refund($id: ID!) { refundCvDownload(accountId: $id) }',
      { id: String(accountId) },
      { requestId },
    );
  }
}
