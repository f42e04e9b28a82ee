import { Product } from './plan.entity';

export interface CatalogueEntry {
  key: string;
  name: string;
  product: Product;
  monthlyPriceIqd: number;
  cvLimit: number | null;
  downloadLimit: number | null;
  premiumTemplates: boolean;
  watermark: boolean;
  apiAccess: boolean;
  sms: boolean;
  /** Ticket plans: the ready alert on WhatsApp (the plans with SMS have it too). */
  whatsapp: boolean;
}

const cv = (
  key: string,
  name: string,
  monthlyPriceIqd: number,
  cvLimit: number | null,
  downloadLimit: number | null,
  premiumTemplates: boolean,
  watermark: boolean,
): CatalogueEntry => ({
  key,
  name,
  product: Product.CV,
  monthlyPriceIqd,
  cvLimit,
  downloadLimit,
  premiumTemplates,
  watermark,
  apiAccess: false,
  sms: false,
  whatsapp: false,
});

const tickets = (
  key: string,
  name: string,
  monthlyPriceIqd: number,
  apiAccess: boolean,
  sms: boolean,
): CatalogueEntry => ({
  key,
  name,
  product: Product.TICKETS,
  monthlyPriceIqd,
  cvLimit: null,
  downloadLimit: null,
  premiumTemplates: false,
  watermark: false,
  apiAccess,
  sms,
  // The customer's own chat replaces the texted alert where the plan has one: same plans.
  whatsapp: sms,
});

/**
 * The plan catalogue as code: seeding writes exactly this, in this order, so every environment
 * sells the same plans. Prices are monthly, in Iraqi dinars.
 */
export const PLAN_CATALOGUE: readonly CatalogueEntry[] = [
  cv('free', 'Free', 0, 2, 5, false, true),
  cv('pro', 'Pro', 10_000, 25, 100, true, false),
  cv('business', 'Business', 35_000, null, null, true, false),
  tickets('starter', 'Starter', 25_000, false, false),
  tickets('growth', 'Growth', 60_000, true, true),
  tickets('enterprise', 'Enterprise', 150_000, true, true),
];
