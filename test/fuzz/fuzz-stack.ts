import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import {
  newBranchKey,
  newCvAccount,
  newTicketBranch,
  type Platform,
  platformTemplateId,
  startPlatform,
} from '../support/platform';
import type { FuzzTarget } from './fuzz-engine';

export interface FuzzStack {
  target: FuzzTarget;
  stop(): Promise<void>;
}

/**
 * One key sends every case from one address, far past the documents' 120 and 60 a minute; only the
 * rate limits are raised, every other rule holds as in production.
 */
const UNLIMITED = '100000000';

async function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Tickets in every state and CVs of two accounts, so cases reach records that exist and others' records. */
async function seedRecords(platform: Platform, database: TestDatabase) {
  const branch = await newTicketBranch(platform.config);
  const readOnly = await newBranchKey(platform.config, branch.branchId, 'tickets:read');
  const otherBranch = await newTicketBranch(platform.config);
  const ticketAs = (key: string) => ({ authorization: `Bearer ${key}` });
  await post(`${platform.restUrl}/tickets`, ticketAs(otherBranch.key), { external_id: 'other-branch-order' });
  for (const [index, move] of (['', 'ready', 'collected', 'cancel', 'ready'] as const).entries()) {
    const created = await post(`${platform.restUrl}/tickets`, ticketAs(branch.key), {
      external_id: `order-${index}`,
      customer_name: 'Zainab',
      customer_phone: '0770 123 4567',
    });
    if (move !== '')
      await post(`${platform.restUrl}/tickets/${String(created.id)}/${move}`, ticketAs(branch.key), {});
  }

  const account = await newCvAccount(platform.config, { plan: 'pro' });
  const otherAccount = await newCvAccount(platform.config);
  const template = await platformTemplateId(database, 'classic');
  for (const [key, title] of [
    [account.key, 'سيرتي'],
    [account.key, 'My CV'],
    [otherAccount.key, 'Not yours'],
  ] as const) {
    await post(
      `${platform.restUrl}/cvs`,
      { 'x-api-key': key },
      { title, locale: 'ar', template_id: template },
    );
  }
  return { branch, readOnly: readOnly.key, account };
}

/** The whole platform in this process, with its records, ready to be fuzzed. */
export async function startFuzzStack(): Promise<FuzzStack> {
  const database = await createTestDatabase();
  let platform: Platform | undefined;
  const client = new Client({ connectionString: database.url });
  try {
    platform = await startPlatform(database, {
      TICKETS_RATE_LIMIT: UNLIMITED,
      CV_RATE_LIMIT: UNLIMITED,
      SESSION_RATE_LIMIT: UNLIMITED,
      PUBLIC_RATE_LIMIT: UNLIMITED,
    });
    const { branch, readOnly, account } = await seedRecords(platform, database);
    await client.connect();
    const running = platform;
    return {
      target: {
        restUrl: platform.restUrl,
        gatewayUrl: platform.gatewayUrl,
        ticketKey: branch.key,
        ticketReadKey: readOnly,
        cvKey: account.key,
        branchId: branch.branchId,
        cvAccountId: account.id,
        database: client,
      },
      stop: async () => {
        await client.end();
        await running.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await client.end().catch(() => undefined);
    await platform?.stop();
    await database.drop();
    throw error;
  }
}
