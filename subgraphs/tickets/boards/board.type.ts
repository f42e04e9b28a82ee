import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import { DISPLAY_TICKETS_MAX, type BoardDevice, type Display, type DisplayTicket } from './board.repository';
import { TicketStatusValue } from '../tickets';
import { UserReference, BranchType } from '../venues';

/** What a number prefix may be, as both inputs say it. */
const NUMBER_PREFIX_RULE =
  'The prefix of the numbers the board offers once its lease has run out offline: 1 to 3 capital Latin letters (A to Z), unique among the branch’s devices not revoked.';

@ObjectType('BoardDevice', {
  description: 'A tablet paired to run a branch’s staff board: ticket work at that branch, nothing else.',
})
export class BoardDeviceType {
  @Field(() => ID, { description: 'The device’s id, for revokeBoardDevice.' })
  id!: string;

  @Field(() => String, { description: 'The name it was given, such as “Counter tablet”.' })
  name!: string;

  @Field(() => BranchType, { description: 'The branch whose tickets it works.' })
  branch!: BranchType;

  @Field(() => String, {
    nullable: true,
    description: 'The first characters of its credential, to tell devices apart; null until paired.',
  })
  prefix!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The prefix (1 to 3 capital Latin letters, unique among the branch’s devices) of the numbers the board offers once its lease of numbers has run out offline, such as A1, A2; null: none, and the board then offers none.',
  })
  numberPrefix!: string | null;

  @Field(() => Boolean, {
    description:
      'Whether the board itself chimes and speaks a ready number while it cannot reach the platform (the room’s displays cannot learn of it then). Default false.',
  })
  callsWhenOffline!: boolean;

  @Field(() => UserReference, { nullable: true, description: 'Who created it.' })
  createdBy!: UserReference | null;

  @Field(() => Date, {
    nullable: true,
    description: 'When a tablet redeemed its pairing code; null until then.',
  })
  pairedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Its last request, to the minute; null if never used.' })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works.' })
  revokedAt!: Date | null;

  @Field(() => Date, { description: 'When it was created.' })
  createdAt!: Date;
}

export function toBoardDeviceType(device: BoardDevice): BoardDeviceType {
  return {
    id: String(device.id),
    name: device.name,
    branch: { id: String(device.branchId), name: device.branchName, venueId: device.venueId },
    prefix: device.prefix,
    numberPrefix: device.numberPrefix,
    callsWhenOffline: device.callsWhenOffline,
    createdBy: device.createdByUserId === null ? null : { id: String(device.createdByUserId) },
    pairedAt: device.pairedAt,
    lastUsedAt: device.lastUsedAt,
    revokedAt: device.revokedAt,
    createdAt: device.createdAt,
  };
}

@ObjectType('BoardDevicePairing', {
  description: 'A new board device and how a tablet pairs with it: type the code or open the URL, once.',
})
export class BoardDevicePairingType {
  @Field(() => BoardDeviceType, { description: 'The device, unpaired until the code is used.' })
  device!: BoardDeviceType;

  @Field(() => String, { description: 'The pairing code, such as ABCD-EFGH: 8 letters and digits.' })
  code!: string;

  @Field(() => String, {
    description: 'The board’s pairing page with the code in it, to open on the tablet.',
  })
  url!: string;

  @Field(() => Date, { description: 'When the code stops working: 15 minutes after it was made.' })
  expiresAt!: Date;
}

@ObjectType('PairedBoardDevice', { description: 'What a tablet gets for its pairing code.' })
export class PairedBoardDeviceType {
  @Field(() => String, {
    description:
      'The device’s credential (`bd_…`), sent as Authorization: Bearer on every ticket operation and in connection_init. Shown this once.',
  })
  secret!: string;

  @Field(() => BoardDeviceType, { description: 'The device, now paired.' })
  device!: BoardDeviceType;
}

@InputType('CreateBoardDeviceInput', { description: 'A board device to pair with a tablet.' })
export class CreateBoardDeviceInput {
  @Field(() => ID, { description: 'The branch whose tickets it will work.' })
  branchId!: string;

  @Field(() => String, { description: 'A name to tell it apart, 1 to 120 characters.' })
  name!: string;

  @Field(() => String, {
    nullable: true,
    description: `${NUMBER_PREFIX_RULE} Left out: none.`,
  })
  numberPrefix?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the board calls a ready number itself while offline; default false.',
  })
  callsWhenOffline?: boolean | null;
}

@InputType('UpdateBoardDeviceInput', {
  description: 'New settings for a board device; what is left out stays.',
})
export class UpdateBoardDeviceInput {
  @Field(() => ID, { description: 'The device.' })
  id!: string;

  @Field(() => String, { nullable: true, description: 'A new name, 1 to 120 characters.' })
  name?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `${NUMBER_PREFIX_RULE} The empty string clears it.`,
  })
  numberPrefix?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the board calls a ready number itself while offline.',
  })
  callsWhenOffline?: boolean | null;
}

@ObjectType('Display', {
  description: 'A screen in the room showing a branch’s preparing and ready numbers.',
})
export class DisplayType {
  @Field(() => ID, { description: 'The display’s id.' })
  id!: string;

  @Field(() => String, { description: 'The name it was given, such as “Hall TV”.' })
  name!: string;

  @Field(() => BranchType, { description: 'The branch whose numbers it shows.' })
  branch!: BranchType;

