import 'reflect-metadata';
import { ConflictError } from '../../../common/errors';
import { AuditLog } from '../../../common/audit-log';
import { openCvAccount } from '../../../test/support/cv-accounts';
import { useSchemaDatabase } from '../../../test/support/database';
import { ACCOUNT_AUDIT } from './account-audit';
import { AccountRepository } from './account.repository';
import { ACCOUNT_KEYS_CAP, AccountService } from './account.service';

describe('AccountService on real Postgres', () => {
  const db = useSchemaDatabase('cv');

  const newAccount = () => openCvAccount(db.orm.em.fork());

  describe(`an account’s keys, at most ${ACCOUNT_KEYS_CAP} not revoked`, () => {
    const issuerOf = () =>
      new AccountService(
        new AccountRepository(db.orm.em.fork()),
        new AuditLog(db.orm.em.fork(), ACCOUNT_AUDIT),
      );

    it('lets parallel issues take only the places left, refuses the rest with CONFLICT, and has room again after a revocation', async () => {
      const { accountId } = await newAccount();
      const issued = await Promise.allSettled(
        Array.from({ length: ACCOUNT_KEYS_CAP + 5 }, (_, i) => issuerOf().issueKey(accountId, `pos ${i}`)),
      );
      const made = issued.filter((result) => result.status === 'fulfilled');
      expect(made).toHaveLength(ACCOUNT_KEYS_CAP);
      for (const result of issued) {
        if (result.status === 'rejected') {
          expect(result.reason).toBeInstanceOf(ConflictError);
          expect((result.reason as ConflictError).message).toBe(
            `This account has ${ACCOUNT_KEYS_CAP} keys not revoked, the most an account may have: revoke one to issue another.`,
          );
        }
      }
      const [row] = await db.orm.em
        .fork()
        .execute<{ n: number }[]>('select count(*)::int as n from cv.account_api_keys where account_id = ?', [
          accountId,
        ]);
      expect(row!.n).toBe(ACCOUNT_KEYS_CAP);
      await issuerOf().revokeKey((made[0] as PromiseFulfilledResult<{ id: number }>).value.id);
      expect((await issuerOf().issueKey(accountId, 'after a revocation')).name).toBe('after a revocation');
    });
  });

  describe('a key’s account', () => {
    it('comes with the key, so the request reads it without a second statement', async () => {
      const principal = await newAccount();
      const issuer = new AccountService(
        new AccountRepository(db.orm.em.fork()),
        new AuditLog(db.orm.em.fork(), ACCOUNT_AUDIT),
      );
      const { key } = await issuer.issueKey(principal.accountId, 'pos');
      const em = db.orm.em.fork();
      const accounts = new AccountService(new AccountRepository(em), new AuditLog(em, ACCOUNT_AUDIT));
      const found = await accounts.authenticate(key);
      expect(found).toMatchObject({ accountId: principal.accountId, companyId: null, key: { name: 'pos' } });
      const statements = jest.spyOn(em.getConnection(), 'execute');
      try {
        const account = await accounts.getAccount(principal.accountId);
        expect(account).toMatchObject({ id: principal.accountId, companyId: null, userId: null });
        expect(account.name).toMatch(/^Account \d+$/);
        expect(account.email).toMatch(/^cv-service-\d+@example\.com$/);
        expect(account.createdAt).toBeInstanceOf(Date);
        // Nothing read with the key looks changed: the unit of work has nothing to write.
        await em.flush();
        expect(statements).not.toHaveBeenCalled();
      } finally {
        statements.mockRestore();
      }
    });
  });
});
