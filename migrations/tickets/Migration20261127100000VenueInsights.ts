import { Migration } from '@mikro-orm/migrations';

/**
 * Venue insights: rollups of every branch's ticket events by hour and by day in its venue's time
 * zone, kept by triggers in the same transaction as the change (so they can never disagree with
 * the tickets), and filled from the tickets already there. How they are read is
 * subgraphs/tickets/insights/insights.repository.ts; the method is in docs/API-DECISIONS.md
 * ("Insights").
 *
 * A bucket is named by the instant it starts. An hour starts when the venue's clock last read a
 * whole hour in the offset then in force, so the two 01:00 hours of a night the clocks go back are
 * two buckets, and a zone half an hour off UTC gets hours on its own half hours; a day starts at
 * the venue's local midnight.
 *
 * Durations (prep: created → ready, in the ready bucket; pickup: ready → collected, in the
 * collected bucket) are whole seconds (rounded down), kept twice so a percentile over a year
 * reads little: per bucket, a count of tickets by whole minute (`*_minutes`, slot 121 holding
 * 120 minutes or more, so the arrays stay short however long a ticket waits), and per bucket and
 * minute, a count by second (`insight_durations`). A percentile finds its minute in the first
 * and its second in the second (for the last slot, the minutes from 120 on).
 */
export class Migration20261127100000VenueInsights extends Migration {
  override up(): void {
    this.createRollupTables();
    this.createBucketFunctions();
    this.createPercentileFunctions();
    this.createBumpFunction();
    this.createTicketFunction();
    this.createTicketTriggers();
    this.createFeedbackTrigger();
    this.addSql(REBUILD);
    this.addSql('select "tickets"."insight_rebuild"("id") from "tickets"."branches";');
  }

  // The parts of up(), in its order; they sit between up() and down() because
  // tools/migration-policy.ts reads as up() everything from it to down().

  /** The rollups: each bucket's counts, and its durations by the second within each minute. */
  private createRollupTables(): void {
    this.addSql(`
      create table "tickets"."insight_buckets" (
        "branch_id" bigint not null references "tickets"."branches" ("id") on delete cascade,
        "size" text not null check ("size" in ('hour', 'day')),
        "start_at" timestamptz not null,
        "created" integer not null default 0,
        "ready" integer not null default 0,
        "collected" integer not null default 0,
        "cancelled" integer not null default 0,
        "linked" integer not null default 0,
        "rings" integer not null default 0,
        "sms_sent" integer not null default 0,
        "feedback_count" integer not null default 0,
        "feedback_sum" integer not null default 0,
        "prep_minutes" integer[] not null default '{}',
        "pickup_minutes" integer[] not null default '{}',
        -- The bucket's own percentiles (percentiles.ts's definition), kept with its counts.
        "prep_p50" double precision null,
        "prep_p90" double precision null,
        "pickup_p50" double precision null,
        primary key ("branch_id", "size", "start_at")
      );`);
    this.addSql(`
      create table "tickets"."insight_durations" (
        "branch_id" bigint not null references "tickets"."branches" ("id") on delete cascade,
        "size" text not null check ("size" in ('hour', 'day')),
        "start_at" timestamptz not null,
        "measure" text not null check ("measure" in ('prep', 'pickup')),
        "minute" integer not null check ("minute" >= 0),
        -- Tickets by the second within the minute: 60 counts.
        "seconds" integer[] not null,
        primary key ("branch_id", "size", "start_at", "measure", "minute")
      );`);
  }

  /** Where an instant's bucket starts in a zone, and a slot of a count array bumped. */
  private createBucketFunctions(): void {
    this.addSql(`
      create function "tickets"."insight_start"(p_size text, p_at timestamptz, p_zone text) returns timestamptz
      language sql stable as $$
        select case p_size
          when 'hour' then p_at - ((p_at at time zone p_zone) - date_trunc('hour', p_at at time zone p_zone))
          else date_trunc('day', p_at at time zone p_zone) at time zone p_zone
        end
      $$;`);
    this.addSql(`
      create function "tickets"."insight_bump_array"(p_counts integer[], p_slot integer, p_delta integer) returns integer[]
      language plpgsql immutable as $$
      declare
        v_length integer := coalesce(array_length(p_counts, 1), 0);
      begin
        if v_length < p_slot then
          p_counts := coalesce(p_counts, '{}') || array_fill(0, array[p_slot - v_length]);
        end if;
        p_counts[p_slot] := p_counts[p_slot] + p_delta;
        return p_counts;
      end $$;`);
  }

