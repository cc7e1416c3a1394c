CREATE TABLE `engine_states` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`engine_id` text NOT NULL,
	`enabled_since` integer,
	PRIMARY KEY(`account`, `profile`, `engine_id`)
);
--> statement-breakpoint
CREATE TABLE `visitor_members` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`visitor_id` text NOT NULL,
	`canonical` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `visitor_id`)
);
--> statement-breakpoint
CREATE INDEX `visitor_members_canonical_idx` ON `visitor_members` (`account`,`profile`,`canonical`);--> statement-breakpoint
CREATE TABLE `visitor_merges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`from_id` text NOT NULL,
	`into_id` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `visitor_merges_into_idx` ON `visitor_merges` (`account`,`profile`,`into_id`);--> statement-breakpoint
CREATE TABLE `visitor_profiles` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`canonical` text NOT NULL,
	`data` text NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `profile`, `canonical`)
);