  @Field(() => String, { description: 'ar or en: the language of its words and spoken calls.' })
  language!: string;

  @Field(() => Boolean, { description: 'Whether it chimes on each ready and ring.' })
  chime!: boolean;

  @Field(() => Boolean, { description: 'Whether it speaks the number on each ready and ring.' })
  speech!: boolean;

  @Field(() => Int, { description: 'Minutes a ready number stays on screen unless collected first.' })
  readyMinutes!: number;

  @Field(() => UserReference, { nullable: true, description: 'Who created it.' })
  createdBy!: UserReference | null;

  @Field(() => Date, { nullable: true, description: 'When it last loaded, to the minute.' })
  lastSeenAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works.' })
  revokedAt!: Date | null;

  @Field(() => Date, { description: 'When it was created.' })
  createdAt!: Date;
}

export function toDisplayType(display: Display): DisplayType {
  return {
    id: String(display.id),
    name: display.name,
    branch: { id: String(display.branchId), name: display.branchName, venueId: display.venueId },
    language: display.language,
    chime: display.chime,
    speech: display.speech,
    readyMinutes: display.readyMinutes,
    createdBy: display.createdByUserId === null ? null : { id: String(display.createdByUserId) },
    lastSeenAt: display.lastSeenAt,
    revokedAt: display.revokedAt,
    createdAt: display.createdAt,
  };
}

@ObjectType('IssuedDisplay', { description: 'A new display and the URL to open on its screen.' })
export class IssuedDisplayType {
  @Field(() => String, {
    description: 'The display page (`/display/dsp_…`); the URL is its credential and is shown this once.',
  })
  url!: string;

  @Field(() => DisplayType, { description: 'The display.' })
  display!: DisplayType;
}

@InputType('CreateDisplayInput', { description: 'A display for a branch.' })
export class CreateDisplayInput {
  @Field(() => ID, { description: 'The branch whose numbers it shows.' })
  branchId!: string;

  @Field(() => String, { description: 'A name to tell it apart, 1 to 120 characters.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'ar (default) or en.' })
  language?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Chime on each ready and ring; default true.' })
  chime?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Speak the number on each ready and ring; default true.',
  })
  speech?: boolean | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Minutes a ready number stays unless collected first: 1 to 240, default 10.',
  })
  readyMinutes?: number | null;
}

@InputType('UpdateDisplayInput', { description: 'New settings for a display; what is left out stays.' })
export class UpdateDisplayInput {
  @Field(() => ID, { description: 'The display.' })
  displayId!: string;

  @Field(() => String, { nullable: true, description: 'A new name.' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'ar or en.' })
  language?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Chime on each ready and ring.' })
  chime?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Speak the number on each ready and ring.' })
  speech?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Minutes a ready number stays: 1 to 240.' })
  readyMinutes?: number | null;
}

@ObjectType('DisplayTicket', {
  description:
    'A ticket as a room’s screen shows it: its number and where it is, nothing about the customer.',
})
export class DisplayTicketType {
  @Field(() => ID, { description: 'The ticket’s id.' })
  id!: string;

  @Field(() => String, { description: 'The number called out.' })
  number!: string;

  @Field(() => TicketStatusValue, {
    description: 'WAITING (preparing) or READY; COLLECTED and CANCELLED leave the screen.',
  })
  status!: TicketStatusValue;

  @Field(() => Date, { nullable: true, description: 'When it became ready.' })
  readyAt!: Date | null;

  @Field(() => Int, { description: 'How many times it was rung; each ring calls it again.' })
  ringCount!: number;

  @Field(() => Date, { description: 'When it last changed.' })
  updatedAt!: Date;
}

export function toDisplayTicketType(ticket: DisplayTicket): DisplayTicketType {
  return {
    id: String(ticket.id),
    number: ticket.number,
    status: ticket.status === 'ready' ? TicketStatusValue.READY : TicketStatusValue.WAITING,
    readyAt: ticket.readyAt,
    ringCount: ticket.ringCount,
    updatedAt: ticket.updatedAt,
  };
}

@ObjectType('DisplayBoard', { description: 'What a display shows, read by its token.' })
export class DisplayBoardType {
  @Field(() => ID, { description: 'The display’s id.' })
  id!: string;

  @Field(() => String, { description: 'The display’s name.' })
  name!: string;

  @Field(() => String, { description: 'The venue’s name.' })
  venueName!: string;

  @Field(() => ID, { description: 'The branch whose numbers it shows.' })
  branchId!: string;

  @Field(() => String, { description: 'The branch’s name.' })
  branchName!: string;

  @Field(() => String, { description: 'ar or en.' })
  language!: string;

  @Field(() => Boolean, { description: 'Whether to chime on each ready and ring.' })
  chime!: boolean;

  @Field(() => Boolean, { description: 'Whether to speak the number on each ready and ring.' })
  speech!: boolean;

  @Field(() => Int, { description: 'Minutes a ready number stays unless collected first.' })
  readyMinutes!: number;

  @AssumedSize(DISPLAY_TICKETS_MAX)
  @Field(() => [DisplayTicketType], {
    description: `Waiting tickets, and ready ones of the last readyMinutes, oldest first: at most ${DISPLAY_TICKETS_MAX}, ready ones kept first.`,
  })
  tickets!: DisplayTicketType[];
}
