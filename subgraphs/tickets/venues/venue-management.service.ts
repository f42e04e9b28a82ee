import type { EntityManager } from '../../../common/database';
import {
  NotFoundError,
  PaymentRequiredError,
  UnavailableError,
  ValidationError,
  type FieldMessages,
} from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import { say } from '../../../common/messages';
import type { SubgraphClient } from '../../../common/subgraph-call';
import { AuditLog, type AuditEvent } from '../../../common/audit-log';
import type { Branch } from './branch.entity';
import { claimPersonVenue } from './venue-caps';
import { MembershipRepository, type VenueRole } from './membership.repository';
import { VENUE_AUDIT } from './venue-audit';
import { checkName, WAIT_ALERT_MINUTES } from './venue.rules';
import type { VenueRoles } from './venue-roles';
import type { Venue } from './venue.entity';
import { VenueService } from './venue.service';

/** A new venue starts on the cheapest ticket plan; its owner changes it. */
export const FIRST_PLAN = 'starter';

const START_SUBSCRIPTION = `mutation StartSubscription($id: ID!, $plan: String!) {
  startSubscription(subjectType: "venue", subjectId: $id, plan: $plan)
}`;

/** What venue management reaches outside its own tables. */
export interface VenueManagementPorts {
  billing: SubgraphClient;
  requestId: string;
  whatsapp: WhatsAppSwitchPorts;
}

/** What turning WhatsApp on depends on: the platform's configuration and the venue's plan. */
export interface WhatsAppSwitchPorts {
  /** The platform has WhatsApp configured (config.whatsapp); off, no venue has it. */
  configured: boolean;
  /** The venue's plan includes WhatsApp (access/'s VenuePlanClient, above this folder). */
  planAllows(venueId: number): Promise<boolean>;
}

/**
 * Venues as their people manage them: the venue, its branches, its SMS switch and its audit log.
 * The venue's people are VenueMembers'; its keys, boards and webhooks belong to access/, boards/
 * and events/, which ask VenueRoles the same questions.
 */
export class VenueManagement {
  private readonly members: MembershipRepository;
  private readonly venues: VenueService;

  constructor(
    private readonly em: EntityManager,
    private readonly roles: VenueRoles,
    private readonly outside: VenueManagementPorts,
  ) {
    this.members = new MembershipRepository(em);
    this.venues = new VenueService(em);
  }

  /** The venue's audit log, newest first, by pages. Owners and managers. */
  async auditLog(venueId: number, first: number, before: number | null): Promise<AuditEvent[]> {
    await this.roles.require(venueId, 'manage');
    return new AuditLog(this.em, VENUE_AUDIT).page(venueId, first, before);
  }

  /** A plan change billing made for the owner, kept in the venue's log: the platform's own call. */
  async recordPlanChange(
    venueId: string,
    userId: string,
    plan: string,
    clientAddress: string | null,
  ): Promise<boolean> {
    const venue = parseRecordId(venueId);
    const user = parseRecordId(userId);
    if (venue === null || user === null) throw new NotFoundError(say('venue.not_found'));
    await this.roles.auditAs(
      venue,
      { type: 'user', id: user },
      'plan.changed',
      `venue:${venue}`,
      { plan },
      clientAddress,
    );
    return true;
  }

