CREATE TABLE `lockouts` (
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`version` integer NOT NULL,
	PRIMARY KEY(`kind`, `name`)
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_email_key` text NOT NULL,
	`user_email` text NOT NULL,
	`cookie_hash` text NOT NULL,
	`utk_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	FOREIGN KEY (`user_email_key`) REFERENCES `users`(`email_key`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_cookie_hash_unique` ON `sessions` (`cookie_hash`);--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_email_key`);--> statement-breakpoint
CREATE INDEX `sessions_last_seen_idx` ON `sessions` (`last_seen_at`);