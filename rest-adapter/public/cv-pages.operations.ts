import { operation } from '../graph-client';

/** The graph operations the public CV pages map onto: each page is HTML the cv subgraph renders. */

export const SHARED_CV = operation<{ sharedCvHtml: string }, { token: string }>(
  'CvSharePage',
  'query CvSharePage($token: String!) { sharedCvHtml(token: $token) }',
);

/** A template's preview on a sample CV, in the asked language. */
export const TEMPLATE_PREVIEW = operation<{ templatePreviewHtml: string }, { id: string; locale: string }>(
  'CvTemplatePreview',
  'query CvTemplatePreview($id: ID!, $locale: String!) { templatePreviewHtml(id: $id, locale: $locale) }',
);
