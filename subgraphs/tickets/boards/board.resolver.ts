import { Arg, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { AssumedSize } from '../../../common/cost.graphql';
import type { BoardService } from './board.service';
import {
  BoardDevicePairingType,
  BoardDeviceType,
  CreateBoardDeviceInput,
  CreateDisplayInput,
  DisplayBoardType,
  DisplayType,
  IssuedDisplayType,
  PairedBoardDeviceType,
  toBoardDeviceType,
  toDisplayTicketType,
  toDisplayType,
  UpdateBoardDeviceInput,
  UpdateDisplayInput,
} from './board.type';
import { VENUE_CAPS, VenueType } from '../venues';
import type { TicketAccess } from '../access';

/** The staff board's devices and the room's displays, as the panel and the pages use them. */
@Resolver(() => VenueType)
export class BoardResolver {
  constructor(
    private readonly boards: BoardService,
    private readonly access: Pick<TicketAccess, 'boardDeviceId'>,
  ) {}

  @Query(() => BoardDeviceType, {
    nullable: true,
    description:
      'The calling board device, as its board reads its own settings (numberPrefix, callsWhenOffline); null for any other caller. A revoked device’s key is UNAUTHENTICATED.',
  })
  async currentBoardDevice(): Promise<BoardDeviceType | null> {
    const device = await this.boards.currentBoardDevice(await this.access.boardDeviceId());
    return device === null ? null : toBoardDeviceType(device);
  }

  @AssumedSize(VENUE_CAPS.boardDevices)
  @FieldResolver(() => [BoardDeviceType], {
    description: `The venue’s board devices in use (at most ${VENUE_CAPS.boardDevices}), oldest first: paired, or waiting for their tablet with a pairing code still valid. Revoked ones, and ones whose code ran out unpaired, are in the audit log. Owners and managers.`,
  })
  async boardDevices(@Root() venue: VenueType): Promise<BoardDeviceType[]> {
    return (await this.boards.boardDevicesOf(Number(venue.id))).map(toBoardDeviceType);
  }

  @AssumedSize(VENUE_CAPS.displays)
  @FieldResolver(() => [DisplayType], {
    description: `The venue’s displays not revoked (at most ${VENUE_CAPS.displays}), oldest first; revoked ones are in the audit log. Owners and managers.`,
  })
  async displays(@Root() venue: VenueType): Promise<DisplayType[]> {
    return (await this.boards.displaysOf(Number(venue.id))).map(toDisplayType);
  }

  @Mutation(() => BoardDevicePairingType, {
    description: `Creates a board device for a branch and a pairing code for the tablet (single use, 15 minutes). Owners and managers; past ${VENUE_CAPS.boardDevices} devices in use at the venue, BAD_USER_INPUT on branchId.`,
  })
  async createBoardDevice(
    @Arg('input', () => CreateBoardDeviceInput, {
      description: 'The branch, the device’s name and its offline settings.',
    })
    input: CreateBoardDeviceInput,
  ): Promise<BoardDevicePairingType> {
    const { device, code, url, expiresAt } = await this.boards.createBoardDevice(input);
    return { device: toBoardDeviceType(device), code, url, expiresAt };
  }

  @Mutation(() => PairedBoardDeviceType, {
    description:
      'Pairs a tablet: the board page sends the code and keeps the credential it gets. Needs no sign-in; a wrong, used or late code is BAD_USER_INPUT.',
  })
  async pairBoardDevice(
    @Arg('code', () => String, { description: 'The pairing code, with or without its dash.' }) code: string,
  ): Promise<PairedBoardDeviceType> {
    const { key, device } = await this.boards.pairBoardDevice(code);
    return { secret: key, device: toBoardDeviceType(device) };
  }

  @Mutation(() => BoardDeviceType, {
    description:
      'Changes a board device’s name, number prefix or offline calling; the board reads them with currentBoardDevice. Owners and managers; audit-logged as board_device.updated.',
  })
  async updateBoardDevice(
    @Arg('input', () => UpdateBoardDeviceInput, { description: 'The device and what to change.' })
    input: UpdateBoardDeviceInput,
  ): Promise<BoardDeviceType> {
    return toBoardDeviceType(await this.boards.updateBoardDevice(input));
  }

  @Mutation(() => BoardDeviceType, {
    description:
      'Revokes a board device at once: its next request is 401 and its live board closes. Owners and managers.',
  })
  async revokeBoardDevice(
    @Arg('id', () => ID, { description: 'The device’s id.' }) id: string,
  ): Promise<BoardDeviceType> {
    return toBoardDeviceType(await this.boards.revokeBoardDevice(id));
  }

  @Mutation(() => IssuedDisplayType, {
    description: `Creates a display for a branch; its URL is shown this once. Owners and managers; past ${VENUE_CAPS.displays} displays at the venue, BAD_USER_INPUT on branchId.`,
  })
  async createDisplay(
    @Arg('input', () => CreateDisplayInput, { description: 'The branch, a name and the display’s settings.' })
    input: CreateDisplayInput,
  ): Promise<IssuedDisplayType> {
    const { display, url } = await this.boards.createDisplay(input);
    return { url, display: toDisplayType(display) };
  }

  @Mutation(() => DisplayType, {
    description: 'Changes a display’s settings; an open screen picks them up at once. Owners and managers.',
  })
  async updateDisplay(
    @Arg('input', () => UpdateDisplayInput, { description: 'The display and what to change.' })
    input: UpdateDisplayInput,
  ): Promise<DisplayType> {
    return toDisplayType(await this.boards.updateDisplay(input));
  }

  @Mutation(() => DisplayType, {
    description: 'Revokes a display at once: its page stops showing numbers. Owners and managers.',
  })
  async revokeDisplay(
    @Arg('id', () => ID, { description: 'The display’s id.' }) id: string,
  ): Promise<DisplayType> {
    return toDisplayType(await this.boards.revokeDisplay(id));
  }

  @Query(() => DisplayBoardType, {
    description:
      'What a display shows now, by the token of its URL; needs no key. NOT_FOUND once the display is revoked.',
  })
  async displayBoard(
    @Arg('token', () => String, { description: 'The display’s token (`dsp_…`), from its URL.' })
    token: string,
  ): Promise<DisplayBoardType> {
    const { display, venueName, tickets } = await this.boards.displayByToken(token);
    return {
      id: String(display.id),
      name: display.name,
      venueName,
      branchId: String(display.branchId),
      branchName: display.branchName,
      language: display.language,
      chime: display.chime,
      speech: display.speech,
      readyMinutes: display.readyMinutes,
      tickets: tickets.map(toDisplayTicketType),
    };
  }
}
