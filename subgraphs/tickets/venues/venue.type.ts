import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { WAIT_ALERT_MINUTES } from './venue.rules';
import type { Branch } from './branch.entity';
import type { Venue } from './venue.entity';

@Directive('@key(fields: "id")')
@ObjectType('Venue', { description: 'A business using ticket calling.' })
export class VenueType {
  @Field(() => ID, { description: 'The venue’s id.' })
  id!: string;

  @Field(() => String, { description: 'The venue’s name, 1 to 120 characters; the customer page shows it.' })
  name!: string;

  @Field(() => String, { description: 'ar or en: the language of the customer page and texts.' })
  language!: string;

  @Field(() => String, { description: 'IANA time zone; ticket numbers start again at 1 each day here.' })
  timezone!: string;

  @Field(() => Boolean, { description: 'Whether the venue sends the one SMS on ready.' })
  smsEnabled!: boolean;

  @Field(() => Int, {
    description: `Minutes a ticket may wait before the staff board highlights the wait, ${WAIT_ALERT_MINUTES.min} to ${WAIT_ALERT_MINUTES.max}; ${WAIT_ALERT_MINUTES.default} unless set.`,
  })
  waitAlertMinutes!: number;

  /** The venue's switch as stored; the graph's `whatsappEnabled` also needs the platform's configuration. */
  whatsappStored!: boolean;
}

@ObjectType('Branch', { description: 'A counter of a venue, with its own ticket numbers and API keys.' })
export class BranchType {
  @Field(() => ID, {
    description: 'The branch’s id; a signed-in member sends it in X-Branch-Id to work its tickets.',
  })
  id!: string;

  @Field(() => String, { description: 'The branch’s name, 1 to 120 characters.' })
  name!: string;

  venueId!: number;
}

export function toVenueType(venue: Venue): VenueType {
  return {
    id: String(venue.id),
    name: venue.name,
    language: venue.language,
    timezone: venue.timezone,
    smsEnabled: venue.smsEnabled,
    waitAlertMinutes: venue.waitAlertMinutes,
    whatsappStored: venue.whatsappEnabled,
  };
}

export function toBranchType(branch: Branch): BranchType {
  return { id: String(branch.id), name: branch.name, venueId: branch.venueId };
}
