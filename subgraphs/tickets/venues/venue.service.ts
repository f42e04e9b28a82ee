import type { EntityManager } from '../../../common/database';
import { NotFoundError, ValidationError, type FieldMessages } from '../../../common/errors';
import type { Branch } from './branch.entity';
import { claimVenueRoom } from './venue-caps';
import { checkName } from './venue.rules';
import type { Venue, VenueLanguage } from './venue.entity';
import { VenueRepository } from './venue.repository';
import { say } from '../../../common/messages';

export interface NewVenue {
  name: string;
  language?: VenueLanguage;
  timezone?: string;
  smsEnabled?: boolean;
}

function isTimezone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** Venues and their branches, as operators set them up. */
export class VenueService {
  private readonly venues: VenueRepository;

  constructor(private readonly em: EntityManager) {
    this.venues = new VenueRepository(em);
  }

  async create(input: NewVenue): Promise<Venue> {
    const errors: FieldMessages = {};
    const name = checkName(errors, 'name', input.name);
    if (input.timezone !== undefined && !isTimezone(input.timezone)) {
      errors.timezone = [say('field.time_zone', { field: 'timezone' })];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return this.venues.create({
      name,
      language: input.language ?? 'ar',
      timezone: input.timezone ?? 'Asia/Baghdad',
      smsEnabled: input.smsEnabled ?? false,
    });
  }

  async get(id: number): Promise<Venue> {
    const venue = await this.venues.find(id);
    if (venue === null) throw new NotFoundError(`Venue ${id} not found.`);
    return venue;
  }

  async setSms(id: number, enabled: boolean): Promise<Venue> {
    const venue = await this.get(id);
    venue.smsEnabled = enabled;
    await this.venues.save(venue);
    return venue;
  }

  async setWhatsApp(id: number, enabled: boolean): Promise<Venue> {
    const venue = await this.get(id);
    venue.whatsappEnabled = enabled;
    await this.venues.save(venue);
    return venue;
  }

  async setWaitAlert(id: number, minutes: number): Promise<Venue> {
    const venue = await this.get(id);
    venue.waitAlertMinutes = minutes;
    await this.venues.save(venue);
    return venue;
  }

  /** A branch more, up to VENUE_CAPS.branches: the one past it is refused on `venueId`. */
  async createBranch(venueId: number, name: string): Promise<Branch> {
    await this.get(venueId);
    const errors: FieldMessages = {};
    const trimmed = checkName(errors, 'name', name);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return this.em.transactional(async (em) => {
      const venues = new VenueRepository(em);
      await claimVenueRoom(em, venueId, 'branches', 'venueId', () => venues.branchCount(venueId));
      return venues.createBranch(venueId, trimmed);
    });
  }

  async getBranch(id: number): Promise<Branch> {
    const branch = await this.venues.findBranch(id);
    if (branch === null) throw new NotFoundError(`Branch ${id} not found.`);
    return branch;
  }
}
