import 'reflect-metadata';
import sharp from 'sharp';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../common/errors';
import type { TextLanguage } from '../../../common/language';
import { TOKEN } from '../../../common/patterns';
import { SECTION_KEYS } from '../../../contracts/cv/cv.payload';
import { openCvAccount } from '../../../test/support/cv-accounts';
import { useSchemaDatabase } from '../../../test/support/database';
import { rejection } from '../../../test/support/rejection';
import { type AccountEntitlements, type AccountPrincipal } from '../accounts';
import { CvRepository } from './cv.repository';
import { CvService } from './cv.service';
import { TemplateRepository } from '../templates';

describe('CvService on real Postgres', () => {
  const db = useSchemaDatabase('cv');
  /** The seeded platform templates by slug. */
  let templates: Record<string, string>;

  beforeAll(async () => {
    const rows = await sql<{ id: string; slug: string }[]>(
      'select id, slug from cv.templates where company_id is null',
    );
    templates = Object.fromEntries(rows.map((row) => [row.slug, String(row.id)]));
  });

  /** A service on its own fork, as a request gets one. */
  const cvs = (language: TextLanguage = 'en') => {
    const em = db.orm.em.fork();
    return new CvService(new CvRepository(em), new TemplateRepository(em), language);
  };
  function sql<T extends object[]>(query: string, params: unknown[] = []): Promise<T> {
    return db.orm.em.fork().execute<T>(query, params);
  }

  const FREE: AccountEntitlements = {
    planKey: 'free',
    cvLimit: 2,
    downloadLimit: 5,
    premiumTemplates: false,
    watermark: true,
  };
  const limitOf = (cvLimit: number | null): AccountEntitlements => ({ ...FREE, cvLimit });
  const UNLIMITED: AccountEntitlements = { ...limitOf(null), premiumTemplates: true };

  const newAccount = () => openCvAccount(db.orm.em.fork());

  const input = (title = 'My CV') => ({ title, locale: 'en', templateId: templates.classic! });

  async function rowsOf(principal: AccountPrincipal): Promise<number> {
    const [row] = await sql<{ n: string }[]>('select count(*) as n from cv.cvs where account_id = ?', [
      principal.accountId,
    ]);
    return Number(row?.n);
  }

  describe('creating', () => {
    it('creates a CV on the template’s default settings, every section in order, with a share token', async () => {
      const principal = await newAccount();
      const row = await cvs().create(principal, FREE, input('  Backend engineer  '));
      expect(row.title).toBe('Backend engineer');
      expect(row.locale).toBe('en');
      expect(String(row.template_id)).toBe(templates.classic);
      expect(Number(row.account_id)).toBe(principal.accountId);
      expect(row.settings).toEqual({ primary_color: '#1f4e79', theme: 'light', font_family: 'naskh' });
      expect(row.section_order).toEqual([...SECTION_KEYS]);
      expect(row.hidden_sections).toEqual([]);
      expect(row.share_token).toMatch(TOKEN);
      expect(row.photo_type).toBeNull();
      expect(await cvs().get(principal, row.id)).toEqual(row);
    });

    it('names every invalid field at once, and writes nothing', async () => {
      const principal = await newAccount();
      const error = await rejection(
        cvs().create(principal, FREE, { title: ' ', locale: 'fr', templateId: '0' }),
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).fieldErrors).toEqual({
        title: ['The title field is required.'],
        locale: ['The selected locale is invalid.'],
        template_id: ['The selected template id is invalid.'],
      });
      expect(await rowsOf(principal)).toBe(0);
    });

    it('refuses a premium template without premium templates in the plan, and writes nothing', async () => {
      const principal = await newAccount();
      const error = await rejection(
        cvs().create(principal, FREE, { ...input(), templateId: templates.executive! }),
      );
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as Error).message).toBe('This template needs a plan with premium templates.');
      expect(await rowsOf(principal)).toBe(0);
      const row = await cvs().create(principal, UNLIMITED, { ...input(), templateId: templates.executive! });
      expect(String(row.template_id)).toBe(templates.executive);
    });
  });

  describe('the plan’s CV limit', () => {
    it('creates up to cv_limit and refuses the next with FORBIDDEN in the asked language, writing nothing', async () => {
      const principal = await newAccount();
      await cvs().create(principal, FREE, input('One'));
      await cvs().create(principal, FREE, input('Two'));
      const error = await rejection(cvs().create(principal, FREE, input('Three')));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as Error).message).toBe(
        'Your plan allows 2 CVs. Delete one or upgrade your plan to create another.',
      );
      const arabic = await rejection(cvs('ar').create(principal, FREE, input('Three')));
      expect(arabic).toBeInstanceOf(ForbiddenError);
      expect((arabic as Error).message).toContain('تسمح خطتك بـ 2');
      expect(await rowsOf(principal)).toBe(2);
      expect((await cvs().list(principal)).map((row) => row.title)).toEqual(['Two', 'One']);
    });

    it('makes room again when a CV is deleted', async () => {
      const principal = await newAccount();
      const first = await cvs().create(principal, FREE, input('One'));
      await cvs().create(principal, FREE, input('Two'));
      await cvs().delete(principal, first.id);
      await cvs().create(principal, FREE, input('Three'));
      expect(await rowsOf(principal)).toBe(2);
    });

    it('counts duplicates and imports against the same limit', async () => {
      const principal = await newAccount();
      const source = await cvs().create(principal, limitOf(1), input());
      expect(await rejection(cvs().duplicate(principal, limitOf(1), source.id))).toBeInstanceOf(
        ForbiddenError,
      );
      expect(
        await rejection(cvs().importResume(principal, limitOf(1), { basics: { name: 'Ali' } }, {})),
      ).toBeInstanceOf(ForbiddenError);
      expect(await rowsOf(principal)).toBe(1);
    });

    it('holds no limit when the plan has none (null), and nothing when it allows none (0)', async () => {
      const unlimited = await newAccount();
      for (let i = 0; i < 3; i += 1) await cvs().create(unlimited, limitOf(null), input(`CV ${i}`));
      expect(await rowsOf(unlimited)).toBe(3);
      const none = await newAccount();
      expect(await rejection(cvs().create(none, limitOf(0), input()))).toBeInstanceOf(ForbiddenError);
      expect(await rowsOf(none)).toBe(0);
    });

    it('lets exactly cv_limit of 50 parallel creates through, each on its own connection', async () => {
      const principal = await newAccount();
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => cvs().create(principal, limitOf(5), input(`CV ${i}`))),
      );
      const created = results.filter((result) => result.status === 'fulfilled');
      const refused = results.filter(
        (result): result is PromiseRejectedResult => result.status === 'rejected',
      );
      expect(created).toHaveLength(5);
      expect(refused).toHaveLength(45);
      expect(refused.every((result) => result.reason instanceof ForbiddenError)).toBe(true);
      expect(await rowsOf(principal)).toBe(5);
      expect(await cvs().countFor(principal.accountId)).toBe(5);
    });

    it('keeps one account’s parallel creates from using another account’s room', async () => {
      const [one, two] = [await newAccount(), await newAccount()];
      await Promise.allSettled([
        ...Array.from({ length: 10 }, () => cvs().create(one, limitOf(2), input())),
        ...Array.from({ length: 10 }, () => cvs().create(two, limitOf(3), input())),
      ]);
      expect([await rowsOf(one), await rowsOf(two)]).toEqual([2, 3]);
    });
  });

  describe('reading', () => {
    it('answers an unknown or malformed id with NOT_FOUND and another account’s CV with FORBIDDEN', async () => {
      const [owner, other] = [await newAccount(), await newAccount()];
      const row = await cvs().create(owner, FREE, input());
      expect(await rejection(cvs().get(owner, '00000000-0000-4000-8000-000000000000'))).toBeInstanceOf(
        NotFoundError,
      );
      expect(await rejection(cvs().get(owner, 'not-a-uuid'))).toBeInstanceOf(NotFoundError);
      const error = await rejection(cvs().get(other, row.id));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as Error).message).toBe('This CV belongs to another account.');
      expect((await cvs().get(owner, row.id.toUpperCase())).id).toBe(row.id);
    });

    it('finds a CV by its share token for anyone, and nothing for an unknown or malformed token', async () => {
      const principal = await newAccount();
      const row = await cvs().create(principal, FREE, input());
      expect(await cvs().findShared(row.share_token)).toEqual(row);
      expect(await cvs().findShared('A'.repeat(32))).toBeNull();
      expect(await cvs().findShared("' or 1=1 --")).toBeNull();
    });

    it('counts the account’s CVs for the account resolver, whatever the plan, and only its own', async () => {
      const [principal, other] = [await newAccount(), await newAccount()];
      expect(await cvs().countFor(principal.accountId)).toBe(0);
      const first = await cvs().create(principal, limitOf(null), input());
      await cvs().create(principal, limitOf(null), input());
      await cvs().create(principal, limitOf(null), input());
      await cvs().create(other, FREE, input());
      expect(await cvs().countFor(principal.accountId)).toBe(3);
      await cvs().delete(principal, first.id);
      expect(await cvs().countFor(principal.accountId)).toBe(2);
      expect(await cvs().countFor(other.accountId)).toBe(1);
    });
  });

  describe('updating', () => {
    it('changes only the keys sent: personal and settings field by field, each section sent replaced', async () => {
      const principal = await newAccount();
      const { id } = await cvs().create(principal, FREE, input('Before'));
      await cvs().update(principal, id, {
        personal: { full_name: 'Ali Hassan', job_title: 'Engineer' },
        settings: { primary_color: '#ff0000' },
        sections: {
          skills: [{ name: 'PostgreSQL', level: 'Expert' }],
          languages: [{ name: 'Arabic', level: 'Native' }],
        },
      });
      const row = await cvs().update(principal, id, {
        title: 'After',
        personal: { job_title: 'Senior engineer', summary: '' },
        sections: { skills: [{ name: 'TypeScript' }] },
      });
      expect(row.title).toBe('After');
      expect(row.locale).toBe('en');
      expect(row.personal).toEqual({ full_name: 'Ali Hassan', job_title: 'Senior engineer' });
      expect(row.settings).toEqual({ primary_color: '#ff0000', theme: 'light', font_family: 'naskh' });
      const sections = await cvs().sectionsOf(id);
      expect(sections.skills).toEqual([{ name: 'TypeScript', level: null }]);
      expect(sections.languages).toEqual([{ name: 'Arabic', level: 'Native' }]);
      expect(sections.experience).toEqual([]);
    });

    it('clears a setting sent as null back to the template’s default', async () => {
      const principal = await newAccount();
      const { id } = await cvs().create(principal, FREE, input());
      await cvs().update(principal, id, { settings: { primary_color: '#000000', theme: 'dark' } });
      const row = await cvs().update(principal, id, { settings: { primary_color: null } });
      expect(row.settings).toEqual({ primary_color: '#1f4e79', theme: 'dark', font_family: 'naskh' });
    });

    it('refuses a section list naming an unknown section, and changes nothing', async () => {
      const principal = await newAccount();
      const { id } = await cvs().create(principal, FREE, input('Kept'));
      const error = await rejection(
        cvs().update(principal, id, { title: 'Lost', section_order: ['skills', 'hobbies'] }),
      );
      expect((error as ValidationError).fieldErrors).toEqual({
        'section_order.1': ['The selected section order.1 is invalid.'],
      });
      expect((await cvs().get(principal, id)).title).toBe('Kept');
    });

    it('drops a removed custom section from the lists that named it', async () => {
      const principal = await newAccount();
      const { id } = await cvs().create(principal, FREE, input());
      await cvs().update(principal, id, {
        custom_sections: [{ key: 'hobbies', title: 'Hobbies', content: 'Chess' }],
        section_order: ['hobbies', 'skills'],
        hidden_sections: ['hobbies'],
      });
      const row = await cvs().update(principal, id, { custom_sections: [] });
      expect(row.custom_sections).toEqual([]);
      expect(row.section_order).toEqual(['skills']);
      expect(row.hidden_sections).toEqual([]);
    });

    it('refuses another account’s CV with FORBIDDEN and leaves it as it was', async () => {
      const [owner, other] = [await newAccount(), await newAccount()];
      const { id } = await cvs().create(owner, FREE, input('Mine'));
      expect(await rejection(cvs().update(other, id, { title: 'Theirs' }))).toBeInstanceOf(ForbiddenError);
      expect((await cvs().get(owner, id)).title).toBe('Mine');
    });

    it('applies parallel edits of one CV one after the other, losing none', async () => {
      const principal = await newAccount();
      const { id } = await cvs().create(principal, FREE, input());
      const fields = ['full_name', 'job_title', 'phone', 'nationality', 'address'] as const;
      await Promise.all(fields.map((field) => cvs().update(principal, id, { personal: { [field]: field } })));
      expect((await cvs().get(principal, id)).personal).toEqual(
        Object.fromEntries(fields.map((field) => [field, field])),
      );
    });
  });

  describe('deleting', () => {
    it('deletes the CV with its section rows; its share token finds nothing after', async () => {
      const principal = await newAccount();
      const row = await cvs().create(principal, FREE, input());
      await cvs().update(principal, row.id, { sections: { skills: [{ name: 'SQL' }, { name: 'Go' }] } });
      await cvs().delete(principal, row.id);
      expect(await rejection(cvs().get(principal, row.id))).toBeInstanceOf(NotFoundError);
      expect(await cvs().findShared(row.share_token)).toBeNull();
      const [items] = await sql<{ n: string }[]>('select count(*) as n from cv.cv_items where cv_id = ?', [
        row.id,
      ]);
      expect(items?.n).toBe('0');
      expect(await rejection(cvs().delete(principal, row.id))).toBeInstanceOf(NotFoundError);
    });

    it('refuses to delete another account’s CV', async () => {
      const [owner, other] = [await newAccount(), await newAccount()];
      const row = await cvs().create(owner, FREE, input());
      expect(await rejection(cvs().delete(other, row.id))).toBeInstanceOf(ForbiddenError);
      expect((await cvs().get(owner, row.id)).id).toBe(row.id);
    });
  });

  describe('copies and photos', () => {
    it('duplicates every field, section row and the photo under a share token of its own', async () => {
      const principal = await newAccount();
      const source = await cvs().create(principal, FREE, input('Original'));
      await cvs().update(principal, source.id, {
        personal: { full_name: 'Ali' },
        sections: { skills: [{ name: 'SQL' }] },
      });
      const png = await sharp({
        create: { width: 4, height: 3, channels: 3, background: '#336699' },
      })
        .png()
        .toBuffer();
      await cvs().setPhoto(principal, source.id, png);
      const copy = await cvs().duplicate(principal, FREE, source.id);
      expect(copy.id).not.toBe(source.id);
      expect(copy.title).toBe('Original (copy)');
      expect(copy.personal).toEqual({ full_name: 'Ali' });
      expect(copy.share_token).toMatch(TOKEN);
      expect(copy.share_token).not.toBe(source.share_token);
      expect([copy.photo_type, copy.photo_width, copy.photo_height]).toEqual(['image/png', 4, 3]);
      expect((await cvs().sectionsOf(copy.id)).skills).toEqual([{ name: 'SQL', level: null }]);
      const removed = await cvs().removePhoto(principal, source.id);
      expect(removed.photo_type).toBeNull();
      expect(await cvs().photoOf(removed)).toBeNull();
      expect((await cvs().photoOf(copy))?.type).toBe('image/png');
    });
  });
});
