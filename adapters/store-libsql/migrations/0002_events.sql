CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account` text NOT NULL,
	`profile` text NOT NULL,
	`visitor_id` text NOT NULL,
	`visitor_id_source` text NOT NULL,
	`third_party_visitor_id` text,
	`first_party_visitor_id` text,
	`event` text,
	`datasource` text,
	`trace_id` text,
	`received_at` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_visitor_idx` ON `events` (`account`,`profile`,`visitor_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_received_idx` ON `events` (`account`,`profile`,`received_at`);--> statement-breakpoint
CREATE INDEX `events_trace_idx` ON `events` (`trace_id`);