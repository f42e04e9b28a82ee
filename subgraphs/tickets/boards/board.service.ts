import { randomInt } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { hashSecret, newApiKey, newSecret } from '../../../common/api-keys';
import { NotFoundError, ValidationError, type FieldMessages } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import type { TextLanguage } from '../../../common/language';
import { say } from '../../../common/messages';
import { keyRevoked, type AccessChange } from '../../../contracts/tickets/access-change';
import { BOARD_KEY_PREFIX } from '../../../contracts/tickets/board-device';
import type {
  BoardDevice,
  BoardDeviceSettings,
  BoardRepository,
  Display,
  DisplaySettings,
  DisplayTicket,
} from './board.repository';
import { checkName, claimVenueRoom, type VenueRoles } from '../venues';

/** A display's token, the whole of its URL's secret. */
export const DISPLAY_TOKEN_TAG = 'dsp_';
/** A pairing code is typed on a tablet or opened from its link within this time, once. */
export const PAIRING_MINUTES = 15;
/** Letters and digits no one confuses on a screen (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;
/** How long a ready number stays on a display unless collected first. */
export const READY_MINUTES_DEFAULT = 10;
export const READY_MINUTES_MAX = 240;

/** The code as people read it (`ABCD-EFGH`); typed any way, it means the same. */
function newPairingCode(): string {
  const chars = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]!);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

