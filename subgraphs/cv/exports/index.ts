/**
 * Exports: a CV as PDF or HTML on the account's plan (metered by billing, at most so many a
 * minute), its signed download link, the public share page's HTML and a template's preview.
 * What the root module of the cv subgraph composes; the rest of exports/ is its own.
 */
export { CvExportService } from './cv-export.service';
export { CvExportLinkService } from './cv-export-link.service';
export { CvExportResolver } from './cv-export.resolver';
export { DownloadMeter } from './download-meter';
