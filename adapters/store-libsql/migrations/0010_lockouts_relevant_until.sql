-- DEC-SES-01: a lockout row states until when it matters, so the session janitor can delete the rows that no
-- longer do (anyone can make one per name tried). SQLite adds a NOT NULL column only with a default; the
-- schema has none, since every write states the value.
--
-- Rows written before this column need a value that deletes none of them too early: 0 would end the lock of an
-- account locked right now. A lock's end is read from the state: once it is over the count starts again. A
-- state without failures is the same as no row (0). The failures of an unlocked state matter for the window
-- after the newest, and the window is configuration, which a migration cannot know: they are kept a week after
-- the newest, far past any sensible window (the default is 10 minutes); a window configured longer than a week
-- forgets those older failures after a week. A state this version cannot read (it never writes one) keeps the
-- far-future default (2^53 - 1, the largest integer JavaScript reads exactly) until the name is tried again.
--
-- The lease rows of file imports that were given up (their expiry 0, the same as no row to every reader) are
-- deleted: earlier versions left one per import. Leases still held stay.
ALTER TABLE `lockouts` ADD `relevant_until` integer DEFAULT 9007199254740991 NOT NULL;--> statement-breakpoint
UPDATE `lockouts` SET `relevant_until` = CASE
	WHEN NOT json_valid(`state`) THEN `relevant_until`
	WHEN json_type(`state`, '$.lockedUntil') = 'integer' THEN json_extract(`state`, '$.lockedUntil')
	WHEN json_type(`state`, '$.lockedUntil') = 'null' AND json_type(`state`, '$.failures') = 'array' AND json_array_length(`state`, '$.failures') = 0 THEN 0
	WHEN json_type(`state`, '$.lockedUntil') = 'null' AND json_type(`state`, '$.failures') = 'array'
		AND (SELECT max(`value`) FROM json_each(`lockouts`.`state`, '$.failures')) IS NOT NULL
		THEN (SELECT max(`value`) FROM json_each(`lockouts`.`state`, '$.failures')) + 604800000
	ELSE `relevant_until`
END;--> statement-breakpoint
DELETE FROM `settings` WHERE `key` LIKE 'lease.file-import.%' AND `value` LIKE '%|0';--> statement-breakpoint
CREATE INDEX `lockouts_relevant_until_idx` ON `lockouts` (`relevant_until`);
