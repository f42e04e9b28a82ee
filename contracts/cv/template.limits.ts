/** How a template arranges a CV and which shelf it sits on (docs/API-DECISIONS.md). */
export const TEMPLATE_LAYOUTS = ['single-column', 'two-column', 'sidebar'] as const;
export const TEMPLATE_CATEGORIES = ['professional', 'modern', 'simple', 'creative', 'academic'] as const;
