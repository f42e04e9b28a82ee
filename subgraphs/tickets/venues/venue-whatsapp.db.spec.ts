import 'reflect-metadata';
import { AuditLog } from '../../../common/audit-log';
import { ForbiddenError, PaymentRequiredError, ValidationError } from '../../../common/errors';
import type { SubgraphClient } from '../../../common/subgraph-call';
import { useSchemaDatabase } from '../../../test/support/database';
import { MembershipRepository } from './membership.repository';
import { VENUE_AUDIT } from './venue-audit';
import { VenueManagementResolver } from './venue-management.resolver';
import { VenueManagement, type WhatsAppSwitchPorts } from './venue-management.service';
import { VenueRoles } from './venue-roles';
import { VenueService } from './venue.service';
import { toVenueType } from './venue.type';

describe('a venue’s WhatsApp switch on real Postgres', () => {
  const db = useSchemaDatabase('tickets');
  let nextUser = 55_000;

  async function venueWith(
    role: 'OWNER' | 'MANAGER' | 'STAFF',
  ): Promise<{ venueId: number; userId: number }> {
    const userId = (nextUser += 1);
    const venue = await new VenueService(db.orm.em.fork()).create({ name: 'Kebab Erbil' });
    await new MembershipRepository(db.orm.em.fork()).add(venue.id, userId, role);
    return { venueId: venue.id, userId };
  }

  function management(userId: number, whatsapp: WhatsAppSwitchPorts): VenueManagement {
    const em = db.orm.em.fork();
    return new VenueManagement(em, new VenueRoles(em, userId, '127.0.0.1'), {
      billing: {} as SubgraphClient,
      requestId: 'spec',
      whatsapp,
    });
  }

  const on: WhatsAppSwitchPorts = { configured: true, planAllows: () => Promise.resolve(true) };

  const stored = async (venueId: number) =>
    (await new VenueService(db.orm.em.fork()).get(venueId)).whatsappEnabled;

  const logOf = (venueId: number) => new AuditLog(db.orm.em.fork(), VENUE_AUDIT).page(venueId, 10, null);

  it('is turned on and off by owners and managers, each change in the audit log with its actor', async () => {
    const { venueId, userId } = await venueWith('MANAGER');
    const venue = await management(userId, on).setWhatsApp({ venueId: String(venueId), enabled: true });
    expect(venue.whatsappEnabled).toBe(true);
    expect(await stored(venueId)).toBe(true);
    await management(userId, on).setWhatsApp({ venueId: String(venueId), enabled: false });
    expect(await stored(venueId)).toBe(false);
    const log = await logOf(venueId);
    expect(log.map((e) => [e.action, e.target, e.details, e.actor])).toEqual([
      ['whatsapp.changed', `venue:${venueId}`, { enabled: false }, { type: 'user', id: userId }],
      ['whatsapp.changed', `venue:${venueId}`, { enabled: true }, { type: 'user', id: userId }],
    ]);
  });

  it('is refused to staff', async () => {
    const { venueId, userId } = await venueWith('STAFF');
    await expect(
      management(userId, on).setWhatsApp({ venueId: String(venueId), enabled: true }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(await stored(venueId)).toBe(false);
  });

  it('is refused with the plan message on a plan without WhatsApp, writing nothing', async () => {
    const { venueId, userId } = await venueWith('OWNER');
    const asked: number[] = [];
    const starter: WhatsAppSwitchPorts = {
      configured: true,
      planAllows: (id) => {
        asked.push(id);
        return Promise.resolve(false);
      },
    };
    const refusal = await management(userId, starter)
      .setWhatsApp({ venueId: String(venueId), enabled: true })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PaymentRequiredError);
    expect((refusal as PaymentRequiredError).extensions.code).toBe('PAYMENT_REQUIRED');
    expect((refusal as Error).message).toBe(
      'Your plan does not include WhatsApp alerts. Upgrade to Growth or above.',
    );
    expect(asked).toEqual([venueId]);
    expect(await stored(venueId)).toBe(false);
    expect(await logOf(venueId)).toEqual([]);
    // Off is always allowed, whatever the plan.
    await management(userId, starter).setWhatsApp({ venueId: String(venueId), enabled: false });
  });

  it('is refused on enabled, naming WhatsApp, while the platform has no WhatsApp configuration', async () => {
    const { venueId, userId } = await venueWith('OWNER');
    const off: WhatsAppSwitchPorts = { configured: false, planAllows: () => Promise.resolve(true) };
    const refusal = await management(userId, off)
      .setWhatsApp({ venueId: String(venueId), enabled: true })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).extensions.code).toBe('BAD_USER_INPUT');
    expect((refusal as ValidationError).fieldErrors).toEqual({
      enabled: ['WhatsApp is not available on this platform yet; the venue cannot turn it on.'],
    });
    expect(await stored(venueId)).toBe(false);
  });

  it('answers whatsappEnabled only when the switch is on and the platform has WhatsApp', async () => {
    const { venueId, userId } = await venueWith('OWNER');
    const venue = toVenueType(
      await management(userId, on).setWhatsApp({ venueId: String(venueId), enabled: true }),
    );
    const resolverWith = (whatsapp: WhatsAppSwitchPorts) => {
      const em = db.orm.em.fork();
      return new VenueManagementResolver(management(userId, whatsapp), new VenueRoles(em, userId, null));
    };
    expect(resolverWith(on).whatsappEnabled(venue)).toBe(true);
    // The platform's configuration gone (WHATSAPP_* unset), the venue's switch no longer counts.
    expect(resolverWith({ ...on, configured: false }).whatsappEnabled(venue)).toBe(false);
    expect(resolverWith(on).whatsappEnabled({ ...venue, whatsappStored: false })).toBe(false);
  });
});
