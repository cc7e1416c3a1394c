ALTER TABLE `events` ADD `verdict` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `violations` text;