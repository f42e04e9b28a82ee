import type { TextLanguage } from './language';

/**
 * Every sentence the platform says in both of its languages, keyed by id. A producer names the id
 * and its values; the sentence is rendered where the reader's language is known (a door, or a
 * subgraph answering its caller), so rewording the English cannot lose the Arabic, and a new id
 * without both languages does not compile. `{name}` is a value; messages.spec.ts checks that both
 * languages use the same ones.
 *
 * The field rules are Laravel's sentences and, in Arabic, Laravel's `ar` language pack: the legacy
 * clients of both documents already show them. A field is named as the client sent it in both.
 */
export const MESSAGES = {
  // Field rules (common/validation.ts, the payload schemas, the input guards).
  'field.required': { en: 'The {field} field is required.', ar: 'حقل {field} مطلوب.' },
  'field.string': { en: 'The {field} field must be a string.', ar: 'يجب أن يكون حقل {field} نصاً.' },
  'field.integer': {
    en: 'The {field} field must be an integer.',
    ar: 'يجب أن يكون حقل {field} عدداً صحيحاً.',
  },
  'field.boolean': {
    en: 'The {field} field must be true or false.',
    ar: 'يجب أن تكون قيمة حقل {field} إما true أو false.',
  },
  'field.array': { en: 'The {field} field must be an array.', ar: 'يجب أن يكون حقل {field} مصفوفة.' },
  'field.object': { en: 'The {field} field must be an object.', ar: 'يجب أن يكون حقل {field} كائناً.' },
  'field.invalid': { en: 'The {field} field is invalid.', ar: 'حقل {field} غير صالح.' },
  'field.format_invalid': { en: 'The {field} field format is invalid.', ar: 'صيغة حقل {field} غير صالحة.' },
  'field.max': {
    en: 'The {field} field must not be greater than {max}.',
    ar: 'يجب ألا تزيد قيمة حقل {field} عن {max}.',
  },
  'field.max_characters': {
    en: 'The {field} field must not be greater than {max} characters.',
    ar: 'يجب ألا يزيد طول حقل {field} عن {max} حرفاً.',
  },
  'field.max_kilobytes': {
    en: 'The {field} field must not be greater than {max} kilobytes.',
    ar: 'يجب ألا يزيد حجم حقل {field} عن {max} كيلوبايت.',
  },
  'field.max_items': {
    en: 'The {field} field must not have more than {max} items.',
    ar: 'يجب ألا يحتوي حقل {field} على أكثر من {max} عنصراً.',
  },
  'field.min': {
    en: 'The {field} field must be at least {min}.',
    ar: 'يجب أن تكون قيمة حقل {field} على الأقل {min}.',
  },
  'field.min_characters': {
    en: 'The {field} field must be at least {min} characters.',
    ar: 'يجب أن يكون طول حقل {field} على الأقل {min} حرفاً.',
  },
  'field.between': {
    en: 'The {field} field must be between {min} and {max}.',
    ar: 'يجب أن تكون قيمة حقل {field} بين {min} و {max}.',
  },
  'field.between_characters': {
    en: 'The {field} field must be between {min} and {max} characters.',
    ar: 'يجب أن يكون طول حقل {field} بين {min} و {max} حرفاً.',
  },
  'field.selected_invalid': {
    en: 'The selected {field} is invalid.',
    ar: 'قيمة حقل {field} المختارة غير صالحة.',
  },
  'field.selected_invalid_choose': {
    en: 'The selected {field} is invalid (choose {choices}).',
    ar: 'قيمة حقل {field} المختارة غير صالحة (اختر {choices}).',
  },
  'field.not_allowed': { en: 'The {field} field is not allowed.', ar: 'حقل {field} غير مسموح به.' },
  'field.email': {
    en: 'The {field} field must be a valid email address.',
    ar: 'يجب أن يكون حقل {field} عنوان بريد إلكتروني صالحاً.',
  },
  'field.web_url': {
    en: 'The {field} field must be a valid URL starting with http:// or https://.',
    ar: 'يجب أن يكون حقل {field} رابطاً صالحاً يبدأ بـ http:// أو https://.',
  },
  'field.format_month': {
    en: 'The {field} field must match the format Y-m.',
    ar: 'يجب أن يطابق حقل {field} الصيغة Y-m.',
  },
  'field.format_date': {
    en: 'The {field} field must match the format Y-m-d.',
    ar: 'يجب أن يطابق حقل {field} الصيغة Y-m-d.',
  },
  'field.date': {
    en: 'The {field} field must be a valid date.',
    ar: 'يجب أن يكون حقل {field} تاريخاً صالحاً.',
  },
  'field.hex_color': {
    en: 'The {field} field must be a valid hexadecimal color.',
    ar: 'يجب أن يكون حقل {field} لوناً ست عشرياً صالحاً.',
  },
  'field.prohibited_when': {
    en: 'The {field} field is prohibited when {other} is {value}.',
    ar: 'حقل {field} ممنوع عندما تكون قيمة {other} هي {value}.',
  },
  'field.after_or_equal': {
    en: 'The {field} field must be a date after or equal to {other}.',
    ar: 'يجب أن يكون حقل {field} تاريخاً لاحقاً لـ {other} أو مساوياً له.',
  },
  'field.builtin_section_key': {
    en: 'The {field} field must not be a built-in section key.',
    ar: 'يجب ألا يكون حقل {field} مفتاح قسم مدمج.',
  },
  'field.duplicate': {
    en: 'The {field} field has a duplicate value.',
    ar: 'حقل {field} يحتوي على قيمة مكررة.',
  },
  'field.key_characters': {
    en: 'The {field} field must be lower-case letters, digits, dashes and underscores.',
    ar: 'يجب أن يتكون حقل {field} من أحرف لاتينية صغيرة وأرقام وشرطات وشرطات سفلية فقط.',
  },
  'field.slug_characters': {
    en: 'The {field} field must be lower-case letters, digits and single dashes.',
    ar: 'يجب أن يتكون حقل {field} من أحرف لاتينية صغيرة وأرقام وشرطات مفردة فقط.',
  },
  'field.file_type': {
    en: 'The {field} field must be a file of type: {types}.',
    ar: 'يجب أن يكون حقل {field} ملفاً من نوع: {types}.',
  },
  'field.image': { en: 'The {field} field must be an image.', ar: 'يجب أن يكون حقل {field} صورة.' },
  'field.max_megapixels': {
    en: 'The {field} field must not be larger than {max} megapixels.',
    ar: 'يجب ألا تزيد أبعاد حقل {field} عن {max} ميغابكسل.',
  },
  'field.json_resume': {
    en: 'The {field} field must be a JSON Resume object.',
    ar: 'يجب أن يكون حقل {field} كائن JSON Resume.',
  },
  'field.iraqi_mobile': {
    en: 'The {field} field must be a valid Iraqi mobile number.',
    ar: 'يجب أن يكون حقل {field} رقم هاتف محمول عراقياً صالحاً.',
  },
  'field.time_zone': {
    en: 'The {field} field must be an IANA time zone such as Asia/Baghdad.',
    ar: 'يجب أن يكون حقل {field} منطقة زمنية من IANA مثل Asia/Baghdad.',
  },
  'field.nul': {
    en: 'The {field} field must not contain NUL characters.',
    ar: 'يجب ألا يحتوي حقل {field} على محارف NUL.',
  },
  'field.utf8': {
    en: 'The {field} field must be valid UTF-8 text.',
    ar: 'يجب أن يكون حقل {field} نصاً صالحاً بترميز UTF-8.',
  },
  'field.nesting': {
    en: 'The {field} field must not be nested more than {max} levels deep.',
    ar: 'يجب ألا يتجاوز تداخل حقل {field} عدد {max} مستوى.',
  },
  'field.arguments_too_large': {
    en: 'The {field} field is too large: all arguments together must not be greater than {max} kilobytes.',
    ar: 'حقل {field} كبير جداً: يجب ألا يزيد حجم المعطيات كلها معاً عن {max} كيلوبايت.',
  },

  'field.taken': { en: 'The {field} has already been taken.', ar: 'قيمة {field} مستخدمة من قبل.' },
  'field.choose_list': {
    en: 'The {field} must be a comma-separated list of {choices}.',
    ar: 'يجب أن يكون حقل {field} قائمة مفصولة بفواصل من {choices}.',
  },
  'field.choose_list_unknown': {
    en: 'The {field} must be a comma-separated list of {choices} (unknown: {unknown}).',
    ar: 'يجب أن يكون حقل {field} قائمة مفصولة بفواصل من {choices} (غير معروف: {unknown}).',
  },

  // Receiver URLs: webhooks and push endpoints (subgraphs/tickets/events/webhook-url.ts).
  'url.absolute': { en: 'The {field} must be an absolute URL.', ar: 'يجب أن يكون حقل {field} رابطاً كاملاً.' },
  'url.https': { en: 'The {field} must use https.', ar: 'يجب أن يستخدم حقل {field} بروتوكول https.' },
  'url.https_or_http': {
    en: 'The {field} must use https or http.',
    ar: 'يجب أن يستخدم حقل {field} بروتوكول https أو http.',
  },
  'url.credentials': {
    en: 'The {field} must not carry credentials.',
    ar: 'يجب ألا يحمل حقل {field} بيانات اعتماد.',
  },
  'url.too_long': {
    en: 'The {field} may not be longer than {max} characters.',
    ar: 'يجب ألا يزيد طول حقل {field} عن {max} حرفاً.',
  },
  'url.unresolved': {
    en: "The {field}'s host {host} does not resolve ({reason}).",
    ar: 'تعذّر العثور على عنوان المضيف {host} في حقل {field} ({reason}).',
  },
  'url.no_address': {
    en: "The {field}'s host {host} has no address.",
    ar: 'لا يملك المضيف {host} في حقل {field} أي عنوان.',
  },
  'url.not_public': {
    en: "The {field}'s host {host} resolves to {address}, which is not a public address.",
    ar: 'يشير المضيف {host} في حقل {field} إلى {address}، وهو ليس عنواناً عاماً.',
  },

  // A validation error's summary: the first message, then how many more (Laravel's).
  'validation.invalid': { en: 'The given data was invalid.', ar: 'البيانات المرسلة غير صالحة.' },
  'validation.more_one': { en: '(and 1 more error)', ar: '(و 1 أخطاء أخرى)' },
  'validation.more': { en: '(and {count} more errors)', ar: '(و {count} أخطاء أخرى)' },

  // The request as a whole (the REST adapter).
  'request.invalid_json': { en: 'The request body is not valid JSON.', ar: 'جسم الطلب ليس JSON صالحاً.' },
  'request.too_large': {
    en: 'The request body is larger than {size}.',
    ar: 'جسم الطلب أكبر من {size}.',
  },
  'request.encoding': {
    en: 'The request body encoding is not supported.',
    ar: 'ترميز جسم الطلب غير مدعوم.',
  },
  'request.aborted': { en: 'The request was aborted.', ar: 'أُلغي الطلب.' },
  'request.unreadable': {
    en: 'The request body could not be read: it does not match its Content-Encoding or Content-Length.',
    ar: 'تعذّرت قراءة جسم الطلب: لا يطابق ترميزَ المحتوى أو طولَه.',
  },
  'request.route_not_found': {
    en: 'The route {path} could not be found.',
    ar: 'تعذّر العثور على المسار {path}.',
  },
  'request.idempotency_mismatch': {
    en: 'The Idempotency-Key was already used with a different request body.',
    ar: 'سبق استخدام مفتاح Idempotency-Key مع جسم طلب مختلف.',
  },

  // Values Postgres refused (common/database-errors.ts), named without the database's words.
  'database.text_character': {
    en: 'A text value contains a character the database cannot store (such as NUL).',
    ar: 'يحتوي نص على محرف لا يمكن لقاعدة البيانات حفظه (مثل NUL).',
  },
  'database.text_utf8': { en: 'A text value is not valid UTF-8.', ar: 'نص غير صالح بترميز UTF-8.' },
  'database.number_range': { en: 'A number is out of range.', ar: 'رقم خارج النطاق المسموح.' },
  'database.type': { en: 'A value is not of the expected type.', ar: 'قيمة ليست من النوع المتوقع.' },
  'database.date_invalid': { en: 'A date or time is not valid.', ar: 'تاريخ أو وقت غير صالح.' },
  'database.date_range': { en: 'A date or time is out of range.', ar: 'تاريخ أو وقت خارج النطاق المسموح.' },
  'database.text_too_long': { en: 'A text value is too long.', ar: 'نص أطول من المسموح.' },

  // Rate limits (common/rate-budget.ts and the documents' own wording).
  'rate.too_many_attempts': { en: 'Too Many Attempts.', ar: 'محاولات كثيرة جداً. أعد المحاولة لاحقاً.' },
  'rate.limit': {
    en: 'Too many requests: the limit is {quota} a minute per {per}, each root field of an operation counting as one. Retry in {wait} seconds.',
    ar: 'طلبات كثيرة جداً: الحد {quota} طلباً في الدقيقة لكل {per}، ويُحسب كل حقل جذري في العملية طلباً. أعد المحاولة بعد {wait} ثانية.',
  },
  'auth.malformed': {
    en: 'Unauthenticated: the Authorization header must be "Bearer" followed by one key or session token.',
    ar: 'غير مصادق: يجب أن تحوي الترويسة Authorization كلمة "Bearer" يتبعها مفتاح واحد أو رمز جلسة واحد.',
  },
  'rate.limit_window': {
    en: 'Too many requests: the limit is {quota} in {minutes} minutes per {per}, each root field of an operation counting as one. Retry in {wait} seconds.',
    ar: 'طلبات كثيرة جداً: الحد {quota} طلباً في {minutes} دقائق لكل {per}، ويُحسب كل حقل جذري في العملية طلباً. أعد المحاولة بعد {wait} ثانية.',
  },
  'rate.per.tickets': { en: 'key', ar: 'مفتاح' },
  'rate.per.cv': { en: 'account', ar: 'حساب' },
  'rate.per.cv-exports': { en: 'account for exports', ar: 'حساب للتصدير' },
  'rate.per.people': { en: 'signed-in person', ar: 'مستخدم مسجّل الدخول' },
  'rate.per.boards': { en: 'board device', ar: 'جهاز لوحة' },
  'rate.per.board-sync': {
    en: 'board device for changes made offline (occurredAt)',
    ar: 'جهاز لوحة للتغييرات التي جرت دون اتصال (occurredAt)',
  },
  'rate.per.public': { en: 'client address', ar: 'عنوان' },
  'rate.per.public-writes': { en: 'client address for writes', ar: 'عنوان للكتابة' },

  // The CV service (cv-api.md localises by Accept-Language).
  'cv.unauthenticated': {
    en: 'Unauthenticated.',
    ar: 'غير مصادق. أرسل مفتاح API صالحاً في الترويسة X-API-Key.',
  },
  'cv.api_keys_cap': {
    en: 'This account has {max} keys not revoked, the most an account may have: revoke one to issue another.',
    ar: 'لدى هذا الحساب {max} مفتاحاً غير ملغى، وهو الحد الأقصى للحساب: ألغِ مفتاحاً لإصدار آخر.',
  },
  'cv.not_found': { en: 'CV not found.', ar: 'السيرة الذاتية غير موجودة.' },
  'cv.not_yours': { en: 'This CV belongs to another account.', ar: 'هذه السيرة الذاتية تخص حساباً آخر.' },
  'cv.limit': {
    en: 'Your plan allows {max} CVs. Delete one or upgrade your plan to create another.',
    ar: 'تسمح خطتك بـ {max} من السير الذاتية. احذف واحدة أو رقِّ خطتك لإنشاء أخرى.',
  },
  'cv.premium_template': {
    en: 'This template needs a plan with premium templates.',
    ar: 'هذا القالب يتطلب خطة تتضمن القوالب المميزة.',
  },
  'cv.copy_suffix': { en: ' (copy)', ar: ' (نسخة)' },
  'cv.imported_title': { en: 'Imported CV', ar: 'سيرة ذاتية مستوردة' },
  'cv.template_not_found': { en: 'Template not found.', ar: 'القالب غير موجود.' },
  'cv.template_id_fixed': {
    en: 'The template id field cannot change here; use {route}.',
    ar: 'لا يمكن تغيير حقل template id هنا؛ استخدم {route}.',
  },
  'cv.downloads_per_month': {
    en: 'Your plan allows {max} downloads a month. Upgrade your plan to download more.',
    ar: 'تسمح خطتك بـ {max} من التنزيلات شهرياً. رقِّ خطتك لتنزيل المزيد.',
  },
  'cv.exports_per_minute': {
    en: 'Too many exports: at most {max} a minute.',
    ar: 'عدد كبير من التصديرات: {max} في الدقيقة على الأكثر.',
  },
  'cv.photo_one_file': {
    en: 'Send one file, in the multipart field photo.',
    ar: 'أرسل ملفاً واحداً في حقل multipart المسمى photo.',
  },
  'cv.photo_malformed': {
    en: 'The photo upload is malformed: {reason}.',
    ar: 'رفع الصورة غير سليم: {reason}.',
  },

  // Webhook endpoints and deliveries (subgraphs/tickets/events/webhook-endpoint.service.ts).
  'webhook.endpoint_not_found': {
    en: 'Webhook endpoint {id} not found.',
    ar: 'نقطة استقبال الويب هوك {id} غير موجودة.',
  },
  'webhook.delivery_not_found': {
    en: 'Webhook delivery {id} not found.',
    ar: 'عملية تسليم الويب هوك {id} غير موجودة.',
  },
  'webhook.endpoint_deleted': {
    en: 'Its webhook endpoint was deleted.',
    ar: 'حُذفت نقطة استقبال الويب هوك الخاصة بها.',
  },
  'webhook.endpoints_cap': {
    en: 'This venue has {max} webhook endpoints, the most a venue may have: delete one it no longer uses first.',
    ar: 'بلغ هذا المكان الحد الأقصى لعدد نقاط استقبال الويب هوك ({max})؛ احذف أولاً نقطة لم تعد مستخدمة.',
  },
  'webhook.still_delivering': {
    en: 'Webhook delivery {id} is still being delivered.',
    ar: 'عملية تسليم الويب هوك {id} ما زالت قيد الإرسال.',
  },

  // CV accounts of signed-in people and their download links (subgraphs/cv/).
  'cv.account_missing': {
    en: 'You have no CV account yet. Create one with createCvAccount.',
    ar: 'ليس لديك حساب للسير الذاتية بعد. أنشئ واحداً بـ createCvAccount.',
  },
  'cv.account_exists': { en: 'You already have a CV account.', ar: 'لديك حساب للسير الذاتية بالفعل.' },
  'cv.account_not_found': { en: 'Account not found.', ar: 'الحساب غير موجود.' },
  'cv.account_key_not_found': { en: 'API key not found.', ar: 'مفتاح API غير موجود.' },
  'cv.audit_needs_owner': {
    en: 'Only the account’s owner, signed in, reads its audit log.',
    ar: 'لا يقرأ سجل تغييرات الحساب إلا مالكه بعد تسجيل الدخول.',
  },
  'cv.keys_need_owner': {
    en: 'Only the account’s owner, signed in, manages its API keys.',
    ar: 'لا يدير مفاتيح API للحساب إلا مالكه بعد تسجيل الدخول.',
  },
  'cv.export_link_invalid': {
    en: 'This download link is not valid.',
    ar: 'رابط التنزيل هذا غير صالح.',
  },
  'cv.export_link_expired': {
    en: 'This download link has expired; ask for a new one.',
    ar: 'انتهت صلاحية رابط التنزيل هذا؛ اطلب رابطاً جديداً.',
  },

  // Tickets: what a customer and a venue read (status texts, SMS, push).
  'ticket.status.waiting': { en: 'Waiting', ar: 'قيد الانتظار' },
  'ticket.status.ready': { en: 'Ready', ar: 'جاهز' },
  'ticket.status.collected': { en: 'Collected', ar: 'تم الاستلام' },
  'ticket.status.cancelled': { en: 'Cancelled', ar: 'ملغى' },
  'ticket.source.api': { en: 'API', ar: 'واجهة برمجية' },
  'ticket.source.cashier': { en: 'Cashier', ar: 'الكاشير' },
  'ticket.source.kiosk': { en: 'Kiosk', ar: 'كشك الخدمة الذاتية' },
  'ticket.cannot_ready': {
    en: 'A {status} ticket cannot be marked ready.',
    ar: 'لا يمكن تعليم تذكرة حالتها {status} بأنها جاهزة.',
  },
  'ticket.cannot_collected': {
    en: 'A {status} ticket cannot be marked collected.',
    ar: 'لا يمكن تعليم تذكرة حالتها {status} بأنها مستلمة.',
  },
  'ticket.cannot_cancel': {
    en: 'A {status} ticket cannot be cancelled.',
    ar: 'لا يمكن إلغاء تذكرة حالتها {status}.',
  },
  'ticket.ring_not_ready': {
    en: 'Only a ready ticket can be rung; this one is {status}.',
    ar: 'لا يُنبَّه إلا لتذكرة جاهزة؛ حالة هذه {status}.',
  },
  'ticket.id_or_external_id': {
    en: 'Give either id or externalId.',
    ar: 'أرسل id أو externalId، وليس كليهما.',
  },
  'ticket.idempotency_key_length': {
    en: 'The Idempotency-Key header must be between 1 and {max} characters.',
    ar: 'يجب أن يكون طول الترويسة Idempotency-Key بين 1 و {max} حرفاً.',
  },
  'ticket.number_taken': {
    en: 'The number has already been taken by an open ticket of this branch.',
    ar: 'هذا الرقم مستخدم من قبل لتذكرة مفتوحة في هذا الفرع.',
  },
  'ticket.occurred_at_past': {
    en: 'The occurredAt must be within the last {hours} hours: a change older than that is not taken.',
    ar: 'يجب أن يكون occurredAt خلال آخر {hours} ساعة: لا يُقبل تغيير أقدم من ذلك.',
  },
  'ticket.occurred_at_future': {
    en: 'The occurredAt must not be later than now: a clock up to {seconds} seconds ahead is taken as now, this one is further.',
    ar: 'يجب ألا يكون occurredAt بعد الآن: تُعدّ ساعة متقدمة حتى {seconds} ثانية كأنها الآن، وهذه متقدمة أكثر.',
  },
  'ticket.leased_numbers_cap': {
    en: 'The caller has leased {max} numbers at this branch today, the most one device, key or person may lease in a venue day: use the numbers it holds.',
    ar: 'حجز هذا الطالب {max} رقماً في هذا الفرع اليوم، وهو الحد الأقصى لجهاز أو مفتاح أو شخص في يوم المكان: استخدم الأرقام المحجوزة لديه.',
  },
  'ticket.sms_off': { en: 'This venue does not send text messages.', ar: 'هذا المكان لا يرسل رسائل نصية.' },
  'ticket.sms_too_late': {
    en: 'The order is already {status}; there is nothing left to text.',
    ar: 'حالة الطلب {status} بالفعل؛ لم يبقَ ما يُرسَل عنه.',
  },
  'ticket.no_longer_waiting': { en: 'The order is no longer waiting.', ar: 'لم يعد الطلب قيد الانتظار.' },
  // WhatsApp (issue 55): the customer's prefilled message, and the venue's switch refused.
  'whatsapp.prefilled': {
    en: 'Notify me when order {number} is ready. Code: {code}',
    ar: 'أبلغوني عندما يجهز الطلب {number}. الرمز: {code}',
  },
  'whatsapp.platform_off': {
    en: 'WhatsApp is not available on this platform yet; the venue cannot turn it on.',
    ar: 'واتساب غير متاح على هذه المنصة بعد؛ لا يمكن للمكان تفعيله.',
  },
  'whatsapp.plan': {
    en: 'Your plan does not include WhatsApp alerts. Upgrade to Growth or above.',
    ar: 'خطتك لا تشمل تنبيهات واتساب. رقِّ خطتك إلى Growth أو أعلى.',
  },
  'push.off': {
    en: 'This service does not send push notifications.',
    ar: 'هذه الخدمة لا ترسل إشعارات فورية.',
  },
  'push.p256dh': {
    en: 'The p256dh key must be an uncompressed P-256 public key in base64url.',
    ar: 'يجب أن يكون مفتاح p256dh مفتاحاً عاماً غير مضغوط من نوع P-256 بترميز base64url.',
  },
  'push.auth': {
    en: 'The auth secret must be 16 bytes in base64url.',
    ar: 'يجب أن يكون سر auth بطول 16 بايت بترميز base64url.',
  },
  'push.too_late': {
    en: 'The order is {status}; there is nothing left to notify.',
    ar: 'حالة الطلب {status}؛ لم يبقَ ما يُنبَّه عنه.',
  },
  'push.too_many': {
    en: 'A ticket takes at most {max} push subscriptions.',
    ar: 'تقبل التذكرة {max} اشتراكات إشعارات على الأكثر.',
  },
  'feedback.rating': {
    en: 'The rating must be 1, 2, 3, 4 or 5.',
    ar: 'يجب أن يكون التقييم 1 أو 2 أو 3 أو 4 أو 5.',
  },
  'feedback.comment_too_long': {
    en: 'The comment must not be greater than {max} characters.',
    ar: 'يجب ألا يزيد طول التعليق عن {max} حرفاً.',
  },
  'feedback.not_collected': {
    en: 'Feedback opens once the order is collected; it is {status}.',
    ar: 'يُتاح التقييم بعد استلام الطلب؛ حالته الآن {status}.',
  },
  'venue.not_found': { en: 'Venue not found.', ar: 'المكان غير موجود.' },
  'venue.branch_not_found': { en: 'Branch not found.', ar: 'الفرع غير موجود.' },
  'range.order': {
    en: 'to must be after from.',
    ar: 'يجب أن يكون to بعد from.',
  },
  'insights.too_many_buckets': {
    en: 'This range holds {asked} buckets of this size; ask for at most {max} at once.',
    ar: 'يضم هذا المدى {asked} فترة بهذا الحجم؛ اطلب {max} فترة على الأكثر في المرة الواحدة.',
  },
  'exports.range_too_long': {
    en: 'An export covers at most {max} days; this range is {days} days long.',
    ar: 'يغطي التصدير {max} يوماً على الأكثر؛ وطول هذا المدى {days} يوماً.',
  },
  'exports.link_invalid': {
    en: 'This download link is not valid.',
    ar: 'رابط التنزيل هذا غير صالح.',
  },
  'exports.link_expired': {
    en: 'This download link has expired; ask for a new one.',
    ar: 'انتهت صلاحية رابط التنزيل هذا؛ اطلب رابطاً جديداً.',
  },
  'exports.busy': {
    en: 'Too many exports are running; try again in a few seconds.',
    ar: 'تجري الآن عمليات تصدير كثيرة؛ حاول مجدداً بعد ثوانٍ.',
  },
  'venue.key_not_found': { en: 'API key not found.', ar: 'مفتاح API غير موجود.' },
  'venue.key_is_board_device': {
    en: 'This id is a board device’s, not an API key’s: revoke it with revokeBoardDevice.',
    ar: 'هذا المعرّف لجهاز لوحة وليس لمفتاح API: ألغِه باستخدام revokeBoardDevice.',
  },
  'venue.member_not_found': { en: 'Member not found.', ar: 'العضو غير موجود.' },
  'venue.last_owner': {
    en: 'A venue keeps at least one owner.',
    ar: 'يجب أن يبقى للمكان مالك واحد على الأقل.',
  },
  'venue.invitation_other_email': {
    en: 'This invitation was sent to another email address.',
    ar: 'أُرسلت هذه الدعوة إلى بريد إلكتروني آخر.',
  },
  'venue.branches_cap': {
    en: 'This venue has {max} branches, the most a venue may have.',
    ar: 'بلغ هذا المكان الحد الأقصى لعدد الفروع ({max}).',
  },
  'venue.person_venues_cap': {
    en: 'You belong to {max} venues, the most one person may: leave one to create or join another.',
    ar: 'أنت عضو في {max} أماكن، وهو الحد الأقصى للشخص الواحد: غادر أحدها لتنشئ مكاناً آخر أو تنضم إليه.',
  },
  'venue.members_cap': {
    en: 'This venue has {max} members and pending invitations, the most a venue may have: remove a member, or wait for an invitation to expire.',
    ar: 'بلغ هذا المكان الحد الأقصى لعدد الأعضاء والدعوات المعلّقة ({max})؛ أزل عضواً أو انتظر انتهاء صلاحية إحدى الدعوات.',
  },
  'venue.api_keys_cap': {
    en: 'This venue has {max} active API keys, the most a venue may have: revoke one it no longer uses first.',
    ar: 'بلغ هذا المكان الحد الأقصى لعدد مفاتيح API الفعّالة ({max})؛ ألغِ أولاً مفتاحاً لم يعد مستخدماً.',
  },
  'venue.role.OWNER': { en: 'owner', ar: 'مالك' },
  'venue.role.MANAGER': { en: 'manager', ar: 'مدير' },
  'venue.role.STAFF': { en: 'staff', ar: 'موظف' },
  'board.page.title': { en: 'Staff board', ar: 'لوحة الطلبات' },
  'board.page.waiting': { en: 'Waiting', ar: 'قيد التحضير' },
  'board.page.ready': { en: 'Ready', ar: 'جاهز' },
  'board.page.new_ticket': { en: 'New ticket', ar: 'طلب جديد' },
  'board.page.number': { en: 'Number (blank for the next)', ar: 'الرقم (اتركه فارغاً للرقم التالي)' },
  'board.page.customer_name': { en: 'Name (optional)', ar: 'الاسم (اختياري)' },
  'board.page.customer_phone': { en: 'Phone (optional)', ar: 'الهاتف (اختياري)' },
  'board.page.mark_ready': { en: 'Ready', ar: 'جاهز' },
  'board.page.ring': { en: 'Ring', ar: 'تنبيه' },
  'board.page.ring_in': { en: 'Ring in {seconds}s', ar: 'تنبيه بعد {seconds} ث' },
  'board.page.collected': { en: 'Collected', ar: 'استُلم' },
  'board.page.cancel': { en: 'Cancel', ar: 'إلغاء' },
  'board.page.confirm_cancel': { en: 'Cancel order {number}?', ar: 'هل تريد إلغاء الطلب {number}؟' },
  'board.page.undo': { en: 'Undo ({seconds})', ar: 'تراجع ({seconds})' },
  'board.page.search': { en: 'Search by number', ar: 'ابحث بالرقم' },
  'board.page.waited': { en: '{minutes} min', ar: '{minutes} د' },
  'board.page.wait_waiting': { en: 'Waiting now', ar: 'بالانتظار الآن' },
  'board.page.wait_median': { en: 'Median wait, last hour', ar: 'وسيط الانتظار في آخر ساعة' },
  'board.page.wait_oldest': { en: 'Oldest waiting', ar: 'أقدم طلب منتظر' },
  'board.page.offline': {
    en: 'Offline — reconnecting. Changes are kept and sent when the line is back.',
    ar: 'غير متصل — تتم إعادة الاتصال. تُحفظ التغييرات وتُرسل عند عودة الاتصال.',
  },
  'board.page.confirmed_at': { en: 'Last confirmed at {time}', ar: 'آخر تأكيد في {time}' },
  'board.page.pending': {
    en: 'Changes waiting to be sent: {count}',
    ar: 'تغييرات بانتظار الإرسال: {count}',
  },
  'board.page.conflict_count': { en: 'Not applied: {count}', ar: 'لم يُطبَّق: {count}' },
  'board.page.dismiss': { en: 'Dismiss', ar: 'إخفاء' },
  'board.page.conflict_cancelled': {
    en: 'Order {number} was cancelled elsewhere while this board was offline',
    ar: 'أُلغي الطلب {number} من مكان آخر أثناء انقطاع اللوحة',
  },
  'board.page.conflict_collected': {
    en: 'Order {number} was already collected elsewhere while this board was offline',
    ar: 'استُلم الطلب {number} من مكان آخر أثناء انقطاع اللوحة',
  },
  'board.page.conflict_refused': {
    en: 'Order {number}: a change made offline was not applied ({reason})',
    ar: 'الطلب {number}: لم يُطبَّق تغيير أُجري دون اتصال ({reason})',
  },
  'board.page.conflict_create': {
    en: 'Order {number}, made offline, could not be created ({reason})',
    ar: 'تعذّر إنشاء الطلب {number} الذي أُدخل دون اتصال ({reason})',
  },
  'board.page.conflict_not_created': {
    en: 'Order {number} was never created, so a later change to it was not applied',
    ar: 'لم يُنشأ الطلب {number}، فلم يُطبَّق تغيير لاحق عليه',
  },
  'board.page.ring_stale': {
    en: 'Order {number} was not rung again: the ring was over two minutes old when the line came back',
    ar: 'لم يُرسل تنبيه الطلب {number}: مضى عليه أكثر من دقيقتين عند عودة الاتصال',
  },
  'board.page.ring_not_ready': {
    en: 'Order {number} was not rung again: it is no longer ready',
    ar: 'لم يُرسل تنبيه الطلب {number}: لم يعد جاهزاً',
  },
  'board.page.dropped_changes': {
    en: 'This board was removed. Changes made offline and not applied: {count}',
    ar: 'أُزيلت هذه اللوحة: لم تُطبَّق تغييرات أُجريت دون اتصال عددها {count}',
  },
  'board.page.no_numbers': {
    en: 'No numbers left for orders made offline: type a number',
    ar: 'لا أرقام متبقية للطلبات دون اتصال: اكتب رقماً',
  },
  'board.page.prefix_numbers': {
    en: 'The reserved numbers ran out: this order takes {number}',
    ar: 'نفدت الأرقام المحجوزة: يأخذ هذا الطلب الرقم {number}',
  },
  'board.page.refused_offline': {
    en: 'Not sent: the board is offline. Try again when it reconnects.',
    ar: 'لم يُرسل: اللوحة غير متصلة. أعد المحاولة بعد عودة الاتصال.',
  },
  'board.page.pair_code': { en: 'Pairing code', ar: 'رمز الإقران' },
  'board.page.pair': { en: 'Pair this tablet', ar: 'إقران هذا الجهاز' },
  'board.page.or_sign_in': { en: 'Or sign in as a member of the venue', ar: 'أو سجّل الدخول كعضو في المكان' },
  'board.page.email': { en: 'Email', ar: 'البريد الإلكتروني' },
  'board.page.password': { en: 'Password', ar: 'كلمة المرور' },
  'board.page.sign_in': { en: 'Sign in', ar: 'تسجيل الدخول' },
  'board.page.branch': { en: 'Branch', ar: 'الفرع' },
  'board.page.open': { en: 'Open the board', ar: 'افتح اللوحة' },
  'board.page.removed': {
    en: 'This board was removed. Pair it again or sign in.',
    ar: 'أُزيلت هذه اللوحة. أعد إقرانها أو سجّل الدخول.',
  },
  'board.page.leave': { en: 'Leave this board', ar: 'الخروج من اللوحة' },
  'board.page.empty': { en: 'No orders', ar: 'لا توجد طلبات' },
  'board.page.no_branches': {
    en: 'You are not a member of any venue with a branch.',
    ar: 'لست عضواً في أي مكان لديه فرع.',
  },
  'display.page.preparing': { en: 'Preparing', ar: 'قيد التحضير' },
  'display.page.ready': { en: 'Ready', ar: 'جاهز' },
  'display.page.call': { en: 'Order number {number} is ready', ar: 'الطلب رقم {number} جاهز' },
  'display.page.tap_for_sound': { en: 'Tap here to turn the sound on', ar: 'اضغط هنا لتشغيل الصوت' },
  'display.page.offline': { en: 'Offline — reconnecting', ar: 'غير متصل — تتم إعادة الاتصال' },
  'display.page.gone': {
    en: 'This display was removed. Ask a manager for a new link.',
    ar: 'أُزيلت هذه الشاشة. اطلب رابطاً جديداً من المدير.',
  },
  'board.pairing_invalid': {
    en: 'This pairing code is wrong, already used or expired. Ask a manager for a new one.',
    ar: 'رمز الإقران هذا خاطئ أو مستخدم أو منتهي الصلاحية. اطلب رمزاً جديداً من المدير.',
  },
  'board.device_not_found': { en: 'Board device not found.', ar: 'جهاز اللوحة غير موجود.' },
  'board.devices_cap': {
    en: 'This venue has {max} board devices, the most a venue may have: revoke one it no longer uses first.',
    ar: 'بلغ هذا المكان الحد الأقصى لعدد أجهزة اللوحة ({max})؛ ألغِ أولاً جهازاً لم يعد مستخدماً.',
  },
  'board.displays_cap': {
    en: 'This venue has {max} displays, the most a venue may have: revoke one it no longer uses first.',
    ar: 'بلغ هذا المكان الحد الأقصى لعدد الشاشات ({max})؛ ألغِ أولاً شاشة لم تعد مستخدمة.',
  },
  'board.number_prefix_format': {
    en: 'The number prefix must be 1 to 3 capital Latin letters (A to Z), or empty to clear it.',
    ar: 'يجب أن تكون بادئة الأرقام من حرف إلى 3 أحرف لاتينية كبيرة (A إلى Z)، أو فارغة لحذفها.',
  },
  'board.number_prefix_taken': {
    en: 'The number prefix {prefix} is already used by another board device of this branch.',
    ar: 'بادئة الأرقام {prefix} مستخدمة من قبل لجهاز لوحة آخر في هذا الفرع.',
  },
  'board.display_not_found': { en: 'Display not found.', ar: 'الشاشة غير موجودة.' },
  'venue.role_forbidden': {
    en: 'Your role at this venue ({role}) does not allow this.',
    ar: 'دورك في هذا المكان ({role}) لا يسمح بهذا.',
  },
  'ticket.sms_ready': {
    en: 'Your order {number} is ready at {venue}. Please collect it.',
    ar: 'طلبك رقم {number} جاهز في {venue}. تفضل بالاستلام.',
  },
  'ticket.push_reminder': {
    en: 'Reminder: your order {number} is ready. Please collect it.',
    ar: 'تذكير: طلبك رقم {number} جاهز. تفضل بالاستلام.',
  },
  // WhatsApp messages to the customer's chat (subgraphs/tickets/events/whatsapp-text.ts).
  'whatsapp.ring': {
    en: 'Reminder: your order {number} is ready at {venue}. Please collect it.',
    ar: 'تذكير: طلبك رقم {number} جاهز في {venue}. تفضل بالاستلام.',
  },
  'whatsapp.confirm': {
    en: 'Thank you! We will message you here when your order {number} at {venue} is ready.',
    ar: 'شكراً! سنرسل لك رسالة هنا عندما يجهز طلبك رقم {number} في {venue}.',
  },
  'whatsapp.help': {
    en: 'To be told here when your order is ready, send the code printed on your receipt.',
    ar: 'لنبلغك هنا عندما يجهز طلبك، أرسل الرمز المطبوع على إيصالك.',
  },
  'whatsapp.stop': {
    en: 'Done: you will get no more messages about your orders here.',
    ar: 'تم: لن تصلك رسائل أخرى عن طلباتك هنا.',
  },

  // People: sign-up, sign-in and sessions (subgraphs/identity).
  'identity.password_common': {
    en: 'The {field} is too common; choose one that is harder to guess.',
    ar: 'حقل {field} شائع جداً؛ اختر كلمة مرور يصعب تخمينها.',
  },
  'identity.sign_in_failed': {
    en: 'The email or password is incorrect.',
    ar: 'البريد الإلكتروني أو كلمة المرور غير صحيحة.',
  },
  'identity.sign_in_required': { en: 'Sign in first.', ar: 'سجّل الدخول أولاً.' },
  'identity.token_invalid': {
    en: 'This link is invalid, already used or expired.',
    ar: 'هذا الرابط غير صالح أو مستخدم من قبل أو منتهي الصلاحية.',
  },
  'identity.current_password_wrong': {
    en: 'The current password is incorrect.',
    ar: 'كلمة المرور الحالية غير صحيحة.',
  },
  'identity.user_not_found': { en: 'User not found.', ar: 'المستخدم غير موجود.' },
  'identity.session_not_found': { en: 'Session not found.', ar: 'الجلسة غير موجودة.' },
  'identity.too_many_sign_ins': {
    en: 'Too many failed sign-ins. Retry in {wait} seconds.',
    ar: 'محاولات دخول فاشلة كثيرة. أعد المحاولة بعد {wait} ثانية.',
  },
  'identity.too_many_sign_ups': {
    en: 'Too many sign-ups from this address. Retry in {wait} seconds.',
    ar: 'عمليات تسجيل كثيرة من هذا العنوان. أعد المحاولة بعد {wait} ثانية.',
  },

  // Mail to people (common/mail.ts): subjects and bodies, in the reader's language.
  'mail.verify.subject': { en: 'Confirm your email address', ar: 'أكّد عنوان بريدك الإلكتروني' },
  'mail.verify.body': {
    en: 'Hello {name},\n\nTo confirm your email address, open this link:\n\n{url}\n\nThe link expires in one hour. If you did not create an account, you can ignore this email.',
    ar: 'مرحباً {name}،\n\nلتأكيد عنوان بريدك الإلكتروني، افتح هذا الرابط:\n\n{url}\n\nتنتهي صلاحية الرابط بعد ساعة واحدة. إذا لم تُنشئ حساباً، فيمكنك تجاهل هذه الرسالة.',
  },
  'mail.reset.subject': { en: 'Reset your password', ar: 'إعادة تعيين كلمة المرور' },
  'mail.reset.body': {
    en: 'Hello {name},\n\nWe received a request to reset your password. To choose a new one, open this link:\n\n{url}\n\nThe link expires in one hour. If you did not ask for this, you can ignore this email; your password stays as it is.',
    ar: 'مرحباً {name}،\n\nتلقّينا طلباً لإعادة تعيين كلمة المرور الخاصة بك. لاختيار كلمة مرور جديدة، افتح هذا الرابط:\n\n{url}\n\nتنتهي صلاحية الرابط بعد ساعة واحدة. إذا لم تطلب ذلك، فيمكنك تجاهل هذه الرسالة وستبقى كلمة المرور كما هي.',
  },
  'mail.invite.subject': { en: '{inviter} invited you to {venue}', ar: 'دعاك {inviter} إلى {venue}' },
  'mail.invite.body': {
    en: 'Hello,\n\n{inviter} invited you to join {venue} as {role}. To accept the invitation, open this link:\n\n{url}\n\nThe invitation expires in seven days. If you did not expect it, you can ignore this email.',
    ar: 'مرحباً،\n\nدعاك {inviter} للانضمام إلى {venue} بصفة {role}. لقبول الدعوة، افتح هذا الرابط:\n\n{url}\n\nتنتهي صلاحية الدعوة بعد سبعة أيام. إذا لم تكن تتوقعها، فيمكنك تجاهل هذه الرسالة.',
  },

  // The ticket page (rest-adapter/public/ticket-page.html.ts).
  'page.ticket.your_number': { en: 'Your number', ar: 'رقم طلبك' },
  'page.ticket.title': { en: 'Order {number}', ar: 'طلبك رقم {number}' },
  'page.ticket.hint.waiting': {
    en: 'Your order is being prepared. We will alert you here when it is ready.',
    ar: 'طلبك قيد التحضير. سننبهك هنا عندما يصبح جاهزاً.',
  },
  'page.ticket.hint.ready': {
    en: 'Your order is ready. Please collect it.',
    ar: 'طلبك جاهز. تفضل بالاستلام.',
  },
  'page.ticket.hint.collected': { en: 'Enjoy your meal!', ar: 'بالعافية!' },
  'page.ticket.hint.cancelled': { en: 'This order was cancelled.', ar: 'أُلغي هذا الطلب.' },
  'page.ticket.ordered': { en: 'Ordered at', ar: 'وقت الطلب' },
  'page.ticket.ready_at': { en: 'Ready at', ar: 'جاهز منذ' },
  'page.ticket.alerts': { en: 'Tap to enable alerts', ar: 'اضغط لتفعيل التنبيهات' },
  'page.ticket.alerts_on': { en: 'Alerts on', ar: 'التنبيهات مفعلة' },
  'page.ticket.sms': { en: 'Text me when it is ready', ar: 'أرسل لي رسالة نصية عندما يجهز' },
  'page.ticket.sms_placeholder': { en: '07XX XXX XXXX', ar: '07XX XXX XXXX' },
  'page.ticket.sms_done': {
    en: 'We will text you when your order is ready.',
    ar: 'سنرسل لك رسالة عندما يجهز طلبك.',
  },
  'page.ticket.send': { en: 'Send', ar: 'إرسال' },
  'page.ticket.whatsapp': { en: 'Notify me on WhatsApp', ar: 'أبلغني عبر واتساب' },
  'page.ticket.whatsapp_linked': {
    en: 'You’ll be told on WhatsApp when it’s ready',
    ar: 'سنبلغك عبر واتساب عندما يجهز طلبك',
  },
  'page.ticket.rate': { en: 'Rate your order', ar: 'قيّم طلبك' },
  'page.ticket.comment': { en: 'Comment (optional)', ar: 'تعليق (اختياري)' },
  'page.ticket.thanks': { en: 'Thank you for your rating!', ar: 'شكراً لتقييمك!' },
  // The estimate's words by the plural the minutes take in Arabic (1, 2, 3 to 10, 11 and more).
  'page.ticket.estimate.one': {
    en: 'Usually ready in about a minute',
    ar: 'جاهز عادةً خلال دقيقة تقريبًا',
  },
  'page.ticket.estimate.two': {
    en: 'Usually ready in about 2 minutes',
    ar: 'جاهز عادةً خلال دقيقتين تقريبًا',
  },
  'page.ticket.estimate.few': {
    en: 'Usually ready in about {minutes} minutes',
    ar: 'جاهز عادةً خلال {minutes} دقائق تقريبًا',
  },
  'page.ticket.estimate.many': {
    en: 'Usually ready in about {minutes} minutes',
    ar: 'جاهز عادةً خلال {minutes} دقيقة تقريبًا',
  },
  'page.ticket.offline': { en: 'Connection lost. Reconnecting…', ar: 'انقطع الاتصال. جارٍ إعادة الاتصال…' },
  'page.ticket.not_found': {
    en: 'This ticket was not found. Check the code on your receipt.',
    ar: 'لم نجد هذه التذكرة. تأكد من الرمز على الإيصال.',
  },
  'page.ticket.rating': { en: '{n} of 5', ar: '{n} من 5' },

  // Words a CV document prints that are not its author's (subgraphs/cv/render/format.ts).
  'cv.label.section.experience': { en: 'Experience', ar: 'الخبرة العملية' },
  'cv.label.section.education': { en: 'Education', ar: 'التعليم' },
  'cv.label.section.skills': { en: 'Skills', ar: 'المهارات' },
  'cv.label.section.languages': { en: 'Languages', ar: 'اللغات' },
  'cv.label.section.certifications': { en: 'Certifications', ar: 'الشهادات' },
  'cv.label.section.projects': { en: 'Projects', ar: 'المشاريع' },
  'cv.label.section.awards': { en: 'Awards', ar: 'الجوائز' },
  'cv.label.section.volunteers': { en: 'Volunteering', ar: 'العمل التطوعي' },
  'cv.label.section.references': { en: 'References', ar: 'المراجع' },
  'cv.label.section.tasks': { en: 'Tasks', ar: 'المهام' },
  'cv.label.section.expertise': { en: 'Expertise', ar: 'مجالات الخبرة' },
  'cv.label.summary': { en: 'Profile', ar: 'نبذة مختصرة' },
  'cv.label.contact': { en: 'Contact', ar: 'معلومات التواصل' },
  'cv.label.email': { en: 'Email', ar: 'البريد الإلكتروني' },
  'cv.label.phone': { en: 'Phone', ar: 'الهاتف' },
  'cv.label.website': { en: 'Website', ar: 'الموقع' },
  'cv.label.address': { en: 'Address', ar: 'العنوان' },
  'cv.label.nationality': { en: 'Nationality', ar: 'الجنسية' },
  'cv.label.birth_date': { en: 'Date of birth', ar: 'تاريخ الميلاد' },
  'cv.label.present': { en: 'Present', ar: 'حتى الآن' },
  'cv.label.gpa': { en: 'GPA', ar: 'المعدل' },
  'cv.label.watermark': { en: 'Free plan', ar: 'الخطة المجانية' },
} as const satisfies Record<string, Record<TextLanguage, string>>;
