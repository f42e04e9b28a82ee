import type { EntityManager } from '../../common/database';
import { NotFoundError, ValidationError, type FieldErrors } from '../../common/errors';
import { Branch } from './branch.entity';
import { checkName } from './ticket.rules';
import { Venue, type VenueLanguage } from './venue.entity';

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

export class VenueService {
  constructor(private readonly em: EntityManager) {}

  async create(input: NewVenue): Promise<Venue> {
    const errors: FieldErrors = {};
    const name = checkName(errors, 'name', input.name);
    if (input.timezone !== undefined && !isTimezone(input.timezone)) {
      errors.timezone = [`The timezone field must be an IANA time zone such as Asia/Baghdad.`];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const venue = this.em.create(Venue, {
      name,
      language: input.language ?? 'ar',
      timezone: input.timezone ?? 'Asia/Baghdad',
      smsEnabled: input.smsEnabled ?? false,
    });
    await this.em.flush();
    return venue;
  }

  async get(id: number): Promise<Venue> {
    const venue = await this.em.findOne(Venue, { id });
    if (venue === null) throw new NotFoundError(`Venue ${id} not found.`);
    return venue;
  }

  async setSms(id: number, enabled: boolean): Promise<Venue> {
    const venue = await this.get(id);
    venue.smsEnabled = enabled;
    await this.em.flush();
    return venue;
  }

  async createBranch(venueId: number, name: string): Promise<Branch> {
    await this.get(venueId);
    const errors: FieldErrors = {};
    const trimmed = checkName(errors, 'name', name);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const branch = this.em.create(Branch, { venueId, name: trimmed });
    await this.em.flush();
    return branch;
  }

  async getBranch(id: number): Promise<Branch> {
    const branch = await this.em.findOne(Branch, { id });
    if (branch === null) throw new NotFoundError(`Branch ${id} not found.`);
    return branch;
  }
}
