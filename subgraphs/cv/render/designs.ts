import type { CV_THEMES, SectionKey } from '../../../contracts/cv/cv.payload';
import { CV_FONT, type FontFamily } from './fonts';

export type CvTheme = (typeof CV_THEMES)[number];

export const DESIGN_SLUGS = ['classic', 'sidebar', 'minimal', 'scholar', 'executive', 'studio'] as const;
export type DesignSlug = (typeof DESIGN_SLUGS)[number];

/** One look of the CV: its arrangement, its defaults and its stylesheet. */
export interface Design {
  slug: DesignSlug;
  /** The template layout this design draws; company templates borrow a design by layout. */
  layout: 'single-column' | 'two-column' | 'sidebar';
  /** Used where the CV's own settings are missing or not one of the allowed values. */
  defaults: { primaryColor: string; theme: CvTheme; fontFamily: FontFamily };
  /** Which edge (in reading direction) holds the second column, if any. */
  aside: 'none' | 'start' | 'end';
  /** Sections set in the second column rather than the main story. */
  asideSections: readonly SectionKey[];
  /** Where the contact lines and the photo sit. */
  contactIn: 'header' | 'aside';
  photoIn: 'header' | 'aside';
  css: string;
}

/**
 * Shared by every design. The page margin is 0 so bands and sidebars can run to the paper's edge;
 * the white margin of each page is the sheet's padding, repeated on every page by
 * `box-decoration-break: clone`. Backgrounds that must fill every page (a sidebar, a strip) are
 * `position: fixed`, which Chromium repeats on each printed page. Arabic is set without kerning:
 * Amiri's kerning pulls a yeh under a preceding reh ("مشاريع"), and poppler then reads the
 * overlap as a space between words. The diagonal watermark goes through a (no-op) filter, which
 * Chromium's PDF backend paints as an image: as text, its rotated letters would be read one per
 * line into the CV's text. The small line at the foot of each page carries the words instead.
 */