  /** A bucket's percentiles from its minute counts and seconds, kept in its row after each change. */
  private createPercentileFunctions(): void {
    // The value (whole seconds) at a 0-based rank of one bucket's durations: its minute from the
    // minute counts, its second from that minute's row (the last slot: every minute from 120 on).
    this.addSql(`
      create function "tickets"."insight_value_at"(p_branch bigint, p_size text, p_start timestamptz,
        p_measure text, p_minutes integer[], p_rank integer) returns integer
      language plpgsql stable as $$
      declare
        v_before integer := 0;
        v_slot integer := 1;
        v_slots integer := coalesce(array_length(p_minutes, 1), 0);
        v_row record;
        v_second integer;
      begin
        while v_slot <= v_slots loop
          exit when p_rank < v_before + coalesce(p_minutes[v_slot], 0);
          v_before := v_before + coalesce(p_minutes[v_slot], 0);
          v_slot := v_slot + 1;
        end loop;
        for v_row in
          select "minute", "seconds" from "tickets"."insight_durations"
           where "branch_id" = p_branch and "size" = p_size and "start_at" = p_start and "measure" = p_measure
             and ("minute" = v_slot - 1 or (v_slot = 121 and "minute" >= 120))
           order by "minute"
        loop
          for v_second in 1 .. 60 loop
            if p_rank < v_before + v_row."seconds"[v_second] then
              return v_row."minute" * 60 + v_second - 1;
            end if;
            v_before := v_before + v_row."seconds"[v_second];
          end loop;
        end loop;
        return null;
      end $$;`);
    // percentile_cont(p) of one bucket's durations; null when it has none.
    this.addSql(`
      create function "tickets"."insight_percentile"(p_branch bigint, p_size text, p_start timestamptz,
        p_measure text, p_minutes integer[], p double precision) returns double precision
      language plpgsql stable as $$
      declare
        v_n integer := coalesce((select sum(c) from unnest(p_minutes) c), 0);
        v_position double precision;
        v_low integer;
        v_high integer;
        v_a integer;
      begin
        if v_n = 0 then return null; end if;
        v_position := p * (v_n - 1);
        v_low := floor(v_position);
        v_high := ceil(v_position);
        v_a := "tickets"."insight_value_at"(p_branch, p_size, p_start, p_measure, p_minutes, v_low);
        if v_high = v_low then return v_a; end if;
        return v_a + (v_position - v_low)
          * ("tickets"."insight_value_at"(p_branch, p_size, p_start, p_measure, p_minutes, v_high) - v_a);
      end $$;`);
    // A bucket's percentiles of one measure, after its counts changed.
    this.addSql(`
      create function "tickets"."insight_refresh"(p_branch bigint, p_size text, p_start timestamptz, p_measure text)
      returns void language plpgsql as $$
      begin
        if p_measure = 'prep' then
          update "tickets"."insight_buckets" b set
            "prep_p50" = "tickets"."insight_percentile"(p_branch, p_size, p_start, 'prep', b."prep_minutes", 0.5),
            "prep_p90" = "tickets"."insight_percentile"(p_branch, p_size, p_start, 'prep', b."prep_minutes", 0.9)
           where b."branch_id" = p_branch and b."size" = p_size and b."start_at" = p_start;
        else
          update "tickets"."insight_buckets" b set
            "pickup_p50" = "tickets"."insight_percentile"(p_branch, p_size, p_start, 'pickup', b."pickup_minutes", 0.5)
           where b."branch_id" = p_branch and b."size" = p_size and b."start_at" = p_start;
        end if;
      end $$;`);
  }

