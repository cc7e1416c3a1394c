CREATE TABLE `revision_targets` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`target` text NOT NULL,
	`revision_id` text NOT NULL,
	PRIMARY KEY(`account`, `profile`, `target`, `revision_id`),
	FOREIGN KEY (`account`,`profile`,`revision_id`) REFERENCES `revisions`(`account`,`profile`,`revision_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `revisions` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`revision_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`seed` text,
	`details` text NOT NULL,
	`bundle` blob NOT NULL,
	PRIMARY KEY(`account`, `profile`, `revision_id`),
	FOREIGN KEY (`account`,`profile`) REFERENCES `profiles`(`account`,`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `revisions_seed_idx` ON `revisions` (`account`,`profile`,`seed`);