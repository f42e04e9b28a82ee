import { Router, type ErrorRequestHandler } from 'express';
import type { Logger } from '../../common/logger';
import { currentRequestId } from '../../common/request-context';
import { operation, type GraphClient } from '../graph-client';
import { toHttpError } from '../http-errors';

interface MeData {
  me: {
    id: string;
    name: string;
    email: string;
    apiKey: { name: string; prefix: string } | null;
    plan: {
      key: string;
      name: string;
      cv: {
        cvLimit: number | null;
        downloadLimit: number | null;
        premiumTemplates: boolean;
        watermark: boolean;
      } | null;
    } | null;
    subscription: { status: string; endsAt: string | null } | null;
    usage: { cvs: number; downloadsThisMonth: number };
  };
}

export const CV_ME = operation<MeData>(
  'CvMe',
  /* GraphQL */ `
    query CvMe {
      me {
        id
        name
        email
        apiKey {
          name
          prefix
        }
        plan {
          key
          name
          cv {
            cvLimit
            downloadLimit
            premiumTemplates
            watermark
          }
        }
        subscription {
          status
          endsAt
        }
        usage {
          cvs
          downloadsThisMonth
        }
      }
    }
  `,
);

/** The Account resource of cv-api.md, every field present. */
export function toAccountResource({ me }: MeData) {
  return {
    id: Number(me.id),
    name: me.name,
    email: me.email,
    plan: {
      key: me.plan?.key ?? null,
      name: me.plan?.name ?? null,
      cv_limit: me.plan?.cv?.cvLimit ?? null,
      download_limit: me.plan?.cv?.downloadLimit ?? null,
      premium_templates: me.plan?.cv?.premiumTemplates ?? false,
      watermark: me.plan?.cv?.watermark ?? true,
    },
    subscription: { status: me.subscription?.status ?? null, ends_at: me.subscription?.endsAt ?? null },
    usage: { cvs: me.usage.cvs, downloads_this_month: me.usage.downloadsThisMonth },
    api_key: { name: me.apiKey?.name ?? null, prefix: me.apiKey?.prefix ?? null },
  };
}

/** The CV document's routes that need `X-API-Key`; each is one operation on the graph. */
export function cvRoutes(graph: GraphClient, logger: Logger): Router {
  const router = Router();
  router.get('/me', async (req, res) => {
    res.json({ data: toAccountResource(await graph.execute(CV_ME, {}, req)) });
  });
  // Inside this router, so only the CV document's routes answer in its error shape.
  router.use(cvErrorHandler(logger));
  return router;
}

/** cv-api.md: every error body is `{"message", "errors"}`, `errors` empty when no field is at fault. */
export function cvErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const mapped = toHttpError(error, currentRequestId());
    if (mapped.status >= 500) logger.error({ err: error }, 'request failed');
    res
      .status(mapped.status)
      .set(mapped.headers)
      .json({ ...mapped.body, errors: mapped.body.errors ?? {} });
  };
}