  /** One event of a ticket (or its undoing, p_sign -1) in the hour and the day it happened. */
  private createBumpFunction(): void {
    this.addSql(`
      create function "tickets"."insight_bump"(
        p_branch bigint, p_zone text, p_at timestamptz, p_sign integer,
        p_created integer, p_ready integer, p_collected integer, p_cancelled integer, p_linked integer,
        p_rings integer, p_sms integer, p_feedback integer, p_rating integer,
        p_measure text, p_seconds integer
      ) returns void language plpgsql as $$
      declare
        v_size text;
        v_start timestamptz;
        v_seconds integer := greatest(coalesce(p_seconds, 0), 0);
        v_slot integer := least(v_seconds / 60, 120) + 1;
      begin
        foreach v_size in array array['hour', 'day'] loop
          v_start := "tickets"."insight_start"(v_size, p_at, p_zone);
          insert into "tickets"."insight_buckets" as b
            ("branch_id", "size", "start_at", "created", "ready", "collected", "cancelled", "linked", "rings",
             "sms_sent", "feedback_count", "feedback_sum", "prep_minutes", "pickup_minutes")
          values (p_branch, v_size, v_start, p_sign * p_created, p_sign * p_ready, p_sign * p_collected,
                  p_sign * p_cancelled, p_sign * p_linked, p_sign * p_rings, p_sign * p_sms,
                  p_sign * p_feedback, p_sign * p_rating,
                  case when p_measure = 'prep' then "tickets"."insight_bump_array"('{}', v_slot, p_sign) else '{}' end,
                  case when p_measure = 'pickup' then "tickets"."insight_bump_array"('{}', v_slot, p_sign) else '{}' end)
          on conflict ("branch_id", "size", "start_at") do update set
            "created" = b."created" + excluded."created",
            "ready" = b."ready" + excluded."ready",
            "collected" = b."collected" + excluded."collected",
            "cancelled" = b."cancelled" + excluded."cancelled",
            "linked" = b."linked" + excluded."linked",
            "rings" = b."rings" + excluded."rings",
            "sms_sent" = b."sms_sent" + excluded."sms_sent",
            "feedback_count" = b."feedback_count" + excluded."feedback_count",
            "feedback_sum" = b."feedback_sum" + excluded."feedback_sum",
            "prep_minutes" = case when p_measure = 'prep'
              then "tickets"."insight_bump_array"(b."prep_minutes", v_slot, p_sign) else b."prep_minutes" end,
            "pickup_minutes" = case when p_measure = 'pickup'
              then "tickets"."insight_bump_array"(b."pickup_minutes", v_slot, p_sign) else b."pickup_minutes" end;
          if p_measure is not null then
            insert into "tickets"."insight_durations" as d ("branch_id", "size", "start_at", "measure", "minute", "seconds")
            values (p_branch, v_size, v_start, p_measure, v_seconds / 60,
                    "tickets"."insight_bump_array"(array_fill(0, array[60]), v_seconds % 60 + 1, p_sign))
            on conflict ("branch_id", "size", "start_at", "measure", "minute") do update set
              "seconds" = "tickets"."insight_bump_array"(d."seconds", v_seconds % 60 + 1, p_sign);
            perform "tickets"."insight_refresh"(p_branch, v_size, v_start, p_measure);
          end if;
        end loop;
      end $$;`);
  }

  /** What a row of tickets.tickets adds to the rollups; p_sign -1 takes it away again. */
  private createTicketFunction(): void {
    this.addSql(`
      create function "tickets"."insight_ticket"(p_ticket "tickets"."tickets", p_zone text, p_sign integer,
        p_ready boolean, p_collected boolean, p_cancelled boolean, p_linked boolean)
      returns void language plpgsql as $$
      begin
        if p_ready and p_ticket."ready_at" is not null then
          perform "tickets"."insight_bump"(p_ticket."branch_id", p_zone, p_ticket."ready_at", p_sign,
            0, 1, 0, 0, 0, 0, 0, 0, 0,
            'prep', floor(extract(epoch from p_ticket."ready_at" - p_ticket."created_at"))::integer);
        end if;
        if p_collected and p_ticket."collected_at" is not null then
          perform "tickets"."insight_bump"(p_ticket."branch_id", p_zone, p_ticket."collected_at", p_sign,
            0, 0, 1, 0, 0, 0, 0, 0, 0,
            case when p_ticket."ready_at" is null then null else 'pickup' end,
            floor(extract(epoch from p_ticket."collected_at" - p_ticket."ready_at"))::integer);
        end if;
        if p_cancelled and p_ticket."cancelled_at" is not null then
          perform "tickets"."insight_bump"(p_ticket."branch_id", p_zone, p_ticket."cancelled_at", p_sign,
            0, 0, 0, 1, 0, 0, 0, 0, 0, null, null);
        end if;
        if p_linked and p_ticket."linked_at" is not null then
          perform "tickets"."insight_bump"(p_ticket."branch_id", p_zone, p_ticket."linked_at", p_sign,
            0, 0, 0, 0, 1, 0, 0, 0, 0, null, null);
        end if;
      end $$;`);
  }

