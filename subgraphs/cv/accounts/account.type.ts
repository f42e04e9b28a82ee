import { Directive, Field, ID, InputType, ObjectType } from 'type-graphql';
import { ApiKeyField, apiKeyFieldsOf } from '../../../common/api-key.graphql';
import { auditGraphTypes } from '../../../common/audit.graphql';
import type { Account, AccountApiKey } from './account.entity';
import type { RequestKey } from './account.service';

@ObjectType('AccountApiKey', { description: 'An API key of a CV account (X-API-Key); never the key itself.' })
export class AccountApiKeyType {
  @ApiKeyField.id('revokeAccountApiKey')
  id!: string;

  @ApiKeyField.name()
  name!: string;

  @Field(() => String, { description: 'Leading characters of the key.' })
  prefix!: string;

  @ApiKeyField.lastUsedAt()
  lastUsedAt!: Date | null;

  @ApiKeyField.revokedAt()
  revokedAt!: Date | null;

  @ApiKeyField.createdAt()
  createdAt!: Date;
}

export function toAccountApiKeyType(key: AccountApiKey | RequestKey): AccountApiKeyType {
  // A request's key works, or the request would have been refused.
  return apiKeyFieldsOf('revokedAt' in key ? key : { ...key, revokedAt: null });
}

/** A CV account; billing adds its plan, subscription and usage. */
@Directive('@key(fields: "id")')
@ObjectType('Account', { description: 'Who builds CVs (the Account resource of cv-api.md).' })
export class AccountType {
  @Field(() => ID, { description: 'The account’s id.' })
  id!: string;

  @Field(() => String, { description: 'The account’s name.' })
  name!: string;

  @Field(() => String, {
    description:
      'The account’s email address; for a person’s account, the user’s address when it was opened.',
  })
  email!: string;

  @Field(() => AccountApiKeyType, {
    nullable: true,
    description:
      'The key of this request, when the account is the caller (`me`); null for a signed-in owner.',
  })
  apiKey!: AccountApiKeyType | null;
}

export function toAccountType(account: Account, apiKey: AccountApiKeyType | null): AccountType {
  return { id: String(account.id), name: account.name, email: account.email, apiKey };
}

@ObjectType('IssuedAccountApiKey', {
  description: 'A new account key: its secret, shown this once, and the key.',
})
export class IssuedAccountApiKeyType {
  @Field(() => String, { description: 'The key for X-API-Key (`cv_…`); it cannot be read again.' })
  secret!: string;

  @Field(() => AccountApiKeyType, { description: 'The key as the account’s key list shows it.' })
  apiKey!: AccountApiKeyType;
}

@InputType('CreateCvAccountInput', { description: 'The signed-in user’s own CV account.' })
export class CreateCvAccountInput {
  @Field(() => String, {
    nullable: true,
    description: 'The account’s name, 1–255 characters; the user’s own name when left out.',
  })
  name?: string | null;
}

@InputType('CreateAccountApiKeyInput', { description: 'A new API key of the signed-in user’s CV account.' })
export class CreateAccountApiKeyInput {
  @Field(() => String, { description: 'What the key is for, 1–255 characters (e.g. the app that holds it).' })
  name!: string;
}

/**
 * The identity subgraph's user, as the cv subgraph knows one: by id. The cv subgraph resolves it
 * (it adds `cvAccount`), so its key is resolvable, unlike the tickets subgraph's reference.
 */
@Directive('@key(fields: "id")')
@ObjectType('User')
export class CvUserType {
  @Field(() => ID, { description: 'The user’s id.' })
  id!: string;
}

/** An account's audit log as the graph pages it; the shape is every log's (common/audit.graphql.ts). */
export const { AuditLogPageType } = auditGraphTypes(CvUserType);
export type AuditLogPageType = InstanceType<typeof AuditLogPageType>;
