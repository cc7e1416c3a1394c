ALTER TABLE "lockouts" ALTER COLUMN "version" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "made" bigserial NOT NULL;