export const BASE_CSS = `
@page{size:A4;margin:0}
*,*::before,*::after{box-sizing:border-box}
:root{--pad-y:15mm;--pad-x:17mm;--side-w:0mm;--strip-w:0mm;--paper:#ffffff;--ink:#1f2933;--muted:#5f6b7a;--rule:#d8dde4;
--accent-ink:var(--accent);--tint:color-mix(in srgb,var(--accent) 8%,var(--paper));
--head-bg:transparent;--head-ink:var(--ink);--head-muted:var(--muted);--head-accent:var(--accent-ink);--head-rule:var(--rule);
--side-bg:transparent;--side-ink:var(--ink);--side-muted:var(--muted);--side-accent:var(--accent-ink);--side-rule:var(--rule)}
html{background:var(--paper);color:var(--ink);font-family:'${CV_FONT}',serif;font-size:10pt;line-height:1.45;
font-synthesis:none;-webkit-print-color-adjust:exact;print-color-adjust:exact;text-rendering:optimizeLegibility}
html[lang=ar]{line-height:1.55}
:lang(ar){font-kerning:none}
body{margin:0}
h1,h2,h3,p,ul,dl,dd{margin:0;padding:0}
ul{list-style:none}
h1,h2,h3{font-weight:700}
a{color:inherit;text-decoration:none}
.sheet{position:relative;display:grid;grid-template-columns:minmax(0,1fr);grid-template-areas:"head" "main";
align-content:start;padding:var(--pad-y) 0;-webkit-box-decoration-break:clone;box-decoration-break:clone}
.backdrop{position:fixed;inset:0;z-index:-1;pointer-events:none}
.side-fill{position:absolute;top:0;bottom:0;width:var(--side-w);background:var(--side-bg)}
.strip{position:absolute;top:0;bottom:0;inset-inline-start:0;width:var(--strip-w);background:var(--accent)}
.head{grid-area:head;margin-top:calc(-1 * var(--pad-y));padding:var(--pad-y) var(--pad-x) 0;
padding-inline-start:calc(var(--pad-x) + var(--strip-w));background:var(--head-bg);color:var(--head-ink);
display:flex;align-items:center;gap:6mm}
.identity{flex:1;min-width:0}
.name{font-size:25pt;line-height:1.15;color:var(--head-accent)}
.role{font-size:12.5pt;color:var(--head-muted);margin-top:1.5mm}
.photo{flex:none;width:28mm;height:28mm;object-fit:cover;border-radius:50%}
.contact{display:flex;flex-wrap:wrap;gap:1mm 5mm;margin-top:3.5mm;font-size:9pt;color:var(--head-muted)}
.contact .label{display:none}
.contact .label::after{content:": "}
.contact li[data-kind=nationality] .label,.contact li[data-kind=birth_date] .label{display:inline}
.main{grid-area:main;min-width:0;padding:0 var(--pad-x);padding-inline-start:calc(var(--pad-x) + var(--strip-w))}
.side{grid-area:side;min-width:0;color:var(--side-ink)}
.section{margin-top:6.5mm}
.section:first-child{margin-top:7mm}
h2{font-size:12.5pt;line-height:1.3;color:var(--accent-ink);break-after:avoid;page-break-after:avoid;margin-bottom:2.5mm}
.item{break-inside:avoid;page-break-inside:avoid}
.item+.item{margin-top:3.5mm}
.item-head{display:flex;align-items:baseline;justify-content:space-between;gap:4mm}
.item-title{font-size:10.5pt;line-height:1.35}
.when{flex:none;white-space:nowrap;font-size:9pt;color:var(--muted)}
.item-sub{color:var(--accent-ink);font-size:9.5pt}
.item-sub .sep{color:var(--muted)}
.item-text{margin-top:1mm}
.item-link{font-size:9pt;color:var(--muted);margin-top:.5mm;overflow-wrap:anywhere}
.summary{font-size:10pt}
.pairs{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:2mm 6mm}
.pairs .item+.item{margin-top:0}
.pair{display:flex;justify-content:space-between;gap:3mm;border-bottom:.5pt solid var(--rule);padding-bottom:1mm}
.pair-name{flex:1;min-width:0}
.pair .level{color:var(--muted);font-size:9pt;text-align:end;max-width:55%}
.bullets .item{position:relative;padding-inline-start:4.5mm}
.bullets .item+.item{margin-top:1.2mm}
.bullets .item::before{content:"";position:absolute;inset-inline-start:.5mm;top:.62em;width:1.6mm;height:1.6mm;border-radius:50%;background:var(--accent-ink)}
.refs{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:3mm 8mm}
.refs .item+.item{margin-top:0}
.contact-line{font-size:9pt;color:var(--muted)}
.side .section{margin-top:7mm}
.side h2{color:var(--side-accent)}
.side .pairs{grid-template-columns:minmax(0,1fr);gap:1.6mm}
.side .pair{border-bottom-color:var(--side-rule)}
.side .pair .level,.side .when,.side .contact-line{color:var(--side-muted)}
.side .item-sub{color:var(--side-accent)}
.side .bullets .item::before{background:var(--side-accent)}
.facts{display:grid;gap:2mm}
.facts dt{font-size:8pt;color:var(--side-muted)}
html[lang=en] .facts dt{text-transform:uppercase;letter-spacing:.06em}
.facts dd{overflow-wrap:anywhere}
.watermark{position:fixed;inset:0;z-index:10;display:flex;align-items:center;justify-content:center;pointer-events:none}
.watermark span{font-size:64pt;font-weight:700;color:#6b7280;opacity:.16;white-space:nowrap;transform:rotate(-35deg);filter:blur(.2px)}
.watermark-line{position:fixed;bottom:5mm;left:0;right:0;z-index:10;text-align:center;font-size:8pt;color:#6b7280}
html[data-theme=dark]{--paper:#141a22;--ink:#e6e9ee;--muted:#a3adba;--rule:#323b48;
--accent-ink:color-mix(in srgb,var(--accent) 50%,#ffffff);--tint:color-mix(in srgb,var(--accent) 22%,var(--paper))}
html[data-theme=dark-header]{--head-bg:color-mix(in srgb,var(--accent) 45%,#0b1018);--head-ink:#ffffff;
--head-muted:rgba(255,255,255,.78);--head-accent:#ffffff;--head-rule:rgba(255,255,255,.28)}
html[data-theme=dark-header] .head{padding-bottom:8mm;margin-bottom:2mm}
html[data-theme=dark-header] .role{color:color-mix(in srgb,var(--accent) 35%,#ffffff)}
html[data-theme=colour-sidebar]{--side-bg:color-mix(in srgb,var(--accent) 88%,#000000);--side-ink:#ffffff;
--side-muted:rgba(255,255,255,.8);--side-accent:#ffffff;--side-rule:rgba(255,255,255,.3)}
html[data-theme=colour-sidebar][data-aside=none]{--strip-w:7mm}
@media screen{
html{background:#e7eaee}
body{padding:8mm 0}
.sheet{width:210mm;min-height:297mm;margin:0 auto;background:var(--paper);box-shadow:0 2px 14px rgba(15,23,42,.18);isolation:isolate}
.backdrop{position:absolute}
.watermark-line{bottom:3mm;left:50%;right:auto;transform:translateX(-50%);padding:1mm 4mm;border-radius:3mm;background:rgba(255,255,255,.92);box-shadow:0 1px 4px rgba(15,23,42,.2)}
}
@media screen and (max-width:820px){
body{padding:0}
.sheet{width:auto;min-height:0;grid-template-columns:minmax(0,1fr)!important;grid-template-areas:"head" "main" "side"!important}
.side-fill{display:none}
.side{background:var(--side-bg);padding-top:2mm;padding-bottom:6mm}
.head{flex-wrap:wrap}
.pairs,.refs{grid-template-columns:minmax(0,1fr)}
}
`;

