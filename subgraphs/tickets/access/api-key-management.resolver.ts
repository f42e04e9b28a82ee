import { Arg, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { SlicedBy } from '../../../common/cost.graphql';
import { VENUE_CAPS, VenueType } from '../venues';
import {
  IssuedVenueApiKeyType,
  IssueApiKeyInput,
  toVenueApiKeyType,
  VenueApiKeyType,
} from './api-key-management.type';
import { VenueApiKeys } from './api-key-management.service';

/** How many keys a venue lists unless asked for more; the gateway weighs a list by it. */
const LIST_DEFAULT = 50;
const LIST_MAX = 100;

function bounded(first: number): number {
  return Math.min(Math.max(first, 0), LIST_MAX);
}

/** A venue's API keys on the graph, for its owners and managers. */
@Resolver(() => VenueType)
export class VenueApiKeysResolver {
  constructor(private readonly management: VenueApiKeys) {}

  @SlicedBy('first')
  @FieldResolver(() => [VenueApiKeyType], {
    description:
      'The API keys of the venue’s branches, revoked ones included, the oldest first. Owners and managers.',
  })
  async apiKeys(
    @Root() venue: VenueType,
    @Arg('first', () => Int, { defaultValue: LIST_DEFAULT, description: `At most ${LIST_MAX}.` })
    first: number,
  ): Promise<VenueApiKeyType[]> {
    return (await this.keysOf(Number(venue.id))).slice(0, bounded(first));
  }

  @Mutation(() => IssuedVenueApiKeyType, {
    description: `Issues an API key for a branch; its secret is shown this once. Owners and managers; past ${VENUE_CAPS.apiKeys} keys not revoked at the venue, BAD_USER_INPUT on branchId.`,
  })
  async issueApiKey(
    @Arg('input', () => IssueApiKeyInput, { description: 'The branch, the key’s name and its scopes.' })
    input: IssueApiKeyInput,
  ): Promise<IssuedVenueApiKeyType> {
    const { issued, venueId } = await this.management.issueApiKey(input);
    return { secret: issued.key, apiKey: await this.keyOf(venueId, issued.id) };
  }

  @Mutation(() => VenueApiKeyType, {
    description: 'Revokes an API key at once; it answers 401 from its next request. Owners and managers.',
  })
  async revokeApiKey(
    @Arg('id', () => ID, { description: 'The key’s id.' }) id: string,
  ): Promise<VenueApiKeyType> {
    const { keyId, venueId } = await this.management.revokeApiKey(id);
    return this.keyOf(venueId, keyId);
  }

  private async keysOf(venueId: number): Promise<VenueApiKeyType[]> {
    const { keys, branches } = await this.management.apiKeysOf(venueId);
    const byId = new Map(branches.map((b) => [b.id, { id: String(b.id), name: b.name, venueId }]));
    return keys.map((key) => toVenueApiKeyType(key, byId));
  }

  private async keyOf(venueId: number, keyId: number): Promise<VenueApiKeyType> {
    return (await this.keysOf(venueId)).find((key) => key.id === String(keyId))!;
  }
}
