import { ForbiddenError, PaymentRequiredError, UnauthenticatedError } from '../../common/errors';
import type { TicketScope } from './api-key.entity';
import type { ApiKeyService, Principal } from './api-key.service';
import type { VenuePlanClient } from './venue-plan.client';

/** The credential of a request: `Authorization: Bearer <key>`. */
export function bearerKey(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * Decides who may do what, once per request: an unknown or revoked key is 401, a venue whose plan
 * lacks the API is 402, a key without the needed scope is 403.
 */
export class TicketAccess {
  private principal?: Promise<Principal>;

  constructor(
    private readonly authorization: string | undefined,
    private readonly apiKeys: ApiKeyService,
    private readonly plans: VenuePlanClient,
    private readonly requestId?: string,
  ) {}

  async require(scope: TicketScope): Promise<Principal> {
    const principal = await (this.principal ??= this.authenticate());
    if (!principal.scopes.includes(scope)) throw new ForbiddenError(`This API key lacks the ${scope} scope.`);
    return principal;
  }

  private async authenticate(): Promise<Principal> {
    const key = bearerKey(this.authorization);
    if (key === undefined) throw new UnauthenticatedError('Unauthenticated.');
    const principal = await this.apiKeys.authenticate(key);
    if (principal === null) throw new UnauthenticatedError('Unauthenticated.');
    const entitlements = await this.plans.entitlementsOf(principal.venueId, this.requestId);
    if (!entitlements.apiAccess) {
      throw new PaymentRequiredError('Your plan does not include API access. Upgrade to Growth or above.');
    }
    await this.apiKeys.touch(principal.keyId);
    return principal;
  }
}
