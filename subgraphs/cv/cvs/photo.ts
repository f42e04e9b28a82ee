import sharp, { type Sharp } from 'sharp';
import { ValidationError } from '../../../common/errors';
import { say, type Message } from '../../../common/messages';
import { PHOTO_MAX_BYTES, PHOTO_MAX_SIDE, type PhotoType } from '../../../contracts/cv/photo.limits';

export interface PreparedPhoto {
  data: Buffer;
  type: PhotoType;
  width: number;
  height: number;
}

/** Checked against the header before decoding, so a few kilobytes cannot claim gigabytes of memory. */
const MAX_MEGAPIXELS = 40;

const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const RIFF = Buffer.from('RIFF', 'latin1');
const WEBP = Buffer.from('WEBP', 'latin1');

const ENCODERS: Record<PhotoType, (image: Sharp) => Sharp> = {
  'image/jpeg': (image) => image.jpeg({ quality: 90, mozjpeg: true }),
  'image/png': (image) => image.png(),
  'image/webp': (image) => image.webp({ quality: 90 }),
};

/** The type by content: a file name or a declared content type is whatever the client says. */
export function sniffPhotoType(data: Buffer): PhotoType | null {
  if (data.subarray(0, 3).equals(JPEG_MAGIC)) return 'image/jpeg';
  if (data.subarray(0, 8).equals(PNG_MAGIC)) return 'image/png';
  if (data.subarray(0, 4).equals(RIFF) && data.subarray(8, 12).equals(WEBP)) return 'image/webp';
  return null;
}

/**
 * Re-encodes an uploaded photo, upright and at most PHOTO_MAX_SIDE a side, in its own format. Nothing of
 * the upload but its pixels survives: EXIF (with GPS), XMP, IPTC and comments are all dropped.
 */
export async function preparePhoto(data: Buffer): Promise<PreparedPhoto> {
  if (data.length === 0) throw refuse(say('field.required', { field: 'photo' }));
  if (data.length > PHOTO_MAX_BYTES) {
    throw refuse(say('field.max_kilobytes', { field: 'photo', max: PHOTO_MAX_BYTES / 1024 }));
  }
  const type = sniffPhotoType(data);
  if (!type) throw refuse(say('field.file_type', { field: 'photo', types: 'jpeg, png, webp' }));

  const image = sharp(data, {
    // libjpeg reports corrupt scan data only as a warning and goes on to decode grey blocks.
    failOn: 'warning',
    limitInputPixels: MAX_MEGAPIXELS * 1_000_000,
    autoOrient: true,
    animated: false,
  }).resize(PHOTO_MAX_SIDE, PHOTO_MAX_SIDE, { fit: 'inside', withoutEnlargement: true });
  try {
    // Without keepMetadata/withMetadata sharp writes no metadata and converts to sRGB.
    const { data: output, info } = await ENCODERS[type](image).toBuffer({ resolveWithObject: true });
    return { data: output, type, width: info.width, height: info.height };
  } catch (error) {
    // sharp has no error codes; the test pins this message.
    if (error instanceof Error && error.message.includes('exceeds pixel limit')) {
      throw refuse(say('field.max_megapixels', { field: 'photo', max: MAX_MEGAPIXELS }));
    }
    throw refuse(say('field.image', { field: 'photo' }));
  }
}

function refuse(said: Message): ValidationError {
  return new ValidationError({ photo: [said] });
}
