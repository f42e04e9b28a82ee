import type { TextLanguage } from '../../common/language';
import type { SubgraphClient } from '../../common/subgraph-call';

/** A person as the other subgraphs may know them. */
export interface Person {
  id: string;
  email: string;
  name: string;
  language: TextLanguage;
}

const USER = `query User($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on User { id email name language } }
}`;

/**
 * What the identity subgraph says of a person, through federation's `_entities`: the other
 * subgraphs keep only user ids, and ask for a name, an address or a language when they need one.
 */
export class PeopleClient {
  constructor(private readonly identity: SubgraphClient) {}

  async person(userId: number, requestId?: string): Promise<Person | null> {
    const { _entities } = await this.identity.call<{ _entities: (Person | null)[] }>(
      'reading a user',
      USER,
      { representations: [{ __typename: 'User', id: String(userId) }] },
      { requestId },
    );
    return _entities[0] ?? null;
  }
}
