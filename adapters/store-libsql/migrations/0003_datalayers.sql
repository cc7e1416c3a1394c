CREATE TABLE `data_layer_changes` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`dl_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`body` text,
	`state` text NOT NULL,
	`accepted_at` integer NOT NULL,
	`due_at` integer NOT NULL,
	`run_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`settled_at` integer,
	PRIMARY KEY(`account`, `profile`, `dl_id`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `data_layer_changes_pending_idx` ON `data_layer_changes` (`state`,`run_at`);--> statement-breakpoint
CREATE TABLE `data_layers` (
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`dl_id` text NOT NULL,
	`present` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`last_due_at` integer NOT NULL,
	`settled_seq` integer DEFAULT 0 NOT NULL,
	`served_body` text,
	`served_seq` integer,
	`served_at` integer,
	PRIMARY KEY(`account`, `profile`, `dl_id`)
);
--> statement-breakpoint
CREATE INDEX `data_layers_list_idx` ON `data_layers` (`account`,`profile`,`present`,`dl_id`);