import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { BranchType, UserReference } from '../venues';
import { TICKET_SCOPES } from './api-key.entity';
import type { VenueApiKey } from './api-key.repository';
import { ApiKeyField, apiKeyFieldsOf } from '../../../common/api-key.graphql';
import { AssumedSize } from '../../../common/cost.graphql';

@ObjectType('VenueApiKey', {
  description: 'An API key of one of the venue’s branches; never the key itself.',
})
export class VenueApiKeyType {
  @ApiKeyField.id('revokeApiKey')
  id!: string;

  @ApiKeyField.name()
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

  @ApiKeyField.lastUsedAt()
  lastUsedAt!: Date | null;

  @ApiKeyField.revokedAt()
  revokedAt!: Date | null;

  @ApiKeyField.createdAt()
  createdAt!: Date;
}

export function toVenueApiKeyType(key: VenueApiKey, branches: Map<number, BranchType>): VenueApiKeyType {
  return {
    ...apiKeyFieldsOf(key),
    scopes: key.scopes,
    branch: branches.get(key.branchId) ?? { id: String(key.branchId), name: '', venueId: 0 },
    createdBy: key.createdByUserId === null ? null : { id: String(key.createdByUserId) },
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
