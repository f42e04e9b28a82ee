import type { HttpError } from '../http-errors';

/**
 * cv-api.md localises messages by `Accept-Language`. The graph and the adapter word every error
 * in Laravel's English; these are the Arabic sentences of Laravel's `ar` language pack for the
 * same rules, matched on the English wording so no producer needs to know about languages. The
 * field's name stays as the client sent it, as Laravel shows an attribute without a translation.
 * A message matching no rule stays English rather than being guessed.
 */
const ARABIC: [RegExp, string][] = [
  [/^The (.+) field is required\.$/, 'حقل $1 مطلوب.'],
  [/^The (.+) field must be a string\.$/, 'يجب أن يكون حقل $1 نصاً.'],
  [/^The (.+) field must be an integer\.$/, 'يجب أن يكون حقل $1 عدداً صحيحاً.'],
  [/^The (.+) field must be true or false\.$/, 'يجب أن تكون قيمة حقل $1 إما true أو false.'],
  [/^The (.+) field must be an array\.$/, 'يجب أن يكون حقل $1 مصفوفة.'],
  [/^The (.+) field must be an object\.$/, 'يجب أن يكون حقل $1 كائناً.'],
  [/^The (.+) field must not be greater than (\d+) characters\.$/, 'يجب ألا يزيد طول حقل $1 عن $2 حرفاً.'],
  [/^The (.+) field must not be greater than (\d+) kilobytes\.$/, 'يجب ألا يزيد حجم حقل $1 عن $2 كيلوبايت.'],
  [/^The (.+) field must not have more than (\d+) items\.$/, 'يجب ألا يحتوي حقل $1 على أكثر من $2 عنصراً.'],
  [/^The (.+) field must be at least (\d+) characters\.$/, 'يجب أن يكون طول حقل $1 على الأقل $2 حرفاً.'],
  [/^The selected (.+) is invalid\.$/, 'قيمة حقل $1 المختارة غير صالحة.'],
  [/^The (.+) field is not allowed\.$/, 'حقل $1 غير مسموح به.'],
  [/^The (.+) field must be a valid email address\.$/, 'يجب أن يكون حقل $1 عنوان بريد إلكتروني صالحاً.'],
  [
    /^The (.+) field must be a valid URL starting with http:\/\/ or https:\/\/\.$/,
    'يجب أن يكون حقل $1 رابطاً صالحاً يبدأ بـ http:// أو https://.',
  ],
  [/^The (.+) field must match the format (.+)\.$/, 'يجب أن يطابق حقل $1 الصيغة $2.'],
  [/^The (.+) field must be a valid date\.$/, 'يجب أن يكون حقل $1 تاريخاً صالحاً.'],
  [/^The (.+) field must be a valid hexadecimal color\.$/, 'يجب أن يكون حقل $1 لوناً ست عشرياً صالحاً.'],
  [/^The (.+) field is prohibited when (.+) is (.+)\.$/, 'حقل $1 ممنوع عندما تكون قيمة $2 هي $3.'],
  [
    /^The (.+) field must be a date after or equal to (.+)\.$/,
    'يجب أن يكون حقل $1 تاريخاً لاحقاً لـ $2 أو مساوياً له.',
  ],
  [/^The (.+) field must not be a built-in section key\.$/, 'يجب ألا يكون حقل $1 مفتاح قسم مدمج.'],
  [/^The (.+) field has a duplicate value\.$/, 'حقل $1 يحتوي على قيمة مكررة.'],
  [
    /^The (.+) field must be lower-case letters, digits, dashes and underscores\.$/,
    'يجب أن يتكون حقل $1 من أحرف لاتينية صغيرة وأرقام وشرطات وشرطات سفلية فقط.',
  ],
  [/^The (.+) field must be a file of type: (.+)\.$/, 'يجب أن يكون حقل $1 ملفاً من نوع: $2.'],
  [/^The (.+) field must be an image\.$/, 'يجب أن يكون حقل $1 صورة.'],
  [
    /^The (.+) field must not be larger than (\d+) megapixels\.$/,
    'يجب ألا تزيد أبعاد حقل $1 عن $2 ميغابكسل.',
  ],
  [/^The (.+) field must be a JSON Resume object\.$/, 'يجب أن يكون حقل $1 كائن JSON Resume.'],
  [/^The template id field cannot change here; use (.+)\.$/, 'لا يمكن تغيير حقل template id هنا؛ استخدم $1.'],
  [/^Send one file, in the multipart field photo\.$/, 'أرسل ملفاً واحداً في حقل multipart المسمى photo.'],
  [/^The photo upload is malformed: (.+)\.$/, 'رفع الصورة غير سليم: $1.'],
  [/^The request body is not valid JSON\.$/, 'جسم الطلب ليس JSON صالحاً.'],
  [/^The (.+) field must not contain NUL characters\.$/, 'يجب ألا يحتوي حقل $1 على محارف NUL.'],
  [/^The (.+) field must be valid UTF-8 text\.$/, 'يجب أن يكون حقل $1 نصاً صالحاً بترميز UTF-8.'],
  [
    /^The (.+) field is too large: all arguments together must not be greater than (\d+) kilobytes\.$/,
    'حقل $1 كبير جداً: يجب ألا يزيد حجم المعطيات كلها معاً عن $2 كيلوبايت.',
  ],
  [/^The route (.+) could not be found\.$/, 'تعذّر العثور على المسار $1.'],
  [
    /^The (.+) field must not be nested more than (\d+) levels deep\.$/,
    'يجب ألا يتجاوز تداخل حقل $1 عدد $2 مستوى.',
  ],
];

const MORE = /^(.+) \(and (\d+) more errors?\)$/;

export function arabicMessage(message: string): string {
  const more = MORE.exec(message);
  if (more !== null) return `${arabicMessage(more[1]!)} (و ${more[2]!} أخطاء أخرى)`;
  for (const [english, arabic] of ARABIC) {
    if (english.test(message)) return message.replace(english, arabic);
  }
  return message;
}

/** The error body in Arabic: its message and every field's messages. */
export function inArabic(body: HttpError['body']): HttpError['body'] {
  return {
    ...body,
    message: arabicMessage(body.message),
    ...(body.errors === undefined
      ? {}
      : {
          errors: Object.fromEntries(
            Object.entries(body.errors).map(([field, messages]) => [field, messages.map(arabicMessage)]),
          ),
        }),
  };
}
