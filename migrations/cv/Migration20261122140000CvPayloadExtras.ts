import { Migration } from '@mikro-orm/migrations';

/**
 * What a JSON Resume import could not map (kept so an export gives it back) and the photo's
 * size, read once at upload instead of decoding the image on every read.
 */
export class Migration20261122140000CvPayloadExtras extends Migration {
  override up(): void {
    this.addSql(`alter table "cv"."cvs"
      add column "resume_extra" jsonb not null default '{}',
      add column "photo_width" integer null,
      add column "photo_height" integer null,
      add constraint "cvs_photo_complete" check (("photo" is null) = ("photo_type" is null));`);
  }

  override down(): void {
    this.addSql(`alter table "cv"."cvs"
      drop constraint "cvs_photo_complete",
      drop column "photo_height",
      drop column "photo_width",
      drop column "resume_extra";`);
  }
}
