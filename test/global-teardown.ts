import { quoteIdentifier } from '../common/database';
import { adminQuery, TEMPLATE_DATABASE } from './support/database';

export default async function globalTeardown(): Promise<void> {
  await adminQuery((client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(TEMPLATE_DATABASE)} WITH (FORCE)`),
  );
}
