import { ForbiddenError, NotFoundError, RateLimitedError } from '../../../common/errors';
import { parseRecordId } from '../../../common/input.rules';
import type { TextLanguage } from '../../../common/language';
import type { PlanClient } from '../../../common/plan-client';
import type { RateBudgets, RatePolicy } from '../../../common/rate-budget';
import type { AccountEntitlements, AccountPrincipal } from '../accounts';
import type { CvRow, CvService } from '../cvs';
import type { DownloadMeter } from './download-meter';
import { type CvRenderer, type CvRenderMetrics, renderCvHtml, sampleCvDocument } from '../render';
import type { TemplateRepository } from '../templates';
import { EXPORTS_PER_MINUTE } from '../../../contracts/cv/export.limits';
import { text } from '../../../common/messages';

export type ExportFormat = 'pdf' | 'html';

/** cv-api.md: 10 exports a minute per account, counted in Redis like every budget (and failing open). */
export const EXPORT_POLICY: RatePolicy = { name: 'cv-exports', quota: EXPORTS_PER_MINUTE, windowSeconds: 60 };

export interface CvExport {
  fileName: string;
  contentType: string;
  data: Buffer;
}

/** What a file of the CV is called: its title, without what file systems refuse. */
function fileNameOf(row: CvRow, format: ExportFormat): string {
  const base = row.title.replace(/[\\/:*?"<>|\p{Cc}]+/gu, ' ').trim() || 'cv';
  return `${base}.${format}`;
}

/**
 * The CV's HTML document, the one source of every export, the share page and the previews; the
 * PDF is Chromium's print of it. Exports are limited twice: a burst limit per account (Redis,
 * every replica) and the plan's monthly download_limit, which billing counts.
 */
export class CvExportService {
  constructor(
    private readonly language: TextLanguage,
    private readonly cvs: CvService,
    private readonly templates: TemplateRepository,
    private readonly plans: PlanClient<AccountEntitlements>,
    private readonly meter: DownloadMeter,
    private readonly renderer: CvRenderer,
    private readonly budgets: RateBudgets,
    private readonly renderMetrics: CvRenderMetrics,
  ) {}

  async export(
    principal: AccountPrincipal,
    id: string,
    format: ExportFormat,
    requestId?: string,
  ): Promise<CvExport> {
    const row = await this.cvs.get(principal, id);
    const counted = await this.budgets.take(EXPORT_POLICY, String(principal.accountId));
    if (!counted.allowed) {
      throw new RateLimitedError(
        counted.resetSeconds ?? EXPORT_POLICY.windowSeconds,
        text('cv.exports_per_minute', this.language, { max: EXPORTS_PER_MINUTE }),
      );
    }
    const metered = await this.meter.meter(principal.accountId, requestId);
    if (!metered.allowed)
      throw new ForbiddenError(text('cv.downloads_per_month', this.language, { max: metered.limit ?? 0 }));
    try {
      return await this.renderMetrics.time(format, async () => {
        const html = await this.html(row);
        return format === 'pdf'
          ? {
              fileName: fileNameOf(row, format),
              contentType: 'application/pdf',
              data: await this.renderer.pdf(html),
            }
          : {
              fileName: fileNameOf(row, format),
              contentType: 'text/html; charset=utf-8',
              data: Buffer.from(html),
            };
      });
    } catch (error) {
      // The account is not charged for an export it never received.
      await this.meter.refund(principal.accountId, requestId);
      throw error;
    }
  }

  /** The public share page: the CV by its unguessable token, with its owner's watermark rule. */
  async shared(token: string): Promise<string> {
    const row = await this.cvs.findShared(token);
    if (row === null) throw new NotFoundError(text('cv.not_found', this.language));
    return this.html(row);
  }

  /** A template with sample content in the asked language, for `preview_url`. */
  async preview(templateId: string, locale: 'ar' | 'en'): Promise<string> {
    const id = parseRecordId(templateId);
    const template = id === null ? null : await this.templates.findById(id);
    if (template === null) throw new NotFoundError(text('cv.template_not_found', this.language));
    const document = sampleCvDocument(locale);
    return renderCvHtml({
      document: { ...document, settings: { ...template.defaultSettings } },
      template,
      photo: null,
      watermark: false,
    });
  }

  private async html(row: CvRow): Promise<string> {
    const [template, document, photo, entitlements] = await Promise.all([
      this.templates.getById(Number(row.template_id)),
      this.cvs.documentOf(row),
      this.cvs.photoOf(row),
      this.plans.of(Number(row.account_id)),
    ]);
    return renderCvHtml({
      document,
      template,
      photo,
      watermark: entitlements.watermark,
    });
  }
}
