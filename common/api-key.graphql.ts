import { Field, ID } from 'type-graphql';
import type { ApiKeyColumns } from './api-key-store';

/**
 * The fields every API key type of the graph has (a venue's `VenueApiKey`, a CV account's
 * `AccountApiKey`), worded once. Each type places them among its owner's fields in its own order.
 */
export const ApiKeyField = {
  /** `revokedBy`: the mutation that takes the id. */
  id: (revokedBy: string) => Field(() => ID, { description: `The key’s id, for ${revokedBy}.` }),
  name: () => Field(() => String, { description: 'The name it was issued with.' }),
  lastUsedAt: () =>
    Field(() => Date, {
      nullable: true,
      description: 'Its last request, to the minute; null if never used.',
    }),
  revokedAt: () =>
    Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works.' }),
  createdAt: () => Field(() => Date, { description: 'When it was issued.' }),
};

/** A key as the graph shows what every key has; never the key itself nor its hash. */
export interface ApiKeyFields {
  id: string;
  name: string;
  prefix: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/** What every key type shows, from a key as its store or repository reads it. */
export function apiKeyFieldsOf(
  key: Pick<ApiKeyColumns, 'id' | 'name' | 'prefix' | 'lastUsedAt' | 'revokedAt' | 'createdAt'>,
): ApiKeyFields {
  return {
    id: String(key.id),
    name: key.name,
    prefix: key.prefix,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
    createdAt: key.createdAt,
  };
}
