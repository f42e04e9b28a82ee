import type { CommandSpec } from '../../common/cli';
import { identityService, startIdentityShared } from '../../subgraphs/identity/identity.subgraph';

export const identityCommands: CommandSpec[] = [
  {
    noun: 'user',
    verb: 'end-sessions',
    summary:
      "Signs a person out everywhere (a lost device, a departed employee); kept in the person's audit log as the operator's.",
    flags: { email: { description: "The person's email.", type: 'string', required: true } },
    async run(flags, context) {
      const { config, logger } = context;
      const shared = startIdentityShared({ config, logger, redis: await context.redis() });
      try {
        const identity = identityService(await context.em('identity'), shared, config, logger);
        const { userId, sessions } = await identity.endSessionsOf(flags.email as string);
        return { user_id: userId, sessions_ended: sessions };
      } finally {
        await shared.close();
      }
    },
  },
];
