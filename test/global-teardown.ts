import { quoteIdentifier } from '../common/postgres';
import { adminQuery, templateDatabase } from './support/database';

export default async function globalTeardown(): Promise<void> {
  await adminQuery((client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(templateDatabase())} WITH (FORCE)`),
  );
}
