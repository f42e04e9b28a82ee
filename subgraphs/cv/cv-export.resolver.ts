import { Arg, Field, ID, Mutation, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import type { CvAccess } from './cv-access';
import type { CvExportService } from './cv-export.service';

enum CvExportFormat {
  PDF = 'pdf',
  HTML = 'html',
}
registerEnumType(CvExportFormat, {
  name: 'CvExportFormat',
  description: 'PDF (A4, print-grade) or self-contained HTML.',
});

@ObjectType('CvExport', { description: 'One export of a CV; it counts toward the month’s download_limit.' })
export class CvExportType {
  @Field(() => String, { description: 'The CV’s title with the format’s extension.' })
  fileName!: string;

  @Field(() => String)
  contentType!: string;

  @Field(() => String, { description: 'The file, base64.' })
  base64!: string;
}

/** Exports (counted, limited) and the two public renderings: the share page and template previews. */
@Resolver()
export class CvExportResolver {
  constructor(
    private readonly access: CvAccess,
    private readonly exports: CvExportService,
    private readonly requestId: string,
  ) {}

  @Mutation(() => CvExportType, {
    description:
      'Exports a CV. FORBIDDEN at the plan’s download_limit, RATE_LIMITED beyond 10 exports a minute, UNAVAILABLE when the renderer is saturated.',
  })
  async exportCv(
    @Arg('id', () => ID) id: string,
    @Arg('format', () => CvExportFormat) format: CvExportFormat,
  ): Promise<CvExportType> {
    const principal = await this.access.require();
    const file = await this.exports.export(principal, id, format, this.requestId);
    return { fileName: file.fileName, contentType: file.contentType, base64: file.data.toString('base64') };
  }

  @Query(() => String, {
    description: 'The public share page of a CV (HTML); needs no key. NOT_FOUND once deleted.',
  })
  sharedCvHtml(@Arg('token', () => String) token: string): Promise<string> {
    return this.exports.shared(token);
  }

  @Query(() => String, {
    description: 'A template filled with sample content (HTML), for preview_url; needs no key.',
  })
  templatePreviewHtml(
    @Arg('id', () => ID) id: string,
    @Arg('locale', () => String, { defaultValue: 'ar', description: 'ar or en.' }) locale: string,
  ): Promise<string> {
    return this.exports.preview(id, locale === 'en' ? 'en' : 'ar');
  }
}
