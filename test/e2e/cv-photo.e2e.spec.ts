import sharp from 'sharp';
import { PHOTO_MAX_BYTES } from '../../contracts/cv/photo.limits';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { cvCaller, newCvAccount, startPlatform, type Platform } from '../support/platform';

describe('POST and DELETE /cvs/{uuid}/photo: multipart, 4 MB, JPEG/PNG/WebP by content, metadata removed', () => {
  let database: TestDatabase;
  let platform: Platform;
  let call: ReturnType<typeof cvCaller>;
  let key: string;
  let cvId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await startPlatform(database);
    call = cvCaller(platform);
    ({ key } = await newCvAccount(platform.config, { plan: 'pro' }));
    const [template] = await database.query("select id from cv.templates where slug = 'classic'");
    const created = await call<{ id: string }>('POST', '/cvs', key, {
      title: 'Photo CV',
      locale: 'en',
      template_id: Number(template!.id),
    });
    cvId = created.body.data!.id;
  });

  afterAll(async () => {
    await platform?.stop();
    await database.drop();
  });

  const form = (bytes: Buffer, name = 'photo.jpg', type = 'image/jpeg', field = 'photo') => {
    const body = new FormData();
    body.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
    return body;
  };

  const storedPhoto = async () =>
    (await database.query('select photo, photo_type from cv.cvs where id = $1', [cvId]))[0] as {
      photo: Buffer | null;
      photo_type: string | null;
    };

  it('stores an upright photo without its EXIF, GPS or comments, and shows its facts on the CV', async () => {
    const jpeg = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#336699' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({
        IFD0: { Copyright: 'Secret Studio' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '33/1 18/1 0/1' },
      })
      .toBuffer();
    expect(jpeg.includes('Secret Studio')).toBe(true);
    const uploaded = await call<{ photo: Record<string, unknown> }>(
      'POST',
      `/cvs/${cvId}/photo`,
      key,
      form(jpeg),
    );
    expect(uploaded.status).toBe(200);
    const stored = await storedPhoto();
    expect(uploaded.body.data!.photo).toEqual({
      content_type: 'image/jpeg',
      width: 200,
      height: 400,
      size: stored.photo!.length,
    });
    const metadata = await sharp(stored.photo!).metadata();
    expect([metadata.exif, metadata.xmp, metadata.iptc, metadata.orientation]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(stored.photo!.includes('Secret Studio')).toBe(false);
    const read = await call<{ photo: unknown }>('GET', `/cvs/${cvId}`, key);
    expect(read.body.data!.photo).toEqual(uploaded.body.data!.photo);
  });

  it('accepts PNG and WebP by their bytes, whatever the file name says', async () => {
    const image = sharp({ create: { width: 64, height: 64, channels: 4, background: '#ff000080' } });
    const png = await image.clone().png().toBuffer();
    const webp = await image.clone().webp().toBuffer();
    const asPng = await call<{ photo: { content_type: string } }>(
      'POST',
      `/cvs/${cvId}/photo`,
      key,
      form(png, 'me.jpg', 'image/jpeg'),
    );
    expect([asPng.status, asPng.body.data!.photo.content_type]).toEqual([200, 'image/png']);
    const asWebp = await call<{ photo: { content_type: string } }>(
      'POST',
      `/cvs/${cvId}/photo`,
      key,
      form(webp, 'me.png', 'image/png'),
    );
    expect([asWebp.status, asWebp.body.data!.photo.content_type]).toEqual([200, 'image/webp']);
  });

  it('refuses other types, disguised files, broken images, oversize uploads and a missing field (422)', async () => {
    const before = await storedPhoto();
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    const jpeg = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#0a0' } })
      .jpeg()
      .toBuffer();
    const cases: [string, FormData, string][] = [
      ['gif', form(gif, 'a.gif', 'image/gif'), 'The photo field must be a file of type: jpeg, png, webp.'],
      [
        'text as jpeg',
        form(Buffer.from('hello, not an image'), 'a.jpg'),
        'The photo field must be a file of type: jpeg, png, webp.',
      ],
      ['truncated', form(jpeg.subarray(0, jpeg.length / 2)), 'The photo field must be an image.'],
      [
        'too big',
        form(Buffer.concat([jpeg, Buffer.alloc(PHOTO_MAX_BYTES)])),
        'The photo field must not be greater than 4096 kilobytes.',
      ],
      [
        'wrong field',
        form(jpeg, 'a.jpg', 'image/jpeg', 'picture'),
        'Send one file, in the multipart field photo.',
      ],
      ['no file', new FormData(), 'The photo field is required.'],
    ];
    for (const [name, body, message] of cases) {
      const refused = await call('POST', `/cvs/${cvId}/photo`, key, body);
      expect([name, refused.status, refused.body]).toEqual([
        name,
        422,
        { message, errors: { photo: [message] } },
      ]);
    }
    const notMultipart = await call('POST', `/cvs/${cvId}/photo`, key, { photo: 'x' });
    expect(notMultipart.status).toBe(422);
    expect(await storedPhoto()).toEqual(before);
  });

  it('removes the photo', async () => {
    const removed = await call<{ photo: unknown }>('DELETE', `/cvs/${cvId}/photo`, key);
    expect([removed.status, removed.body.data!.photo]).toEqual([200, null]);
    expect(await storedPhoto()).toEqual({ photo: null, photo_type: null });
  });
});
