CREATE TABLE `file_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`node_id` text NOT NULL,
	`size` integer NOT NULL,
	`checksum` text NOT NULL,
	`source_type` text NOT NULL,
	`source_host` text NOT NULL,
	`line_count` integer NOT NULL,
	`status` text NOT NULL,
	`finished` integer NOT NULL,
	`progress` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `files_name_idx` ON `file_imports` (`account`,`profile`,`name`);--> statement-breakpoint
CREATE INDEX `files_prefix_idx` ON `file_imports` (`account`,`profile`,`prefix`,`created_at`);--> statement-breakpoint
CREATE INDEX `files_node_idx` ON `file_imports` (`node_id`,`finished`,`created_at`);