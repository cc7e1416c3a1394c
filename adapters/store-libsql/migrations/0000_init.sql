CREATE TABLE `accounts` (
	`name` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_email_key` text NOT NULL,
	`user_email` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_seed` text,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_email_key`) REFERENCES `users`(`email_key`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `api_keys_user_email_key_idx` ON `api_keys` (`user_email_key`);--> statement-breakpoint
CREATE TABLE `attributes` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`position` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`pii` integer NOT NULL,
	`enrichments` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `id`),
	FOREIGN KEY (`account`,`profile`) REFERENCES `profiles`(`account`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attributes_position_idx` ON `attributes` (`account`,`profile`,`position`);--> statement-breakpoint
CREATE TABLE `audiences` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`position` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text NOT NULL,
	`conditions` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `id`),
	FOREIGN KEY (`account`,`profile`) REFERENCES `profiles`(`account`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audiences_position_idx` ON `audiences` (`account`,`profile`,`position`);--> statement-breakpoint
CREATE TABLE `engines` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`position` integer NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`allowed_domains` text NOT NULL,
	`keys` text NOT NULL,
	`audiences` text NOT NULL,
	`badges` text NOT NULL,
	`attributes` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `id`),
	FOREIGN KEY (`account`,`profile`) REFERENCES `profiles`(`account`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `engines_position_idx` ON `engines` (`account`,`profile`,`position`);--> statement-breakpoint
CREATE TABLE `file_definitions` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`position` integer NOT NULL,
	`prefix` text NOT NULL,
	`event` text NOT NULL,
	`visitor_id_column` text NOT NULL,
	`visitor_id_attribute` integer NOT NULL,
	`columns` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `prefix`),
	FOREIGN KEY (`account`,`profile`) REFERENCES `profiles`(`account`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `file_definitions_position_idx` ON `file_definitions` (`account`,`profile`,`position`);--> statement-breakpoint
CREATE TABLE `profiles` (
	`account` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`account`, `name`),
	FOREIGN KEY (`account`) REFERENCES `accounts`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_grants` (
	`user_email_key` text NOT NULL,
	`position` integer NOT NULL,
	`account` text NOT NULL,
	`profiles` text NOT NULL,
	PRIMARY KEY(`user_email_key`, `position`),
	FOREIGN KEY (`user_email_key`) REFERENCES `users`(`email_key`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_grants_account_idx` ON `user_grants` (`account`);--> statement-breakpoint
CREATE TABLE `users` (
	`email_key` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`password_seed` text,
	`disabled` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `visitor_id_attributes` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`position` integer NOT NULL,
	`id` integer NOT NULL,
	`name` text NOT NULL,
	`parameter` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `id`),
	FOREIGN KEY (`account`,`profile`) REFERENCES `profiles`(`account`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `visitor_id_attributes_position_idx` ON `visitor_id_attributes` (`account`,`profile`,`position`);