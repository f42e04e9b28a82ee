import type { EntityManager } from '../../../common/database';
import { NotFoundError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import { say } from '../../../common/messages';
import { keyRevoked, type AccessChange } from '../../../contracts/tickets/access-change';
import { MembershipRepository, type VenueRoles } from '../venues';
import type { TicketScope } from './api-key.entity';
import { ApiKeyRepository, type VenueApiKey } from './api-key.repository';
import { ApiKeyService, parseScopes, type IssuedKey } from './api-key.service';

/** A venue's API keys as its owners and managers handle them on the graph. */
export class VenueApiKeys {
  private readonly repository: ApiKeyRepository;
  private readonly members: MembershipRepository;
  private readonly keys: ApiKeyService;

  constructor(
    em: EntityManager,
    private readonly roles: VenueRoles,
    /** Tells every tickets process and the gateway to drop what they cached of a key. */
    private readonly announce: (change: AccessChange, revokedKeyHash?: Buffer) => Promise<void>,
  ) {
    this.repository = new ApiKeyRepository(em);
    this.members = new MembershipRepository(em);
    this.keys = new ApiKeyService(em);
  }

  /** The venue's keys, and its branches to show each key's. Owners and managers. */
  async apiKeysOf(
    venueId: number,
  ): Promise<{ keys: VenueApiKey[]; branches: { id: number; name: string; venueId: number }[] }> {
    await this.roles.require(venueId, 'manage');
    return {
      keys: await this.repository.apiKeysOf(venueId),
      branches: await this.members.branchesOf(venueId),
    };
  }

  async issueApiKey(input: {
    branchId: string;
    name: string;
    scopes?: string[] | null;
  }): Promise<{ issued: IssuedKey; venueId: number }> {
    const branch = await this.roles.managedBranch(input.branchId);
    const scopes: readonly TicketScope[] | undefined =
      input.scopes === undefined || input.scopes === null ? undefined : parseScopes(input.scopes.join(','));
    const issued = await this.keys.issue(branch.id, input.name, scopes);
    await this.repository.setKeyCreator(issued.id, this.roles.user());
    await this.roles.audit(branch.venueId, 'api_key.issued', `api_key:${issued.id}`, {
      name: issued.name,
      prefix: issued.prefix,
      branch_id: branch.id,
      scopes: issued.scopes.join(','),
    });
    return { issued, venueId: branch.venueId };
  }

  /** Revokes a key of a venue the caller manages; returns it and its venue, to read it back. */
  async revokeApiKey(id: string): Promise<{ keyId: number; venueId: number }> {
    const keyId = parseRecordId(id);
    const owner = keyId === null ? null : await this.repository.ownerOfKey(keyId);
    if (keyId === null || owner === null) throw new NotFoundError(say('venue.key_not_found'));
    const { venueId } = owner;
    await this.roles.requireOr(venueId, 'manage', say('venue.key_not_found'));
    // Devices and keys share a table, but a device is revoked, audited and listed as a device; only
    // those who manage the venue learn that the id is one.
    if (owner.board) throw new NotFoundError(say('venue.key_is_board_device'));
    const { keyHash } = await this.keys.revoke(keyId);
    await this.announce(keyRevoked(keyId, venueId, keyHash), keyHash);
    await this.roles.audit(venueId, 'api_key.revoked', `api_key:${keyId}`);
    return { keyId, venueId };
  }
}
