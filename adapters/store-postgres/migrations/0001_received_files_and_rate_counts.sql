CREATE TABLE "received_file_chunks" (
	"file_id" bigint NOT NULL,
	"part" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "received_file_chunks_file_id_part_pk" PRIMARY KEY("file_id","part")
);
--> statement-breakpoint
CREATE TABLE "received_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"name" text NOT NULL,
	"complete" boolean NOT NULL,
	"size" bigint NOT NULL,
	"parts" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collect_rate_counts" (
	"node" text NOT NULL,
	"account" text NOT NULL,
	"second" bigint NOT NULL,
	"offered" integer NOT NULL,
	"admitted" integer NOT NULL,
	CONSTRAINT "collect_rate_counts_node_account_second_pk" PRIMARY KEY("node","account","second")
);
--> statement-breakpoint
ALTER TABLE "received_file_chunks" ADD CONSTRAINT "received_file_chunks_file_id_received_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."received_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "received_files_complete_idx" ON "received_files" USING btree ("account","profile","name") WHERE "received_files"."complete";--> statement-breakpoint
CREATE INDEX "received_files_name_idx" ON "received_files" USING btree ("account","profile","name");--> statement-breakpoint
CREATE INDEX "collect_rate_counts_second_idx" ON "collect_rate_counts" USING btree ("second");