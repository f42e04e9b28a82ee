import { hashApiKey, newApiKey } from '../../../common/api-keys';
import type { EntityManager } from '../../../common/database';
import { NotFoundError, ValidationError, type FieldMessages } from '../../../common/errors';
import { TICKET_SCOPES, type TicketScope } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { checkName, claimVenueRoom, VenueRepository } from '../venues';
import { say } from '../../../common/messages';

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
  /** The key of the request; null when a signed-in member works at the branch. */
  keyId: number | null;
  /** The signed-in member working at the branch; absent for a key. */
  userId?: number;
  branchId: number;
  venueId: number;
  scopes: readonly TicketScope[];
  /** A paired board device: the board is the product itself, so the plan's API access is not asked. */
  board?: boolean;
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
    const choices = TICKET_SCOPES.join(', ');
    throw new ValidationError({
      scopes: [
        unknown.length > 0
          ? say('field.choose_list_unknown', { field: 'scopes', choices, unknown: unknown.join(', ') })
          : say('field.choose_list', { field: 'scopes', choices }),
      ],
    });
  }
  return scopes as TicketScope[];
}

/** Issues, revokes and authenticates branches' API keys. */
export class ApiKeyService {
  private readonly keys: ApiKeyRepository;
  private readonly venues: VenueRepository;

  constructor(private readonly em: EntityManager) {
    this.keys = new ApiKeyRepository(em);
    this.venues = new VenueRepository(em);
  }

  /**
   * A key more for the branch, up to VENUE_CAPS.apiKeys not revoked at its venue: the one past it
   * is refused on `branchId`.
   * @param presetKey only for the local demo key, which must stay the same across restarts
   */
  async issue(
    branchId: number,
    name: string,
    scopes: readonly TicketScope[] = TICKET_SCOPES,
    presetKey?: string,
  ): Promise<IssuedKey> {
    const branch = await this.venues.findBranch(branchId);
    if (branch === null) throw new NotFoundError(`Branch ${branchId} not found.`);
    const errors: FieldMessages = {};
    const trimmed = checkName(errors, 'name', name);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const { key, prefix, hash } = newApiKey(KEY_PREFIX, presetKey);
    const apiKey = await this.em.transactional(async (em) => {
      const keys = new ApiKeyRepository(em);
      await claimVenueRoom(em, branch.venueId, 'apiKeys', 'branchId', () =>
        keys.activeKeyCount(branch.venueId),
      );
      return keys.create({ branchId, name: trimmed, scopes: [...scopes], prefix, keyHash: hash });
    });
    return {
      id: apiKey.id,
      key,
      prefix: apiKey.prefix,
      branch_id: branchId,
      name: apiKey.name,
      scopes: apiKey.scopes,
    };
  }

  /** Revokes a key; with the hash kept of it, by which its revocation is announced (`keyRevoked`). */
  async revoke(id: number): Promise<{ id: number; revoked_at: string; keyHash: Buffer }> {
    const apiKey = await this.keys.find(id);
    if (apiKey === null) throw new NotFoundError(`API key ${id} not found.`);
    await this.keys.revoke(apiKey);
    return { id, revoked_at: apiKey.revokedAt!.toISOString(), keyHash: apiKey.keyHash };
  }

  /** The principal of a live key, or null for an unknown or revoked one. */
  authenticate(key: string): Promise<Principal | null> {
    return this.authenticateHash(hashApiKey(key));
  }

  async authenticateHash(keyHash: Buffer): Promise<Principal | null> {
    const key = await this.keys.findLiveByHash(keyHash);
    if (key === null) return null;
    return {
      keyId: key.id,
      branchId: key.branchId,
      venueId: key.venueId,
      scopes: key.scopes,
      board: key.board,
    };
  }

  /** Records use without a write per request: at most once a minute per key and process. */
  touch(keyId: number): Promise<void> {
    return this.keys.touch(keyId);
  }
}
