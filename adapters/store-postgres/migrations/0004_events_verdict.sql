ALTER TABLE "events" ADD COLUMN "verdict" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "violations" text;