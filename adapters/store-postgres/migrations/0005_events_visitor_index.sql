-- Events shaped for appends (bench/FINDINGS.md, issue 44): the per-visitor index of events leaves the commit
-- path. `event_visitors` is filled off it, in bulk, keyed by the bucket of 4,096 sequence numbers first. The
-- events there already are copied here, and the mark says so (a database without events has no mark:
-- it reads as 0).
CREATE TABLE "event_visitors" (
	"bucket" bigint NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"visitor_id" text NOT NULL,
	"seq" bigint NOT NULL,
	CONSTRAINT "event_visitors_bucket_account_profile_visitor_id_seq_pk" PRIMARY KEY("bucket","account","profile","visitor_id","seq")
);
--> statement-breakpoint
INSERT INTO "event_visitors" ("bucket", "account", "profile", "visitor_id", "seq") SELECT "seq" >> 12, "account", "profile", "visitor_id", "seq" FROM "events";
--> statement-breakpoint
INSERT INTO "settings" ("key", "value") SELECT 'events.visitor-index', max("seq")::text FROM "events" HAVING max("seq") IS NOT NULL ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value";
--> statement-breakpoint
DROP INDEX "events_visitor_idx";
