import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType('AccountApiKey', { description: 'The API key a request was made with; never the key itself.' })
export class AccountApiKeyType {
  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'Leading characters of the key.' })
  prefix!: string;
}

/** A CV account; billing adds its plan, subscription and usage. */
@Directive('@key(fields: "id")')
@ObjectType('Account', { description: 'Who builds CVs (the Account resource of cv-api.md).' })
export class AccountType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  email!: string;

  @Field(() => AccountApiKeyType, {
    nullable: true,
    description: 'The key of this request, when the account is the caller (`me`).',
  })
  apiKey!: AccountApiKeyType | null;
}
