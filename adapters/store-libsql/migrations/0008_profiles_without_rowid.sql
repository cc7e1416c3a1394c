-- Profiles and their members as WITHOUT ROWID tables, keyed by their primary key alone (bench/FINDINGS.md):
-- a lookup by member and a new visitor's profile each touch one B-tree a table instead of two (the rowid
-- table and the index of the primary key). drizzle's schema cannot say WITHOUT ROWID; a test checks it.
CREATE TABLE `__visitor_profiles_without_rowid` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`canonical` text NOT NULL,
	`data` text NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `profile`, `canonical`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__visitor_profiles_without_rowid` (`account`, `profile`, `canonical`, `data`, `last_seen_at`) SELECT `account`, `profile`, `canonical`, `data`, `last_seen_at` FROM `visitor_profiles`;
--> statement-breakpoint
DROP TABLE `visitor_profiles`;
--> statement-breakpoint
ALTER TABLE `__visitor_profiles_without_rowid` RENAME TO `visitor_profiles`;
--> statement-breakpoint
CREATE TABLE `__visitor_members_without_rowid` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`visitor_id` text NOT NULL,
	`canonical` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `visitor_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__visitor_members_without_rowid` (`account`, `profile`, `visitor_id`, `canonical`) SELECT `account`, `profile`, `visitor_id`, `canonical` FROM `visitor_members`;
--> statement-breakpoint
DROP TABLE `visitor_members`;
--> statement-breakpoint
ALTER TABLE `__visitor_members_without_rowid` RENAME TO `visitor_members`;
--> statement-breakpoint
CREATE INDEX `visitor_members_canonical_idx` ON `visitor_members` (`account`,`profile`,`canonical`);
