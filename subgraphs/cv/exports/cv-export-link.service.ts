import { ForbiddenError } from '../../../common/errors';
import type { TextLanguage } from '../../../common/language';
import { text } from '../../../common/messages';
import {
  checkExportLink,
  EXPORT_LINK_SECONDS,
  exportLinkUrl,
  type ExportLinkFormat,
} from '../../../contracts/cv/export-link';
import type { AccountPrincipal, AccountService } from '../accounts';
import type { CvExport, CvExportService } from './cv-export.service';
import type { CvService } from '../cvs';

/** Where links point and what signs them. */
export interface ExportLinkSettings {
  publicBaseUrl: string;
  /** Signs every link. */
  internalSecret: string;
  /** Open a link: the signing secret and, during a rotation, the secondary one. */
  acceptedInternalSecrets: readonly string[];
}

/**
 * Download links for web apps: a browser follows a short-lived signed URL instead of holding a
 * key. Fetching one is an export like any other (the same limits, the same download count).
 */
export class CvExportLinkService {
  constructor(
    private readonly language: TextLanguage,
    private readonly cvs: CvService,
    private readonly accounts: AccountService,
    private readonly exports: CvExportService,
    private readonly settings: ExportLinkSettings,
  ) {}

  /** A link to one of the caller's CVs; NOT_FOUND or FORBIDDEN as reading it would be. */
  async link(
    principal: AccountPrincipal,
    id: string,
    format: ExportLinkFormat,
    nowMs: number = Date.now(),
  ): Promise<{ url: string; expiresAt: Date }> {
    const row = await this.cvs.get(principal, id);
    const expires = Math.floor(nowMs / 1000) + EXPORT_LINK_SECONDS;
    const url = exportLinkUrl(this.settings.publicBaseUrl, this.settings.internalSecret, {
      cvId: row.id,
      format,
      accountId: String(principal.accountId),
      expires,
    });
    return { url, expiresAt: new Date(expires * 1000) };
  }

  /** The export a link grants, when the platform signed it and its minute has not passed. */
  async export(
    presented: { id: string; format: ExportLinkFormat; account: string; expires: string; signature: string },
    requestId?: string,
  ): Promise<CvExport> {
    const verdict = checkExportLink(this.settings.acceptedInternalSecrets, {
      cvId: presented.id,
      format: presented.format,
      accountId: presented.account,
      expires: presented.expires,
      signature: presented.signature,
    });
    if (!verdict.ok) {
      throw new ForbiddenError(
        text(
          verdict.reason === 'expired' ? 'cv.export_link_expired' : 'cv.export_link_invalid',
          this.language,
        ),
      );
    }
    const principal = await this.accounts.authenticateLink(Number(verdict.link.accountId));
    if (principal === null) throw new ForbiddenError(text('cv.export_link_invalid', this.language));
    return this.exports.export(principal, verdict.link.cvId, verdict.link.format, requestId);
  }
}