  /**
   * The venue with the caller as its owner, on the first plan. The venue and the membership are
   * one transaction; if billing cannot take the subscription, both are undone.
   */
  async createVenue(input: {
    name: string;
    language?: string | null;
    timezone?: string | null;
  }): Promise<Venue> {
    const userId = this.roles.user();
    const errors: FieldMessages = {};
    if (
      input.language !== undefined &&
      input.language !== null &&
      input.language !== 'ar' &&
      input.language !== 'en'
    ) {
      errors.language = [say('field.selected_invalid', { field: 'language' })];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const venue = await this.em.transactional(async (em) => {
      await claimPersonVenue(em, userId);
      const created = await new VenueService(em).create({
        name: input.name,
        ...(input.language ? { language: input.language as 'ar' | 'en' } : {}),
        ...(input.timezone ? { timezone: input.timezone } : {}),
      });
      await new MembershipRepository(em).add(created.id, userId, 'OWNER');
      await this.roles.audit(created.id, 'venue.created', `venue:${created.id}`, { name: created.name }, em);
      return created;
    });
    try {
      await this.outside.billing.call(
        'starting the venue’s plan',
        START_SUBSCRIPTION,
        { id: String(venue.id), plan: FIRST_PLAN },
        { requestId: this.outside.requestId },
      );
    } catch {
      await this.em.execute('delete from tickets.venues where id = ?', [venue.id]);
      throw new UnavailableError('Billing could not start the venue’s plan. Retry shortly.', 5);
    }
    return venue;
  }

  async myVenues(): Promise<{ venue: Venue; role: VenueRole }[]> {
    return this.members.venuesOfUser(this.roles.user());
  }

  async venue(id: string): Promise<Venue> {
    return this.venues.get(await this.roles.venueId(id));
  }

  async branches(venueId: number): Promise<{ id: number; name: string; venueId: number }[]> {
    await this.roles.require(venueId, 'read');
    return this.members.branchesOf(venueId);
  }

  async createBranch(input: { venueId: string; name: string }): Promise<Branch> {
    const venueId = await this.roles.managed(input.venueId);
    const branch = await this.venues.createBranch(venueId, input.name);
    await this.roles.audit(venueId, 'branch.created', `branch:${branch.id}`, { name: branch.name });
    return branch;
  }

  async renameBranch(input: {
    branchId: string;
    name: string;
  }): Promise<{ id: number; name: string; venueId: number }> {
    const branch = await this.roles.managedBranch(input.branchId);
    const errors: FieldMessages = {};
    const name = checkName(errors, 'name', input.name);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await this.members.renameBranch(branch.id, name);
    await this.roles.audit(branch.venueId, 'branch.renamed', `branch:${branch.id}`, { name });
    return { ...branch, name };
  }

  async setSms(input: { venueId: string; enabled: boolean }): Promise<Venue> {
    const venueId = await this.roles.managed(input.venueId);
    const venue = await this.venues.setSms(venueId, input.enabled);
    await this.roles.audit(venueId, 'sms.changed', `venue:${venueId}`, { enabled: input.enabled });
    return venue;
  }

  /** Whether the platform has WhatsApp at all: a venue's switch counts only then. */
  get whatsappConfigured(): boolean {
    return this.outside.whatsapp.configured;
  }

  /**
   * The venue's WhatsApp switch. Turning it on needs the platform's configuration (BAD_USER_INPUT
   * on `enabled`) and a plan with WhatsApp (PAYMENT_REQUIRED); off is always allowed. Audited.
   */
  async setWhatsApp(input: { venueId: string; enabled: boolean }): Promise<Venue> {
    const venueId = await this.roles.managed(input.venueId);
    if (input.enabled) {
      if (!this.outside.whatsapp.configured) {
        throw new ValidationError({ enabled: [say('whatsapp.platform_off')] });
      }
      if (!(await this.outside.whatsapp.planAllows(venueId))) {
        throw new PaymentRequiredError(say('whatsapp.plan'));
      }
    }
    const venue = await this.venues.setWhatsApp(venueId, input.enabled);
    await this.roles.audit(venueId, 'whatsapp.changed', `venue:${venueId}`, { enabled: input.enabled });
    return venue;
  }

  /** The minutes past which the board highlights a wait; the change and the value before it are audited. */
  async setWaitAlert(input: { venueId: string; minutes: number }): Promise<Venue> {
    const { min, max } = WAIT_ALERT_MINUTES;
    if (!Number.isInteger(input.minutes) || input.minutes < min || input.minutes > max) {
      throw new ValidationError({
        minutes: [say('field.between', { field: 'minutes', min, max })],
      });
    }
    const venueId = await this.roles.managed(input.venueId);
    const before = (await this.venues.get(venueId)).waitAlertMinutes;
    const venue = await this.venues.setWaitAlert(venueId, input.minutes);
    await this.roles.audit(venueId, 'wait_alert.changed', `venue:${venueId}`, {
      minutes: input.minutes,
      before,
    });
    return venue;
  }
}
