import type { Config } from '../../common/config';
import type { EntityManager } from '../../common/database';
import { parseRecordId } from '../../common/input.rules';
import { languageOf } from '../../common/language';
import type { Logger } from '../../common/logger';
import { createMailer, type Mailer } from '../../common/mail';
import type { Redis } from '../../common/redis';
import type { RequestScope, SharedState, SubgraphDefinition } from '../../common/subgraph';
import {
  CLIENT_ADDRESS_HEADER,
  SESSION_ID_HEADER,
  SESSION_USER_HEADER,
} from '../../contracts/identity/session';
import { accessChannel, type AccessChange } from '../../contracts/tickets/access-change';
import { IdentityRepository } from './identity.repository';
import { IdentityResolver, UserAuditLogResolver } from './identity.resolver';
import { IdentityService, SignInLimits, type SessionPrincipal } from './identity.service';
import { toUserType } from './user.type';

/** What every request of the identity subgraph shares: the mailer and the sign-in limits. */
export interface IdentityShared extends SharedState {
  mailer: Mailer;
  limits: SignInLimits;
  /** Says that a person's sessions ended, so live boards signed in as them are closed at once. */
  announceSessionsEnded(userId: number): Promise<void>;
}

export function startIdentityShared(base: { config: Config; redis: Redis; logger: Logger }): IdentityShared {
  const mailer = createMailer(base.config.mail, base.logger);
  return {
    mailer,
    limits: new SignInLimits(base.redis, base.config.redisPrefix, base.config.signUpRateLimit),
    announceSessionsEnded: async (userId) => {
      const change: AccessChange = { userId };
      await base.redis.publish(accessChannel(base.config.redisPrefix), JSON.stringify(change));
    },
    close: () => mailer.close(),
  };
}

function principalOf(headers: Record<string, string | undefined>): SessionPrincipal | null {
  const userId = parseRecordId(headers[SESSION_USER_HEADER]);
  const sessionId = parseRecordId(headers[SESSION_ID_HEADER]);
  return userId === null || sessionId === null ? null : { userId, sessionId };
}

/** The identity service of one request, or of an operator's command (no principal). */
export function identityService(
  em: EntityManager,
  shared: IdentityShared,
  config: Config,
  logger: Logger,
  headers: Record<string, string | undefined> = {},
): IdentityService {
  return new IdentityService(new IdentityRepository(em), shared.limits, shared.mailer, logger, {
    sessionsEnded: (userId) => shared.announceSessionsEnded(userId),
    appBaseUrl: config.publicBaseUrl,
    clientAddress: headers[CLIENT_ADDRESS_HEADER] ?? 'unknown',
    principal: principalOf(headers),
    language: languageOf(headers['accept-language']),
  });
}

function serviceOf(scope: RequestScope): IdentityService {
  return identityService(scope.em, scope.shared as IdentityShared, scope.config, scope.logger, scope.headers);
}

/** Identity: people, their passwords and sessions, and the links mailed to them. */
export const identitySubgraph: SubgraphDefinition = {
  name: 'identity',
  schemaModule: {
    schema: 'identity',
    entities: [],
    migrations: () => import('../../migrations/identity').then((m) => m.identityMigrations),
  },
  resolvers: [IdentityResolver, UserAuditLogResolver],
  referenceResolvers: {
    User: {
      __resolveReference: async (reference: { id: string }, { scope }) => {
        const id = parseRecordId(reference.id);
        if (id === null) return null;
        const user = await new IdentityRepository(scope.em).userById(id);
        return user === null ? null : toUserType(user);
      },
    },
  },
  startShared: (base) => Promise.resolve(startIdentityShared(base)),
  createResolvers: (scope) => {
    const identity = serviceOf(scope);
    return [new IdentityResolver(identity), new UserAuditLogResolver(identity)];
  },
};
