import { Arg, Field, ID, Mutation, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import { Cost } from '../../../common/cost.graphql';
import type { CvAccess } from '../accounts';
import type { CvExportLinkService } from './cv-export-link.service';
import type { CvExport, CvExportService } from './cv-export.service';

export enum CvExportFormat {
  PDF = 'pdf',
  HTML = 'html',
}
registerEnumType(CvExportFormat, {
  name: 'CvExportFormat',
  description: 'PDF (A4, print-grade) or self-contained HTML.',
  valuesConfig: {
    PDF: { description: 'A PDF document, A4 (application/pdf).' },
    HTML: { description: 'One self-contained HTML page (text/html).' },
  },
});

@ObjectType('CvExport', { description: 'One export of a CV; it counts toward the month’s download_limit.' })
export class CvExportType {
  @Field(() => String, { description: 'The CV’s title with the format’s extension.' })
  fileName!: string;

  @Field(() => String, { description: 'application/pdf or text/html; charset=utf-8.' })
  contentType!: string;

  @Field(() => String, { description: 'The file, base64.' })
  base64!: string;
}

function toExportType(file: CvExport): CvExportType {
  return { fileName: file.fileName, contentType: file.contentType, base64: file.data.toString('base64') };
}

@ObjectType('CvExportUrl', { description: 'A download link that needs no key, for a browser to follow.' })
export class CvExportUrlType {
  @Field(() => String, {
    description: 'The file on the REST adapter, signed; fetching it counts as a download, like exportCv.',
  })
  url!: string;

  @Field(() => Date, { description: 'When the link stops working: 60 seconds after it was made.' })
  expiresAt!: Date;
}

/**
 * Exports (counted, limited), download links for browsers, and the two public renderings: the
 * share page and template previews.
 */
@Resolver()
export class CvExportResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly exports: CvExportService,
    private readonly links: CvExportLinkService,
    private readonly requestId: string,
  ) {}

  // A render in Chromium: as heavy as a page of a hundred fields, whatever it selects.
  @Cost(100)
  @Mutation(() => CvExportType, {
    description:
      'Exports a CV. FORBIDDEN at the plan’s download_limit, RATE_LIMITED beyond 10 exports a minute, UNAVAILABLE when the renderer is saturated.',
  })
  async exportCv(
    @Arg('id', () => ID, { description: 'The CV’s UUID.' }) id: string,
    @Arg('format', () => CvExportFormat, { description: 'The file to make.' }) format: CvExportFormat,
  ): Promise<CvExportType> {
    const principal = await this.access.require();
    return toExportType(await this.exports.export(principal, id, format, this.requestId));
  }

  @Query(() => CvExportUrlType, {
    description:
      'A signed link to download one of the account’s CVs without a key, valid 60 seconds: a web app hands it to the browser. Counted as a download when fetched, not when made.',
  })
  async cvExportUrl(
    @Arg('id', () => ID, { description: 'The CV’s UUID.' }) id: string,
    @Arg('format', () => CvExportFormat, { description: 'What the link downloads.' }) format: CvExportFormat,
  ): Promise<CvExportUrlType> {
    const principal = await this.access.require();
    return this.links.link(principal, id, format);
  }

  // A render in Chromium: as heavy as a page of a hundred fields, whatever it selects.
  @Cost(100)
  @Mutation(() => CvExportType, {
    description:
      'The export a cvExportUrl link grants, needing no key: what the REST adapter sends when the link is followed. FORBIDDEN for a link not signed by the platform or past its minute; otherwise as exportCv.',
  })
  async exportCvByLink(
    @Arg('id', () => ID, { description: 'The CV’s UUID in the link’s path.' }) id: string,
    @Arg('format', () => CvExportFormat, { description: 'The format in the link’s path.' })
    format: CvExportFormat,
    @Arg('account', () => ID, { description: 'The link’s account value.' }) account: string,
    @Arg('expires', () => String, { description: 'The link’s expires value (Unix seconds).' })
    expires: string,
    @Arg('signature', () => String, { description: 'The link’s signature value.' }) signature: string,
  ): Promise<CvExportType> {
    return toExportType(await this.links.export({ id, format, account, expires, signature }, this.requestId));
  }

  @Query(() => String, {
    description: 'The public share page of a CV (HTML); needs no key. NOT_FOUND once deleted.',
  })
  sharedCvHtml(
    @Arg('token', () => String, { description: 'The token of the CV’s share link (links.share).' })
    token: string,
  ): Promise<string> {
    return this.exports.shared(token);
  }

  @Query(() => String, {
    description: 'A template filled with sample content (HTML), for preview_url; needs no key.',
  })
  templatePreviewHtml(
    @Arg('id', () => ID, { description: 'The template’s id.' }) id: string,
    @Arg('locale', () => String, { defaultValue: 'ar', description: 'ar or en.' }) locale: string,
  ): Promise<string> {
    return this.exports.preview(id, locale === 'en' ? 'en' : 'ar');
  }
}
