CREATE TABLE "collect_rate_counts" (
	"node" text NOT NULL,
	"account" text NOT NULL,
	"second" bigint NOT NULL,
	"offered" integer NOT NULL,
	"admitted" integer NOT NULL,
	CONSTRAINT "collect_rate_counts_node_account_second_pk" PRIMARY KEY("node","account","second")
);
--> statement-breakpoint
CREATE INDEX "collect_rate_counts_second_idx" ON "collect_rate_counts" USING btree ("second");