const CLASSIC_CSS = `
.head{position:relative;padding-bottom:5mm}
.head::after{content:"";position:absolute;bottom:0;inset-inline:calc(var(--pad-x) + var(--strip-w)) var(--pad-x);border-bottom:1.2pt solid var(--accent-ink)}
html[data-theme=dark-header] .head::after{display:none}
.name{font-size:26pt}
.contact{gap:1mm 5.5mm}
.contact li::before{content:"";display:inline-block;width:1.3mm;height:1.3mm;border-radius:50%;background:var(--head-accent);margin-inline-end:1.8mm;vertical-align:.2em}
.photo{border-radius:3mm;width:27mm;height:32mm}
h2{font-size:12pt;padding-bottom:1mm;border-bottom:.75pt solid var(--rule)}
html[lang=en] h2{text-transform:uppercase;letter-spacing:.07em;font-size:11pt}
.item-title{font-size:10.5pt}
`;

const SIDEBAR_CSS = `
:root{--side-w:64mm;--side-bg:var(--tint);--head-bg:var(--paper);--side-rule:color-mix(in srgb,var(--accent) 18%,var(--paper))}
.sheet{grid-template-columns:minmax(0,1fr) var(--side-w);grid-template-areas:"head head" "main side"}
.side-fill{inset-inline-end:0}
.head{padding-bottom:6mm;margin-bottom:1mm;border-bottom:.75pt solid var(--rule)}
html[data-theme=dark-header] .head{border-bottom:0}
.name{font-size:28pt;color:var(--head-ink)}
.role{color:var(--head-accent);font-weight:700;font-size:12pt}
.photo{width:30mm;height:30mm;box-shadow:0 0 0 1.2mm var(--tint)}
.main{padding-inline-end:8mm}
.side{padding:0 8mm}
h2{font-size:13pt;position:relative;padding-bottom:1.6mm;margin-bottom:3mm}
h2::after{content:"";position:absolute;bottom:0;inset-inline-start:0;width:12mm;height:1.1mm;border-radius:1mm;background:var(--accent-ink)}
.side h2{font-size:10.5pt}
html[lang=en] .side h2{text-transform:uppercase;letter-spacing:.08em}
.side h2::after{width:8mm;height:.8mm;background:var(--side-accent)}
.side .section:first-child{margin-top:8mm}
.pairs{grid-template-columns:repeat(2,minmax(0,1fr))}
`;

