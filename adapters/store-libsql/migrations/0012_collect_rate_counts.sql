CREATE TABLE `collect_rate_counts` (
	`node` text NOT NULL,
	`account` text NOT NULL,
	`second` integer NOT NULL,
	`offered` integer NOT NULL,
	`admitted` integer NOT NULL,
	PRIMARY KEY(`node`, `account`, `second`)
);
--> statement-breakpoint
CREATE INDEX `collect_rate_counts_second_idx` ON `collect_rate_counts` (`second`);