CREATE TABLE `privacy_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`transaction_id` text NOT NULL,
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`action` text NOT NULL,
	`attribute_id` integer NOT NULL,
	`value_hash` text NOT NULL,
	`requested_by` text NOT NULL,
	`at` integer NOT NULL,
	`detail` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `privacy_audit_transaction_idx` ON `privacy_audit` (`transaction_id`);--> statement-breakpoint
CREATE TABLE `privacy_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`kind` text NOT NULL,
	`attribute_id` integer NOT NULL,
	`value_hash` text NOT NULL,
	`value` text,
	`state` text NOT NULL,
	`requested_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`run_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`settled_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `privacy_pending_deletion_idx` ON `privacy_transactions` (`account`,`profile`,`attribute_id`,`value_hash`) WHERE "state" = 'PENDING';--> statement-breakpoint
CREATE INDEX `privacy_due_idx` ON `privacy_transactions` (`run_at`) WHERE "state" = 'PENDING';