  /** The triggers on tickets.tickets: every change of a ticket, in the same transaction. */
  private createTicketTriggers(): void {
    this.addSql(`
      create function "tickets"."insight_ticket_changed"() returns trigger language plpgsql as $$
      declare
        v_zone text;
        v_ready boolean;
        v_collected boolean;
        v_cancelled boolean;
        v_linked boolean;
      begin
        select v."timezone" into v_zone from "tickets"."branches" b
          join "tickets"."venues" v on v."id" = b."venue_id" where b."id" = new."branch_id";
        if tg_op = 'INSERT' then
          perform "tickets"."insight_bump"(new."branch_id", v_zone, new."created_at", 1,
            1, 0, 0, 0, 0, 0, 0, 0, 0, null, null);
          perform "tickets"."insight_ticket"(new, v_zone, 1, true, true, true, true);
          if new."ring_count" > 0 then
            perform "tickets"."insight_bump"(new."branch_id", v_zone, coalesce(new."last_alert_at", new."created_at"), 1,
              0, 0, 0, 0, 0, new."ring_count", 0, 0, 0, null, null);
          end if;
          if new."sms_sent" then
            perform "tickets"."insight_bump"(new."branch_id", v_zone, coalesce(new."ready_at", new."created_at"), 1,
              0, 0, 0, 0, 0, 0, 1, 0, 0, null, null);
          end if;
          return null;
        end if;
        -- A change of when the ticket was created or readied moves its durations too.
        v_ready := old."ready_at" is distinct from new."ready_at" or old."created_at" is distinct from new."created_at";
        v_collected := old."collected_at" is distinct from new."collected_at" or old."ready_at" is distinct from new."ready_at";
        v_cancelled := old."cancelled_at" is distinct from new."cancelled_at";
        v_linked := old."linked_at" is distinct from new."linked_at";
        if v_ready or v_collected or v_cancelled or v_linked then
          perform "tickets"."insight_ticket"(old, v_zone, -1, v_ready, v_collected, v_cancelled, v_linked);
          perform "tickets"."insight_ticket"(new, v_zone, 1, v_ready, v_collected, v_cancelled, v_linked);
        end if;
        if old."created_at" is distinct from new."created_at" then
          perform "tickets"."insight_bump"(old."branch_id", v_zone, old."created_at", -1, 1, 0, 0, 0, 0, 0, 0, 0, 0, null, null);
          perform "tickets"."insight_bump"(new."branch_id", v_zone, new."created_at", 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, null, null);
        end if;
        -- Each ring counts when it rang: now, as the update stamps last_alert_at.
        if new."ring_count" <> old."ring_count" then
          perform "tickets"."insight_bump"(new."branch_id", v_zone, coalesce(new."last_alert_at", now()), 1,
            0, 0, 0, 0, 0, new."ring_count" - old."ring_count", 0, 0, 0, null, null);
        end if;
        if new."sms_sent" and not old."sms_sent" then
          perform "tickets"."insight_bump"(new."branch_id", v_zone, now(), 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, null, null);
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create trigger "tickets_insights_insert" after insert on "tickets"."tickets"
        for each row execute function "tickets"."insight_ticket_changed"();`);
    this.addSql(`
      create trigger "tickets_insights_update"
        after update of "created_at", "ready_at", "collected_at", "cancelled_at", "linked_at", "ring_count", "sms_sent"
        on "tickets"."tickets"
        for each row execute function "tickets"."insight_ticket_changed"();`);
  }

  /** The trigger on tickets.ticket_feedback: a rating, when it is given. */
  private createFeedbackTrigger(): void {
    this.addSql(`
      create function "tickets"."insight_feedback_given"() returns trigger language plpgsql as $$
      declare
        v_branch bigint;
        v_zone text;
      begin
        select t."branch_id", v."timezone" into v_branch, v_zone from "tickets"."tickets" t
          join "tickets"."branches" b on b."id" = t."branch_id"
          join "tickets"."venues" v on v."id" = b."venue_id" where t."id" = new."ticket_id";
        perform "tickets"."insight_bump"(v_branch, v_zone, new."created_at", 1,
          0, 0, 0, 0, 0, 0, 0, 1, new."rating", null, null);
        return null;
      end $$;`);
    this.addSql(`
      create trigger "ticket_feedback_insights" after insert on "tickets"."ticket_feedback"
        for each row execute function "tickets"."insight_feedback_given"();`);
  }

