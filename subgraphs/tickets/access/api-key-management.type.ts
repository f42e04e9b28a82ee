import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { BranchType, UserReference } from '../venues';
import { TICKET_SCOPES } from './api-key.entity';
import type { VenueApiKey } from './api-key.repository';
import { AssumedSize } from '../../../common/cost.graphql';

@ObjectType('VenueApiKey', {
  description: 'An API key of one of the venue’s branches; never the key itself.',
})
export class VenueApiKeyType {
  @Field(() => ID, { description: 'The key’s id, for revokeApiKey.' })
  id!: string;

  @Field(() => String, { description: 'The name it was issued with.' })
  name!: string;

  @Field(() => String, { description: 'Its first 11 characters, to tell keys apart.' })
  prefix!: string;

  @AssumedSize(TICKET_SCOPES.length)
  @Field(() => [String], { description: 'tickets:read and/or tickets:write.' })
  scopes!: string[];

  @Field(() => BranchType, { description: 'The branch whose tickets it reaches.' })
  branch!: BranchType;

  @Field(() => UserReference, {
    nullable: true,
    description: 'Who issued it; null for a key the operator issued.',
  })
  createdBy!: UserReference | null;

  @Field(() => Date, { nullable: true, description: 'Its last request, to the minute; null if never used.' })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works.' })
  revokedAt!: Date | null;

  @Field(() => Date, { description: 'When it was issued.' })
  createdAt!: Date;
}

export function toVenueApiKeyType(key: VenueApiKey, branches: Map<number, BranchType>): VenueApiKeyType {
  return {
    id: String(key.id),
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    branch: branches.get(key.branchId) ?? { id: String(key.branchId), name: '', venueId: 0 },
    createdBy: key.createdByUserId === null ? null : { id: String(key.createdByUserId) },
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
    createdAt: key.createdAt,
  };
}

@ObjectType('IssuedVenueApiKey', { description: 'A new key: its secret, shown this once, and the key.' })
export class IssuedVenueApiKeyType {
  @Field(() => String, {
    description: 'The key (`tk_…`). Only its hash is stored; it cannot be shown again.',
  })
  secret!: string;

  @Field(() => VenueApiKeyType, { description: 'The key as the venue lists it.' })
  apiKey!: VenueApiKeyType;
}

@InputType('IssueApiKeyInput', { description: 'A new API key for a branch.' })
export class IssueApiKeyInput {
  @Field(() => ID, { description: 'The branch whose tickets the key reaches.' })
  branchId!: string;

  @Field(() => String, { description: '1 to 120 characters, such as "POS till 1".' })
  name!: string;

  @Field(() => [String], {
    nullable: true,
    description: 'tickets:read and/or tickets:write; both by default.',
  })
  scopes?: string[] | null;
}
