import { crc32 } from 'node:zlib';
import sharp, { type Color, type Sharp } from 'sharp';
import { ValidationError } from '../../../common/errors';
import { PHOTO_MAX_BYTES } from '../../../contracts/cv/photo.limits';
import { preparePhoto, sniffPhotoType } from './photo';

const RUST = { r: 200, g: 100, b: 50 };
const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>SECRET-XMP</dc:creator></rdf:Description>
</rdf:RDF></x:xmpmeta>`;

function solid(width: number, height: number, background: Color = RUST): Sharp {
  return sharp({ create: { width, height, channels: 3, background } });
}

/** Deterministic detail, so a JPEG has real scan data to corrupt. */
function pattern(width: number, height: number): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7 + (i >> 8) * 13) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

async function pixel(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + 3)];
}

function expectColour(actual: number[], expected: { r: number; g: number; b: number }): void {
  const off = [actual[0]! - expected.r, actual[1]! - expected.g, actual[2]! - expected.b];
  expect(Math.max(...off.map(Math.abs))).toBeLessThanOrEqual(4);
}

/** A PNG with a tEXt chunk right after IHDR, where readers look for it. */
function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  const body = Buffer.concat([Buffer.from('tEXt', 'latin1'), Buffer.from(`${keyword}\0${text}`, 'latin1')]);
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(body.length - 4, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), body.length + 4);
  const afterIhdr = 8 + 25;
  return Buffer.concat([png.subarray(0, afterIhdr), chunk, png.subarray(afterIhdr)]);
}

/** A JPEG with a COM segment right after SOI. */
function withJpegComment(jpeg: Buffer, text: string): Buffer {
  const segment = Buffer.alloc(text.length + 4);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(text.length + 2, 2);
  segment.write(text, 4, 'latin1');
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
}

async function refusal(data: Buffer): Promise<string | undefined> {
  const error: unknown = await preparePhoto(data).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).fieldErrors.photo?.[0];
}

describe('sniffPhotoType', () => {
  it('recognises JPEG, PNG and WebP by their bytes', async () => {
    expect(sniffPhotoType(await solid(4, 4).jpeg().toBuffer())).toBe('image/jpeg');
    expect(sniffPhotoType(await solid(4, 4).png().toBuffer())).toBe('image/png');
    expect(sniffPhotoType(await solid(4, 4).webp().toBuffer())).toBe('image/webp');
  });

  it('answers null for anything else', async () => {
    expect(sniffPhotoType(Buffer.alloc(0))).toBeNull();
    expect(sniffPhotoType(Buffer.from([0xff, 0xd8]))).toBeNull();
    expect(sniffPhotoType(Buffer.from('just some text, saved as photo.jpg'))).toBeNull();
    expect(sniffPhotoType(await solid(4, 4).gif().toBuffer())).toBeNull();
    expect(sniffPhotoType(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'))).toBeNull();
  });
});

describe('preparePhoto', () => {
  it('strips EXIF with GPS, XMP and comments from a JPEG', async () => {
    const tagged = await solid(64, 48)
      .jpeg()
      .withExif({
        IFD0: { Copyright: 'SECRET-COPYRIGHT', Artist: 'SECRET-ARTIST' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '33/1 18/1 5/1', GPSMapDatum: 'SECRET-GPS' },
      })
      .withXmp(XMP)
      .toBuffer();
    const upload = withJpegComment(tagged, 'SECRET-COMMENT');
    const secrets = ['SECRET-COPYRIGHT', 'SECRET-ARTIST', 'SECRET-GPS', 'SECRET-XMP', 'SECRET-COMMENT'];
    const before = await sharp(upload).metadata();
    expect(before.exif).toBeDefined();
    expect(before.xmp).toBeDefined();
    for (const secret of secrets) expect(upload.includes(secret)).toBe(true);

    const photo = await preparePhoto(upload);

    expect(photo.type).toBe('image/jpeg');
    expect(sniffPhotoType(photo.data)).toBe('image/jpeg');
    const after = await sharp(photo.data).metadata();
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    expect(after.iptc).toBeUndefined();
    expect(after.icc).toBeUndefined();
    expect(after.space).toBe('srgb');
    for (const secret of secrets) expect(photo.data.includes(secret)).toBe(false);
    expect(photo.data.includes('Exif\0')).toBe(false);
  });

  it('stands a phone photo upright from its EXIF orientation', async () => {
    // Stored 40×20, red left and blue right; orientation 6 means "turn 90° clockwise to view".
    const upload = await solid(40, 20, { r: 255, g: 0, b: 0 })
      .composite([
        {
          input: { create: { width: 20, height: 20, channels: 3, background: '#0000ff' } },
          left: 20,
          top: 0,
        },
      ])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(upload).metadata()).orientation).toBe(6);

    const photo = await preparePhoto(upload);

    expect([photo.width, photo.height]).toEqual([20, 40]);
    const after = await sharp(photo.data).metadata();
    expect([after.width, after.height, after.orientation]).toEqual([20, 40, undefined]);
    expectColour(await pixel(photo.data, 10, 5), { r: 255, g: 0, b: 0 });
    expectColour(await pixel(photo.data, 10, 35), { r: 0, g: 0, b: 255 });
  });

  it('drops the text chunks of a PNG and keeps it a PNG', async () => {
    const upload = withPngText(await solid(30, 20).png().toBuffer(), 'Comment', 'SECRET-TEXT');
    expect((await sharp(upload).metadata()).comments).toEqual([{ keyword: 'Comment', text: 'SECRET-TEXT' }]);

    const photo = await preparePhoto(upload);

    expect(photo).toMatchObject({ type: 'image/png', width: 30, height: 20 });
    expect(sniffPhotoType(photo.data)).toBe('image/png');
    const after = await sharp(photo.data).metadata();
    expect(after.format).toBe('png');
    expect(after.comments).toBeUndefined();
    expect(photo.data.includes('SECRET-TEXT')).toBe(false);
    expect(photo.data.includes('tEXt')).toBe(false);
  });

  it('keeps a WebP a WebP', async () => {
    const photo = await preparePhoto(await solid(50, 40).webp({ quality: 90 }).toBuffer());

    expect(photo).toMatchObject({ type: 'image/webp', width: 50, height: 40 });
    expect(sniffPhotoType(photo.data)).toBe('image/webp');
    expect((await sharp(photo.data).metadata()).format).toBe('webp');
    expectColour(await pixel(photo.data, 25, 20), RUST);
  });

  it('takes only the first frame of an animated WebP', async () => {
    const frames = await Promise.all(
      ['#ff0000', '#00ff00', '#0000ff'].map((colour) => solid(30, 20, colour).png().toBuffer()),
    );
    const upload = await sharp(frames, { join: { animated: true } })
      .webp({ quality: 90 })
      .toBuffer();
    expect((await sharp(upload).metadata()).pages).toBe(3);

    const photo = await preparePhoto(upload);

    expect([photo.width, photo.height]).toEqual([30, 20]);
    expect((await sharp(photo.data).metadata()).pages).toBeUndefined();
    expectColour(await pixel(photo.data, 15, 10), { r: 255, g: 0, b: 0 });
  });

  it('converts a Display P3 photo to sRGB rather than dropping its profile', async () => {
    const upload = await solid(8, 8).withIccProfile('p3').png().toBuffer();
    expect((await sharp(upload).metadata()).icc).toBeDefined();

    const photo = await preparePhoto(upload);

    expect((await sharp(photo.data).metadata()).icc).toBeUndefined();
    expectColour(await pixel(photo.data, 4, 4), RUST);
  });

  it('shrinks a large photo to fit within 1200×1200', async () => {
    const photo = await preparePhoto(await solid(3000, 2000).jpeg().toBuffer());

    expect([photo.width, photo.height]).toEqual([1200, 800]);
    const after = await sharp(photo.data).metadata();
    expect([after.width, after.height]).toEqual([1200, 800]);
  });

  it('never enlarges a small photo', async () => {
    const photo = await preparePhoto(await solid(100, 80).jpeg().toBuffer());

    expect([photo.width, photo.height]).toEqual([100, 80]);
  });

  it('accepts a photo of exactly PHOTO_MAX_BYTES', async () => {
    const png = await solid(10, 10).png().toBuffer();
    const upload = Buffer.concat([png, Buffer.alloc(PHOTO_MAX_BYTES - png.length)]);

    await expect(preparePhoto(upload)).resolves.toMatchObject({ type: 'image/png', width: 10, height: 10 });
  });

  it('refuses an empty upload', async () => {
    expect(await refusal(Buffer.alloc(0))).toBe('The photo field is required.');
  });

  it('refuses an upload over PHOTO_MAX_BYTES before looking inside', async () => {
    const png = await solid(10, 10).png().toBuffer();
    const upload = Buffer.concat([png, Buffer.alloc(PHOTO_MAX_BYTES + 1 - png.length)]);
    expect(await refusal(upload)).toBe('The photo field must not be greater than 4096 kilobytes.');
  });

  it('refuses a GIF', async () => {
    expect(await refusal(await solid(10, 10).gif().toBuffer())).toBe(
      'The photo field must be a file of type: jpeg, png, webp.',
    );
  });

  it('refuses a text file whatever it is called', async () => {
    expect(await refusal(Buffer.from('not a photo, just named photo.jpg\n'))).toBe(
      'The photo field must be a file of type: jpeg, png, webp.',
    );
  });

  it('refuses a truncated JPEG', async () => {
    const jpeg = await pattern(300, 300).jpeg().toBuffer();
    expect(await refusal(jpeg.subarray(0, jpeg.length >> 1))).toBe('The photo field must be an image.');
  });

  it('refuses a JPEG whose scan data is corrupt instead of decoding grey blocks', async () => {
    const jpeg = Buffer.from(await pattern(300, 300).jpeg().toBuffer());
    const middle = jpeg.length >> 1;
    jpeg.writeUInt16BE(0xffd3, middle);
    expect(await refusal(jpeg)).toBe('The photo field must be an image.');
  });

  it('refuses a truncated PNG and a bare WebP header', async () => {
    const png = await pattern(100, 100).png().toBuffer();
    expect(await refusal(png.subarray(0, png.length - 100))).toBe('The photo field must be an image.');
    expect(await refusal(Buffer.from('RIFF\x04\x00\x00\x00WEBP', 'latin1'))).toBe(
      'The photo field must be an image.',
    );
  });

  it('refuses a decompression bomb from its header, before decoding', async () => {
    // A small JPEG whose frame header claims 8000×6000: 48 megapixels, 144 MB once decoded.
    const upload = Buffer.from(await solid(16, 16).jpeg().toBuffer());
    const frame = upload.indexOf(Buffer.from([0xff, 0xc0]));
    upload.writeUInt16BE(6000, frame + 5);
    upload.writeUInt16BE(8000, frame + 7);
    expect(await sharp(upload).metadata()).toMatchObject({ width: 8000, height: 6000 });
    expect(await refusal(upload)).toBe('The photo field must not be larger than 40 megapixels.');
  });

  it('reports a refusal as a BAD_USER_INPUT GraphQL error with the field errors', async () => {
    const error = await preparePhoto(Buffer.alloc(0)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      message: 'The photo field is required.',
      extensions: { code: 'BAD_USER_INPUT', errors: { photo: ['The photo field is required.'] } },
    });
  });
});
