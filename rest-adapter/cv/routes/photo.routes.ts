import { PHOTO_MAX_BYTES, PHOTO_MAX_SIDE } from '../../../contracts/cv/photo.limits';
import { bytesInWords } from '../../figures';
import { ref } from '../../openapi';
import { CV_OWNED, CV_REMOVE_PHOTO, CV_SET_PHOTO } from '../cv.operations';
import { photoRequestBody, readPhoto } from '../cv.requests';
import { toCvDocumentResource } from '../cv.resources';
import { refuse, route, type CvRoute } from './cv-route';

/** A CV's photo: set and removed. */
export const PHOTO_ROUTES: readonly CvRoute[] = [
  route({
    method: 'post',
    path: '/cvs/:uuid/photo',
    operations: [CV_SET_PHOTO, CV_OWNED],
    openapi: ({ ok, data, onCv, validation }) => ({
      ...onCv(
        'uploadCvPhoto',
        'Set the CV’s photo',
        `Judged by its bytes, whatever the file name or part type say. Stored upright, without metadata, at most ${PHOTO_MAX_SIDE} px a side, in its own format.`,
        { '200': ok('The CV with its photo', data(ref('CvDocument'))) },
        validation(
          `No photo part, more than one file, over ${bytesInWords(PHOTO_MAX_BYTES)}, not JPEG, PNG or WebP, or unreadable.`,
        ),
      ),
      requestBody: photoRequestBody,
    }),
    handler: async (req, res, { graph }) => {
      const photo = await readPhoto(req, res);
      if (!Buffer.isBuffer(photo)) return refuse(graph, req, photo);
      const { setCvPhoto } = await graph.execute(
        CV_SET_PHOTO,
        { id: req.params.uuid, photoBase64: photo.toString('base64') },
        req,
      );
      res.json({ data: toCvDocumentResource(setCvPhoto) });
    },
  }),
  route({
    method: 'delete',
    path: '/cvs/:uuid/photo',
    operations: [CV_REMOVE_PHOTO],
    openapi: ({ ok, data, onCv }) =>
      onCv('removeCvPhoto', 'Remove the CV’s photo', 'Removing an absent photo changes nothing.', {
        '200': ok('The CV without a photo', data(ref('CvDocument'))),
      }),
    handler: async (req, res, { graph }) => {
      const { removeCvPhoto } = await graph.execute(CV_REMOVE_PHOTO, { id: req.params.uuid }, req);
      res.json({ data: toCvDocumentResource(removeCvPhoto) });
    },
  }),
];
