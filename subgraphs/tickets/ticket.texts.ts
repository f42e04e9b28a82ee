import type { TextLanguage } from '../../common/language';
import { TicketSource, type TicketStatus } from '../../contracts/tickets/ticket.limits';

export const STATUS_TEXT: Record<TicketStatus, Record<TextLanguage, string>> = {
  waiting: { en: 'Waiting', ar: 'قيد الانتظار' },
  ready: { en: 'Ready', ar: 'جاهز' },
  collected: { en: 'Collected', ar: 'تم الاستلام' },
  cancelled: { en: 'Cancelled', ar: 'ملغى' },
};

export const SOURCE_TEXT: Record<TicketSource, Record<TextLanguage, string>> = {
  [TicketSource.API]: { en: 'API', ar: 'واجهة برمجية' },
  [TicketSource.CASHIER]: { en: 'Cashier', ar: 'الكاشير' },
  [TicketSource.KIOSK]: { en: 'Kiosk', ar: 'كشك الخدمة الذاتية' },
};