const MINIMAL_CSS = `
:root{--pad-x:21mm;--pad-y:18mm}
.head{padding-bottom:2mm;align-items:flex-start}
.name{font-size:30pt;font-weight:400;color:var(--head-ink);line-height:1.1}
html[data-theme=dark-header] .head{padding-bottom:9mm}
.role{font-size:12pt;margin-top:2mm}
.photo{width:24mm;height:24mm;border-radius:1.5mm}
.contact{gap:1mm 6mm;margin-top:4mm}
.section{display:grid;grid-template-columns:33mm minmax(0,1fr);column-gap:7mm;margin-top:8mm}
.section>h2{grid-column:1;grid-row:1;font-size:9pt;color:var(--muted);margin:0;padding-top:.5mm;line-height:1.45}
html[lang=en] .section>h2{text-transform:uppercase;letter-spacing:.12em}
html[lang=ar] .section>h2{font-size:10.5pt;padding-top:0}
.section>:not(h2){grid-column:2}
.section+.section{border-top:.5pt solid var(--rule);padding-top:5mm;margin-top:5mm}
.section:first-child{margin-top:9mm}
.item+.item{margin-top:4mm}
.item-sub{color:var(--muted)}
.pairs{grid-template-columns:repeat(2,minmax(0,1fr))}
.pair{border-bottom:0;padding-bottom:0}
.bullets .item::before{width:1.2mm;height:1.2mm;background:var(--muted)}
`;

const SCHOLAR_CSS = `
:root{--pad-x:19mm}
.section{margin-top:5.5mm}
.item+.item{margin-top:2.8mm}
.head{flex-direction:column;text-align:center;gap:3mm;padding-bottom:4.5mm;border-bottom:2.4pt double var(--accent-ink)}
html[data-theme=dark-header] .head{border-bottom:0}
.identity{flex:none}
.name{font-size:24pt;color:var(--head-accent)}
.role{font-size:12pt;margin-top:1mm}
.photo{order:-1;width:24mm;height:30mm;border-radius:1mm}
.contact{justify-content:center;gap:1mm 5mm;margin-top:2.5mm}
.contact li::before{content:"";display:inline-block;width:1.1mm;height:1.1mm;transform:rotate(45deg);background:var(--head-accent);margin-inline-end:2mm;vertical-align:.22em}
h2{display:flex;align-items:center;gap:4mm;font-size:12.5pt;margin-bottom:3mm}
h2::before,h2::after{content:"";flex:1;border-top:.75pt solid var(--rule)}
h2::before{flex:0 0 6mm;border-top:1.6pt solid var(--accent-ink)}
html[lang=en] h2{letter-spacing:.05em}
article.item{display:grid;grid-template-columns:31mm minmax(0,1fr);column-gap:5mm}
article.item>.item-head{display:contents}
article.item>*,article.item>.item-head>.item-title{grid-column:2}
article.item .when{grid-column:1;grid-row:1 / span 4;white-space:normal;text-align:start;padding-top:.4mm;font-size:8.5pt;color:var(--accent-ink)}
.item-title{grid-row:1}
.item-sub{color:var(--ink)}
.section>.summary,.section>ul,.section>.refs,.section>p.item-text{margin-inline-start:36mm}
.pairs{grid-template-columns:repeat(2,minmax(0,1fr))}
`;