  override down(): void {
    this.addSql('drop trigger if exists "ticket_feedback_insights" on "tickets"."ticket_feedback";');
    this.addSql('drop trigger if exists "tickets_insights_update" on "tickets"."tickets";');
    this.addSql('drop trigger if exists "tickets_insights_insert" on "tickets"."tickets";');
    this.addSql('drop function if exists "tickets"."insight_rebuild"(bigint);');
    this.addSql('drop function if exists "tickets"."insight_feedback_given"();');
    this.addSql('drop function if exists "tickets"."insight_ticket_changed"();');
    this.addSql(
      'drop function if exists "tickets"."insight_ticket"("tickets"."tickets", text, integer, boolean, boolean, boolean, boolean);',
    );
    this.addSql(
      'drop function if exists "tickets"."insight_bump"(bigint, text, timestamptz, integer, integer, integer, integer, integer, integer, integer, integer, integer, integer, text, integer);',
    );
    this.addSql('drop function if exists "tickets"."insight_refresh"(bigint, text, timestamptz, text);');
    this.addSql(
      'drop function if exists "tickets"."insight_percentile"(bigint, text, timestamptz, text, integer[], double precision);',
    );
    this.addSql(
      'drop function if exists "tickets"."insight_value_at"(bigint, text, timestamptz, text, integer[], integer);',
    );
    this.addSql('drop function if exists "tickets"."insight_bump_array"(integer[], integer, integer);');
    this.addSql('drop function if exists "tickets"."insight_start"(text, timestamptz, text);');
    this.addSql('drop table if exists "tickets"."insight_durations";');
    this.addSql('drop table if exists "tickets"."insight_buckets";');
  }
}

/**
 * Builds a branch's rollups again from its tickets, set-wise: for tickets that existed before the
 * triggers, and for a bench's seeded year. Rings before the rollups existed count at the ticket's
 * last ring (the only ring time a ticket keeps); an SMS at its message's sending.
 */
