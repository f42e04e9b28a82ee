import type { SubgraphClient } from '../../common/subgraph-call';

/** What the cv subgraph needs of a person: what their account is called and where it is reached. */
export interface Person {
  id: string;
  email: string;
  name: string;
}

const USER = `query CvAccountOwner($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on User { id email name } }
}`;

/** The identity subgraph's word on a user, through federation's `_entities`: cv keeps only their id. */
export class PeopleClient {
  constructor(private readonly identity: SubgraphClient) {}

  async person(userId: number, requestId?: string): Promise<Person | null> {
    const { _entities } = await this.identity.call<{ _entities: (Person | null)[] }>(
      'reading the account’s owner',
      USER,
      { representations: [{ __typename: 'User', id: String(userId) }] },
      { requestId },
    );
    return _entities[0] ?? null;
  }
}