const EXECUTIVE_CSS = `
:root{--side-w:68mm;--pad-x:16mm;--head-bg:var(--paper)}
.sheet{grid-template-columns:minmax(0,1fr) var(--side-w);grid-template-areas:"head head" "main side"}
.side-fill{inset-inline-end:0}
.head{padding-bottom:7mm;margin-bottom:1mm;border-bottom:3pt solid var(--accent-ink)}
html[data-theme=dark-header] .head{border-bottom:0}
.name{font-size:27pt}
.role{font-size:12.5pt}
html[lang=en] .role{letter-spacing:.02em}
.photo{width:30mm;height:30mm;box-shadow:0 0 0 .9mm var(--head-rule)}
.contact{margin-top:4mm;gap:1.2mm 6mm}
.contact li{display:flex;gap:1.5mm}
.contact .label{display:inline;color:var(--head-muted);opacity:.75;font-size:8pt}
html[lang=en] .contact .label{text-transform:uppercase;font-size:7.5pt;letter-spacing:.08em;padding-top:.3mm}
.contact .label::after{content:""}
.main{padding-inline-end:7mm}
.side{padding-inline:6mm var(--pad-x);border-inline-start:.75pt solid var(--rule)}
html[data-theme=colour-sidebar] .side,html[data-theme=dark] .side{border-inline-start:0}
html[data-theme=colour-sidebar] .side{padding-inline-start:7mm}
h2{font-size:11.5pt;color:var(--ink);position:relative;padding-bottom:2mm;margin-bottom:3mm;border-bottom:.5pt solid var(--rule)}
html[lang=en] h2{text-transform:uppercase;letter-spacing:.09em;font-size:10.5pt}
h2::after{content:"";position:absolute;bottom:-1.3pt;inset-inline-start:0;width:14mm;height:2.4pt;background:var(--accent-ink)}
.side h2{color:var(--side-ink);border-bottom-color:var(--side-rule)}
.side h2::after{background:var(--side-accent)}
.item-sub{font-weight:700;font-size:9.5pt}
.side .item+.item{margin-top:3mm}
.side .item-head{display:block}
.side .when{white-space:normal}
.side{font-size:9.5pt}
.side .item-title{font-size:10pt}
`;

const STUDIO_CSS = `
:root{--side-w:70mm;--side-bg:var(--tint);--side-rule:color-mix(in srgb,var(--accent) 22%,var(--paper))}
.sheet{grid-template-columns:var(--side-w) minmax(0,1fr);grid-template-rows:auto 1fr;grid-template-areas:"side head" "side main"}
.side-fill{inset-inline-start:0}
.head{padding-bottom:0;display:block}
html[data-theme=dark-header] .head{padding-bottom:9mm}
.name{font-size:32pt;line-height:1.08;color:var(--accent-ink)}
html[data-theme=dark-header] .name{color:var(--head-ink)}
.role{font-size:13.5pt;margin-top:2.5mm;color:var(--head-muted)}
.head::after{content:"";display:block;width:18mm;height:1.6mm;background:var(--accent);margin-top:5mm;border-radius:1mm}
html[data-theme=dark-header] .head::after{background:var(--head-accent)}
.side{padding:0 9mm}
.side .photo{display:block;width:42mm;height:42mm;margin:0 auto 2mm;box-shadow:0 0 0 1.4mm var(--side-rule)}
h2{font-size:14pt;margin-bottom:3.5mm}
.side h2{font-size:10.5pt;padding-bottom:1.5mm;border-bottom:.75pt solid var(--side-rule)}
html[lang=en] .side h2{text-transform:uppercase;letter-spacing:.12em}
.side .section:first-child{margin-top:0}
.side .photo+.section{margin-top:7mm}
.main .section[data-section=experience] .item,.main .section[data-section=volunteers] .item{position:relative;padding-inline-start:6mm;border-inline-start:.9pt solid color-mix(in srgb,var(--accent) 30%,var(--paper))}
.main .section[data-section=experience] .item::before,.main .section[data-section=volunteers] .item::before{content:"";position:absolute;inset-inline-start:-1.5mm;top:1.2mm;width:2.2mm;height:2.2mm;border-radius:50%;background:var(--paper);border:.9mm solid var(--accent-ink)}
.main .section[data-section=experience] .item+.item,.main .section[data-section=volunteers] .item+.item{margin-top:0;padding-top:3.5mm}
.main .section[data-section=experience] .item+.item::before,.main .section[data-section=volunteers] .item+.item::before{top:4.7mm}
.pairs{grid-template-columns:repeat(2,minmax(0,1fr))}
`;