function normalisedCode(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

export interface PairingIssued {
  device: BoardDevice;
  code: string;
  url: string;
  expiresAt: Date;
}

export interface DisplayIssued {
  display: Display;
  url: string;
}

/** A board device's settings as asked for; what is left out (undefined or null) stays. */
export interface BoardDeviceInput {
  name?: string | null;
  /** 1 to 3 capital Latin letters; the empty string clears it. */
  numberPrefix?: string | null;
  callsWhenOffline?: boolean | null;
}

/** A number prefix: 1 to 3 capital Latin letters (A to Z), never a digit, so it never reads as a number of the branch's sequence. */
const NUMBER_PREFIX = /^[A-Z]{1,3}$/;

/** The unique index that keeps a prefix to one device of a branch not revoked. */
const PREFIX_INDEX = 'api_keys_board_prefix_unique';

export interface DisplayInput {
  name?: string | null;
  language?: string | null;
  chime?: boolean | null;
  speech?: boolean | null;
  readyMinutes?: number | null;
}

/**
 * Board devices and displays of a branch, managed by its venue's owners and managers. A device is
 * a branch key of kind `board`, so everything a key may do on tickets it may do, and revoking it
 * goes through the same announcement that closes its live sockets. A venue holds at most
 * VENUE_CAPS.boardDevices devices in use and VENUE_CAPS.displays displays not revoked.
 */
export class BoardService {
  constructor(
    private readonly boards: BoardRepository,
    private readonly roles: VenueRoles,
    private readonly outside: {
      publicBaseUrl: string;
      announce: (change: AccessChange, revokedKeyHash?: Buffer) => Promise<void>;
      clientAddress: string | null;
    },
  ) {}

  async createBoardDevice(
    input: { branchId: string; name: string } & BoardDeviceInput,
  ): Promise<PairingIssued> {
    const branch = await this.roles.managedBranch(input.branchId);
    const settings = deviceSettingsOf({ ...input, name: input.name }, null);
    const { name } = settings;
    const code = newPairingCode();
    const device = await this.boards
      .transaction(async (boards, em) => {
        // Pairing turns a waiting device into a paired one, so only creating claims room.
        await claimVenueRoom(em, branch.venueId, 'boardDevices', 'branchId', () =>
          boards.liveDeviceCount(branch.venueId),
        );
        await refuseTakenPrefix(boards, branch.id, settings.numberPrefix, null);
        return boards.createDevice({
          ...settings,
          branchId: branch.id,
          userId: this.roles.user(),
          // Unusable until paired: the hash of a secret no one is ever shown.
          placeholderHash: hashSecret(newSecret('unpaired_')),
          codeHash: hashSecret(normalisedCode(code)),
          codeMinutes: PAIRING_MINUTES,
        });
      })
      .catch(prefixRaced(settings.numberPrefix));
    await this.roles.audit(branch.venueId, 'board_device.created', `board_device:${device.id}`, {
      name,
      branch_id: branch.id,
      number_prefix: settings.numberPrefix,
      calls_when_offline: settings.callsWhenOffline,
    });
    return {
      device,
      code,
      // In the fragment, so no server on the way logs the code.
      url: `${this.outside.publicBaseUrl}/board/pair#code=${normalisedCode(code)}`,
      expiresAt: new Date(Date.now() + PAIRING_MINUTES * 60_000),
    };
  }

  /** A tablet redeems its code for the device's key; the code works once, within its time. */
  async pairBoardDevice(code: string): Promise<{ key: string; device: BoardDevice }> {
    const normal = normalisedCode(code);
    const key = newApiKey(BOARD_KEY_PREFIX);
    const paired = normal.length === CODE_LENGTH ? await this.boards.pair(hashSecret(normal), key) : null;
    if (paired === null) throw new ValidationError({ code: [say('board.pairing_invalid')] });
    const device = (await this.boards.device(paired))!;
    await this.roles.auditAs(
      device.venueId,
      { type: 'key', id: device.id },
      'board_device.paired',
      `board_device:${device.id}`,
      { prefix: key.prefix },
      this.outside.clientAddress,
    );
    return { key: key.key, device };
  }

  async boardDevicesOf(venueId: number): Promise<BoardDevice[]> {
    await this.roles.require(venueId, 'manage');
    return this.boards.devicesOf(venueId);
  }

  /** Changes a device's name, number prefix or offline calling; audit-logged as `board_device.updated`. */
  async updateBoardDevice(input: { id: string } & BoardDeviceInput): Promise<BoardDevice> {
    const device = await this.managedDevice(input.id);
    const settings = deviceSettingsOf(input, device);
    await this.boards
      .transaction(async (boards) => {
        await refuseTakenPrefix(boards, device.branchId, settings.numberPrefix, device.id);
        await boards.updateDevice(device.id, settings);
      })
      .catch(prefixRaced(settings.numberPrefix));
    await this.roles.audit(device.venueId, 'board_device.updated', `board_device:${device.id}`, {
      name: settings.name,
      number_prefix: settings.numberPrefix,
      calls_when_offline: settings.callsWhenOffline,
    });
    return (await this.boards.device(device.id))!;
  }

  /** The calling board device itself, as it reads its own settings; null for any other caller. */
  async currentBoardDevice(deviceId: number | null): Promise<BoardDevice | null> {
    return deviceId === null ? null : this.boards.device(deviceId);
  }

  async revokeBoardDevice(id: string): Promise<BoardDevice> {
    const device = await this.managedDevice(id);
    const keyHash = await this.boards.revokeDevice(device.id);
    await this.outside.announce(keyRevoked(device.id, device.venueId, keyHash), keyHash);
    await this.roles.audit(device.venueId, 'board_device.revoked', `board_device:${device.id}`);
    return (await this.boards.device(device.id))!;
  }

  async createDisplay(input: { branchId: string } & DisplayInput): Promise<DisplayIssued> {
    const branch = await this.roles.managedBranch(input.branchId);
    const settings = this.settingsOf(input, null);
    const token = newSecret(DISPLAY_TOKEN_TAG);
    const display = await this.boards.transaction(async (boards, em) => {
      await claimVenueRoom(em, branch.venueId, 'displays', 'branchId', () =>
        boards.liveDisplayCount(branch.venueId),
      );
      return boards.createDisplay({
        ...settings,
        branchId: branch.id,
        userId: this.roles.user(),
        tokenHash: hashSecret(token),
      });
    });
    await this.roles.audit(branch.venueId, 'display.created', `display:${display.id}`, {
      name: display.name,
      branch_id: branch.id,
      language: display.language,
    });
    return { display, url: `${this.outside.publicBaseUrl}/display/${token}` };
  }

  async updateDisplay(input: { displayId: string } & DisplayInput): Promise<Display> {
    const display = await this.managedDisplay(input.displayId);
    const settings = this.settingsOf(input, display);
    await this.boards.updateDisplay(display.id, settings);
    // The open screen reconnects and reads its new settings.
    await this.outside.announce({ displayId: display.id });
    await this.roles.audit(display.venueId, 'display.updated', `display:${display.id}`, { ...settings });
    return (await this.boards.display(display.id))!;
  }

  async revokeDisplay(id: string): Promise<Display> {
    const display = await this.managedDisplay(id);
    await this.boards.revokeDisplay(display.id);
    await this.outside.announce({ displayId: display.id });
    await this.roles.audit(display.venueId, 'display.revoked', `display:${display.id}`);
    return (await this.boards.display(display.id))!;
  }

  async displaysOf(venueId: number): Promise<Display[]> {
    await this.roles.require(venueId, 'manage');
    return this.boards.displaysOf(venueId);
  }

  /** The live display of a token, with what it shows now: its URL is its whole credential. */
  async displayByToken(
    token: string,
  ): Promise<{ display: Display; venueName: string; tickets: DisplayTicket[] }> {
    const display =
      token.startsWith(DISPLAY_TOKEN_TAG) && token.length < 100
        ? await this.boards.liveDisplayByToken(hashSecret(token))
        : null;
    if (display === null) throw new NotFoundError(say('board.display_not_found'));
    return {
      display,
      venueName: await this.boards.venueName(display.venueId),
      tickets: await this.boards.displayTickets(display.branchId, display.readyMinutes),
    };
  }

  private async managedDevice(id: string): Promise<BoardDevice> {
    const deviceId = parseRecordId(id);
    const device = deviceId === null ? null : await this.boards.device(deviceId);
    if (device === null) throw new NotFoundError(say('board.device_not_found'));
    await this.roles.requireOr(device.venueId, 'manage', say('board.device_not_found'));
    return device;
  }

  private async managedDisplay(id: string): Promise<Display> {
    const displayId = parseRecordId(id);
    const display = displayId === null ? null : await this.boards.display(displayId);
    if (display === null) throw new NotFoundError(say('board.display_not_found'));
    await this.roles.requireOr(display.venueId, 'manage', say('board.display_not_found'));
    return display;
  }

  /** The settings asked for, over the display's own (or the defaults for a new one). */
  private settingsOf(input: DisplayInput, current: DisplaySettings | null): DisplaySettings {
    const errors: FieldMessages = {};
    const name =
      input.name === undefined || input.name === null
        ? (current?.name ?? checkName(errors, 'name', ''))
        : checkName(errors, 'name', input.name);
    const language = input.language ?? current?.language ?? 'ar';
    if (language !== 'ar' && language !== 'en') {
      errors.language = [say('field.selected_invalid_choose', { field: 'language', choices: 'ar, en' })];
    }
    const readyMinutes = input.readyMinutes ?? current?.readyMinutes ?? READY_MINUTES_DEFAULT;
    if (!Number.isInteger(readyMinutes) || readyMinutes < 1 || readyMinutes > READY_MINUTES_MAX) {
      errors.readyMinutes = [say('field.between', { field: 'readyMinutes', min: 1, max: READY_MINUTES_MAX })];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return {
      name,
      language: language as TextLanguage,
      chime: input.chime ?? current?.chime ?? true,
      speech: input.speech ?? current?.speech ?? true,
      readyMinutes,
    };
  }
}

/** The device's settings asked for, over its own (or the defaults for a new one). */
function deviceSettingsOf(input: BoardDeviceInput, current: BoardDeviceSettings | null): BoardDeviceSettings {
  const errors: FieldMessages = {};
  const name =
    input.name === undefined || input.name === null
      ? (current?.name ?? checkName(errors, 'name', ''))
      : checkName(errors, 'name', input.name);
  let numberPrefix = current?.numberPrefix ?? null;
  if (input.numberPrefix === '') numberPrefix = null;
  else if (input.numberPrefix !== undefined && input.numberPrefix !== null) {
    if (NUMBER_PREFIX.test(input.numberPrefix)) numberPrefix = input.numberPrefix;
    else errors.numberPrefix = [say('board.number_prefix_format')];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    name,
    numberPrefix,
    callsWhenOffline: input.callsWhenOffline ?? current?.callsWhenOffline ?? false,
  };
}

/** Refuses a prefix another device of the branch not revoked has, on `numberPrefix`. */
async function refuseTakenPrefix(
  boards: BoardRepository,
  branchId: number,
  prefix: string | null,
  exceptId: number | null,
): Promise<void> {
  if (prefix === null) return;
  await boards.lockBranch(branchId);
  if (await boards.numberPrefixTaken(branchId, prefix, exceptId)) {
    throw new ValidationError({ numberPrefix: [say('board.number_prefix_taken', { prefix })] });
  }
}

/** A write the unique index refused (a change that raced past the check): the same refusal. */
function prefixRaced(prefix: string | null): (error: unknown) => never {
  return (error) => {
    if (error instanceof UniqueConstraintViolationException && error.message.includes(PREFIX_INDEX)) {
      throw new ValidationError({
        numberPrefix: [say('board.number_prefix_taken', { prefix: prefix ?? '' })],
      });
    }
    throw error;
  };
}
