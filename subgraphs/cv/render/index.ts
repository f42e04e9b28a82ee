/**
 * Render: a CV document in, its HTML and PDF out. The designs, their fonts and labels in both
 * languages, the one Chromium of the process and its metrics, and the sample CV a template's
 * preview shows. Knows no account, template row or CV row. What the other folders may use.
 */
export { renderCvHtml } from './document';
export { designFor } from './designs';
export { CvRenderer, rendererOptionsFrom } from './renderer';
export { CvRenderMetrics } from './render-metrics';
export { fullCvPayload, sampleCvDocument } from './sample-cv';