const SIDE_SECTIONS: readonly SectionKey[] = ['skills', 'languages', 'expertise'];

export const DESIGNS: Record<DesignSlug, Design> = {
  classic: {
    slug: 'classic',
    layout: 'single-column',
    defaults: { primaryColor: '#1f4e79', theme: 'light', fontFamily: 'naskh' },
    aside: 'none',
    asideSections: [],
    contactIn: 'header',
    photoIn: 'header',
    css: CLASSIC_CSS,
  },
  sidebar: {
    slug: 'sidebar',
    layout: 'sidebar',
    defaults: { primaryColor: '#0f766e', theme: 'light', fontFamily: 'naskh' },
    aside: 'end',
    asideSections: SIDE_SECTIONS,
    contactIn: 'aside',
    photoIn: 'header',
    css: SIDEBAR_CSS,
  },
  minimal: {
    slug: 'minimal',
    layout: 'single-column',
    defaults: { primaryColor: '#374151', theme: 'light', fontFamily: 'naskh' },
    aside: 'none',
    asideSections: [],
    contactIn: 'header',
    photoIn: 'header',
    css: MINIMAL_CSS,
  },
  scholar: {
    slug: 'scholar',
    layout: 'single-column',
    defaults: { primaryColor: '#7c2d12', theme: 'light', fontFamily: 'naskh' },
    aside: 'none',
    asideSections: [],
    contactIn: 'header',
    photoIn: 'header',
    css: SCHOLAR_CSS,
  },
  executive: {
    slug: 'executive',
    layout: 'two-column',
    defaults: { primaryColor: '#111827', theme: 'dark-header', fontFamily: 'naskh' },
    aside: 'end',
    asideSections: ['education', 'skills', 'languages', 'certifications', 'awards', 'expertise'],
    contactIn: 'header',
    photoIn: 'header',
    css: EXECUTIVE_CSS,
  },
  studio: {
    slug: 'studio',
    layout: 'sidebar',
    defaults: { primaryColor: '#9d174d', theme: 'colour-sidebar', fontFamily: 'naskh' },
    aside: 'start',
    asideSections: SIDE_SECTIONS,
    contactIn: 'aside',
    photoIn: 'aside',
    css: STUDIO_CSS,
  },
};

/** The platform design a company template (which has only a layout) is drawn with. */
const DESIGN_OF_LAYOUT: Record<string, DesignSlug> = {
  'single-column': 'classic',
  'two-column': 'executive',
  sidebar: 'sidebar',
};

/**
 * A platform template by its slug; anything else (a company template, even one reusing a platform
 * slug with another layout) by its layout, and classic when the layout is unknown.
 */
export function designFor(template: { slug: string; layout: string }): Design {
  if (Object.hasOwn(DESIGNS, template.slug)) {
    const bySlug = DESIGNS[template.slug as DesignSlug];
    if (bySlug.layout === template.layout) return bySlug;
  }
  return DESIGNS[
    Object.hasOwn(DESIGN_OF_LAYOUT, template.layout) ? DESIGN_OF_LAYOUT[template.layout]! : 'classic'
  ];
}