const REBUILD = `
  create function "tickets"."insight_rebuild"(p_branch bigint) returns void language plpgsql as $$
  declare
    v_zone text;
  begin
    select v."timezone" into v_zone from "tickets"."branches" b
      join "tickets"."venues" v on v."id" = b."venue_id" where b."id" = p_branch;
    delete from "tickets"."insight_durations" where "branch_id" = p_branch;
    delete from "tickets"."insight_buckets" where "branch_id" = p_branch;
    drop table if exists "insight_events";
    create temporary table "insight_events" as
      select s."size", "tickets"."insight_start"(s."size", e."at", v_zone) as "start_at",
             e."created", e."ready", e."collected", e."cancelled", e."linked", e."rings", e."sms",
             e."feedback", e."rating", e."measure", greatest(e."seconds", 0) as "seconds"
        from (
          select t."created_at" as "at", 1 as "created", 0 as "ready", 0 as "collected", 0 as "cancelled",
                 0 as "linked", 0 as "rings", 0 as "sms", 0 as "feedback", 0 as "rating",
                 null::text as "measure", null::integer as "seconds"
            from "tickets"."tickets" t where t."branch_id" = p_branch
          union all
          select t."ready_at", 0, 1, 0, 0, 0, 0, 0, 0, 0, 'prep',
                 floor(extract(epoch from t."ready_at" - t."created_at"))::integer
            from "tickets"."tickets" t where t."branch_id" = p_branch and t."ready_at" is not null
          union all
          select t."collected_at", 0, 0, 1, 0, 0, 0, 0, 0, 0,
                 case when t."ready_at" is null then null else 'pickup' end,
                 floor(extract(epoch from t."collected_at" - t."ready_at"))::integer
            from "tickets"."tickets" t where t."branch_id" = p_branch and t."collected_at" is not null
          union all
          select t."cancelled_at", 0, 0, 0, 1, 0, 0, 0, 0, 0, null, null
            from "tickets"."tickets" t where t."branch_id" = p_branch and t."cancelled_at" is not null
          union all
          select t."linked_at", 0, 0, 0, 0, 1, 0, 0, 0, 0, null, null
            from "tickets"."tickets" t where t."branch_id" = p_branch and t."linked_at" is not null
          union all
          select coalesce(t."last_alert_at", t."created_at"), 0, 0, 0, 0, 0, t."ring_count", 0, 0, 0, null, null
            from "tickets"."tickets" t where t."branch_id" = p_branch and t."ring_count" > 0
          union all
          select coalesce(m."sent_at", t."ready_at", t."created_at"), 0, 0, 0, 0, 0, 0, 1, 0, 0, null, null
            from "tickets"."tickets" t left join "tickets"."sms_messages" m on m."ticket_id" = t."id"
           where t."branch_id" = p_branch and t."sms_sent"
          union all
          select f."created_at", 0, 0, 0, 0, 0, 0, 0, 1, f."rating", null, null
            from "tickets"."ticket_feedback" f join "tickets"."tickets" t on t."id" = f."ticket_id"
           where t."branch_id" = p_branch
        ) e cross join (values ('hour'), ('day')) s("size");
    insert into "tickets"."insight_buckets"
      ("branch_id", "size", "start_at", "created", "ready", "collected", "cancelled", "linked", "rings",
       "sms_sent", "feedback_count", "feedback_sum")
    select p_branch, "size", "start_at", sum("created"), sum("ready"), sum("collected"), sum("cancelled"),
           sum("linked"), sum("rings"), sum("sms"), sum("feedback"), sum("rating")
      from "insight_events" group by "size", "start_at";
    -- Counts by whole minute (slot = minute + 1, the last slot 120 minutes or more), dense.
    with slots as (
      select "size", "start_at", "measure", least("seconds" / 60, 120) + 1 as "slot", count(*)::integer as "n"
        from "insight_events" where "measure" is not null group by 1, 2, 3, 4
    ), dense as (
      select x."size", x."start_at", x."measure", array_agg(coalesce(s."n", 0) order by g."slot") as "counts"
        from (select "size", "start_at", "measure", max("slot") as "top" from slots group by 1, 2, 3) x
        cross join lateral generate_series(1, x."top") g("slot")
        left join slots s on s."size" = x."size" and s."start_at" = x."start_at"
                         and s."measure" = x."measure" and s."slot" = g."slot"
       group by 1, 2, 3
    ), both_measures as (
      select "size", "start_at",
             max("counts") filter (where "measure" = 'prep') as "prep",
             max("counts") filter (where "measure" = 'pickup') as "pickup"
        from dense group by 1, 2
    )
    update "tickets"."insight_buckets" b
       set "prep_minutes" = coalesce(d."prep", '{}'), "pickup_minutes" = coalesce(d."pickup", '{}')
      from both_measures d
     where b."branch_id" = p_branch and d."size" = b."size" and d."start_at" = b."start_at";
    -- Counts by the second within each minute, dense.
    with seconds as (
      select "size", "start_at", "measure", "seconds" / 60 as "minute", "seconds" % 60 as "second",
             count(*)::integer as "n"
        from "insight_events" where "measure" is not null group by 1, 2, 3, 4, 5
    ), cells as (
      select distinct "size", "start_at", "measure", "minute" from seconds
    )
    insert into "tickets"."insight_durations" ("branch_id", "size", "start_at", "measure", "minute", "seconds")
    select p_branch, c."size", c."start_at", c."measure", c."minute",
           array_agg(coalesce(x."n", 0) order by g."second")
      from cells c
      cross join generate_series(0, 59) g("second")
      left join seconds x on x."size" = c."size" and x."start_at" = c."start_at" and x."measure" = c."measure"
                         and x."minute" = c."minute" and x."second" = g."second"
     group by c."size", c."start_at", c."measure", c."minute";
    update "tickets"."insight_buckets" b set
      "prep_p50" = "tickets"."insight_percentile"(p_branch, b."size", b."start_at", 'prep', b."prep_minutes", 0.5),
      "prep_p90" = "tickets"."insight_percentile"(p_branch, b."size", b."start_at", 'prep', b."prep_minutes", 0.9),
      "pickup_p50" = "tickets"."insight_percentile"(p_branch, b."size", b."start_at", 'pickup', b."pickup_minutes", 0.5)
     where b."branch_id" = p_branch;
    drop table "insight_events";
  end $$;`;
