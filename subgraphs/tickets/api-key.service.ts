import { hashApiKey, newApiKey, touchApiKey } from '../../common/api-keys';
import type { EntityManager } from '../../common/database';
import { NotFoundError, ValidationError, type FieldErrors } from '../../common/errors';
import { ApiKey, TICKET_SCOPES, type TicketScope } from './api-key.entity';
import { Branch } from './branch.entity';
import { checkName } from './ticket.rules';

/** Every key starts with this, so a leaked one is recognisable in logs and scanners. */
const KEY_PREFIX = 'tk_';

export interface IssuedKey {
  id: number;
  key: string;
  prefix: string;
  branch_id: number;
  name: string;
  scopes: TicketScope[];
}

/** Who a valid key speaks for. */
export interface Principal {
  keyId: number;
  branchId: number;
  venueId: number;
  scopes: readonly TicketScope[];
}

export function parseScopes(value: string): TicketScope[] {
  const scopes = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  const unknown = scopes.filter((s) => !(TICKET_SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new ValidationError({
      scopes: [
        `The scopes must be a comma-separated list of ${TICKET_SCOPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}.`,
      ],
    });
  }
  return scopes as TicketScope[];
}

export class ApiKeyService {
  constructor(private readonly em: EntityManager) {}

  /** @param presetKey only for the local demo key, which must stay the same across restarts */
  async issue(
    branchId: number,
    name: string,
    scopes: readonly TicketScope[] = TICKET_SCOPES,
    presetKey?: string,
  ): Promise<IssuedKey> {
    const branch = await this.em.findOne(Branch, { id: branchId });
    if (branch === null) throw new NotFoundError(`Branch ${branchId} not found.`);
    const errors: FieldErrors = {};
    const trimmed = checkName(errors, 'name', name);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const { key, prefix, hash } = newApiKey(KEY_PREFIX, presetKey);
    const apiKey = this.em.create(ApiKey, {
      branchId,
      name: trimmed,
      scopes: [...scopes],
      prefix,
      keyHash: hash,
    });
    await this.em.flush();
    return {
      id: apiKey.id,
      key,
      prefix: apiKey.prefix,
      branch_id: branchId,
      name: apiKey.name,
      scopes: apiKey.scopes,
    };
  }

  async revoke(id: number): Promise<{ id: number; revoked_at: string }> {
    const apiKey = await this.em.findOne(ApiKey, { id });
    if (apiKey === null) throw new NotFoundError(`API key ${id} not found.`);
    apiKey.revokedAt ??= new Date();
    await this.em.flush();
    return { id, revoked_at: apiKey.revokedAt.toISOString() };
  }

  /** The principal of a live key, or null for an unknown or revoked one. */
  authenticate(key: string): Promise<Principal | null> {
    return this.authenticateHash(hashApiKey(key));
  }

  async authenticateHash(keyHash: Buffer): Promise<Principal | null> {
    const rows = await this.em.execute<
      { id: string; branch_id: string; venue_id: string; scopes: TicketScope[] }[]
    >(
      `select k.id, k.branch_id, b.venue_id, k.scopes
         from tickets.api_keys k join tickets.branches b on b.id = k.branch_id
        where k.key_hash = ? and k.revoked_at is null`,
      [keyHash],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      keyId: Number(row.id),
      branchId: Number(row.branch_id),
      venueId: Number(row.venue_id),
      scopes: row.scopes,
    };
  }

  /** Records use without a write per request: at most once a minute per key and process. */
  touch(keyId: number): Promise<void> {
    return touchApiKey(this.em, 'tickets.api_keys', keyId);
  }
}
