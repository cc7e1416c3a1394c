ALTER TABLE `users` ADD `token_generation` text;--> statement-breakpoint
-- Tokens issued before this version name no generation: they stay valid for a user whose tokens never ended,
-- and end for one whose password was reset or who was disabled (a generation they do not name).
UPDATE `users` SET `token_generation` = 'ended-' || `tokens_valid_after` WHERE `tokens_valid_after` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `users` DROP COLUMN `tokens_valid_after`;