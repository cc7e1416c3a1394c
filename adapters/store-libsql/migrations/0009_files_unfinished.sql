-- Import workers look for every unfinished import (which node goes on with one is its lease's business), not
-- for a node's own: a restarted process has a new node id and must find the imports its predecessor left.
DROP INDEX `files_node_idx`;--> statement-breakpoint
CREATE INDEX `files_unfinished_idx` ON `file_imports` (`finished`,`created_at`);