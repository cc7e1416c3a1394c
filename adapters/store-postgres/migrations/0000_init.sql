CREATE TABLE "data_layer_changes" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"dl_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"kind" text NOT NULL,
	"body" text,
	"state" text NOT NULL,
	"accepted_at" bigint NOT NULL,
	"due_at" bigint NOT NULL,
	"run_at" bigint NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"settled_at" bigint,
	CONSTRAINT "data_layer_changes_account_profile_dl_id_seq_pk" PRIMARY KEY("account","profile","dl_id","seq")
);
--> statement-breakpoint
CREATE TABLE "data_layers" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"dl_id" text NOT NULL,
	"present" boolean NOT NULL,
	"last_seq" bigint NOT NULL,
	"last_due_at" bigint NOT NULL,
	"settled_seq" bigint DEFAULT 0 NOT NULL,
	"served_body" text,
	"served_seq" bigint,
	"served_at" bigint,
	CONSTRAINT "data_layers_account_profile_dl_id_pk" PRIMARY KEY("account","profile","dl_id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"visitor_id" text NOT NULL,
	"visitor_id_source" text NOT NULL,
	"third_party_visitor_id" text,
	"first_party_visitor_id" text,
	"event" text,
	"datasource" text,
	"trace_id" text,
	"received_at" bigint NOT NULL,
	"data" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file_imports" (
	"id" text PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" bigint NOT NULL,
	"node_id" text NOT NULL,
	"size" bigint NOT NULL,
	"checksum" text NOT NULL,
	"source_type" text NOT NULL,
	"source_host" text NOT NULL,
	"line_count" bigint NOT NULL,
	"status" text NOT NULL,
	"finished" boolean NOT NULL,
	"progress" text
);
--> statement-breakpoint
CREATE TABLE "privacy_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"transaction_id" text NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"action" text NOT NULL,
	"attribute_id" integer NOT NULL,
	"value_hash" text NOT NULL,
	"requested_by" text NOT NULL,
	"at" bigint NOT NULL,
	"detail" json NOT NULL
);
--> statement-breakpoint
CREATE TABLE "privacy_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"kind" text NOT NULL,
	"attribute_id" integer NOT NULL,
	"value_hash" text NOT NULL,
	"value" text,
	"state" text NOT NULL,
	"requested_by" text NOT NULL,
	"created_at" bigint NOT NULL,
	"run_at" bigint,
	"attempts" integer DEFAULT 0 NOT NULL,
	"settled_at" bigint
);
--> statement-breakpoint
CREATE TABLE "attributes" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"position" integer NOT NULL,
	"id" integer NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"pii" boolean NOT NULL,
	"enrichments" json NOT NULL,
	CONSTRAINT "attributes_account_profile_id_pk" PRIMARY KEY("account","profile","id")
);
--> statement-breakpoint
CREATE TABLE "audiences" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"position" integer NOT NULL,
	"id" integer NOT NULL,
	"name" text NOT NULL,
	"conditions" json NOT NULL,
	CONSTRAINT "audiences_account_profile_id_pk" PRIMARY KEY("account","profile","id")
);
--> statement-breakpoint
CREATE TABLE "engines" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"position" integer NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"allowed_domains" json NOT NULL,
	"keys" text NOT NULL,
	"audiences" json NOT NULL,
	"badges" json NOT NULL,
	"attributes" json NOT NULL,
	CONSTRAINT "engines_account_profile_id_pk" PRIMARY KEY("account","profile","id")
);
--> statement-breakpoint
CREATE TABLE "file_definitions" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"position" integer NOT NULL,
	"prefix" text NOT NULL,
	"event" text NOT NULL,
	"visitor_id_column" text NOT NULL,
	"visitor_id_attribute" integer NOT NULL,
	"columns" json NOT NULL,
	CONSTRAINT "file_definitions_account_profile_prefix_pk" PRIMARY KEY("account","profile","prefix")
);
--> statement-breakpoint
CREATE TABLE "visitor_id_attributes" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"position" integer NOT NULL,
	"id" integer NOT NULL,
	"name" text NOT NULL,
	"parameter" text NOT NULL,
	CONSTRAINT "visitor_id_attributes_account_profile_id_pk" PRIMARY KEY("account","profile","id")
);
--> statement-breakpoint
CREATE TABLE "engine_states" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"engine_id" text NOT NULL,
	"enabled_since" bigint,
	CONSTRAINT "engine_states_account_profile_engine_id_pk" PRIMARY KEY("account","profile","engine_id")
);
--> statement-breakpoint
CREATE TABLE "visitor_members" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"visitor_id" text NOT NULL,
	"canonical" text NOT NULL,
	CONSTRAINT "visitor_members_account_profile_visitor_id_pk" PRIMARY KEY("account","profile","visitor_id")
);
--> statement-breakpoint
CREATE TABLE "visitor_merges" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"from_id" text NOT NULL,
	"into_id" text NOT NULL,
	"at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visitor_profiles" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"canonical" text NOT NULL,
	"data" json NOT NULL,
	"last_seen_at" bigint NOT NULL,
	CONSTRAINT "visitor_profiles_account_profile_canonical_pk" PRIMARY KEY("account","profile","canonical")
);
--> statement-breakpoint
CREATE TABLE "revision_targets" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"target" text NOT NULL,
	"revision_id" text NOT NULL,
	CONSTRAINT "revision_targets_account_profile_target_revision_id_pk" PRIMARY KEY("account","profile","target","revision_id")
);
--> statement-breakpoint
CREATE TABLE "revisions" (
	"account" text NOT NULL,
	"profile" text NOT NULL,
	"revision_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"seed" text,
	"details" json NOT NULL,
	"bundle" "bytea" NOT NULL,
	CONSTRAINT "revisions_account_profile_revision_id_pk" PRIMARY KEY("account","profile","revision_id")
);
--> statement-breakpoint
CREATE TABLE "lockouts" (
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"version" bigint NOT NULL,
	"relevant_until" bigint NOT NULL,
	CONSTRAINT "lockouts_kind_name_pk" PRIMARY KEY("kind","name")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_email_key" text NOT NULL,
	"user_email" text NOT NULL,
	"cookie_hash" text NOT NULL,
	"utk_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"made" bigserial NOT NULL,
	CONSTRAINT "sessions_cookie_hash_unique" UNIQUE("cookie_hash")
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"name" text PRIMARY KEY NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_email_key" text NOT NULL,
	"user_email" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_seed" text,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "profiles" (
	"account" text NOT NULL,
	"name" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "profiles_account_name_pk" PRIMARY KEY("account","name")
);
--> statement-breakpoint
CREATE TABLE "user_grants" (
	"user_email_key" text NOT NULL,
	"position" integer NOT NULL,
	"account" text NOT NULL,
	"profiles" json NOT NULL,
	CONSTRAINT "user_grants_user_email_key_position_pk" PRIMARY KEY("user_email_key","position")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"email_key" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"password_seed" text,
	"disabled" boolean NOT NULL,
	"tokens_valid_after" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attributes" ADD CONSTRAINT "attributes_account_profile_profiles_account_name_fk" FOREIGN KEY ("account","profile") REFERENCES "public"."profiles"("account","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audiences" ADD CONSTRAINT "audiences_account_profile_profiles_account_name_fk" FOREIGN KEY ("account","profile") REFERENCES "public"."profiles"("account","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "engines" ADD CONSTRAINT "engines_account_profile_profiles_account_name_fk" FOREIGN KEY ("account","profile") REFERENCES "public"."profiles"("account","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_definitions" ADD CONSTRAINT "file_definitions_account_profile_profiles_account_name_fk" FOREIGN KEY ("account","profile") REFERENCES "public"."profiles"("account","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visitor_id_attributes" ADD CONSTRAINT "visitor_id_attributes_account_profile_profiles_account_name_fk" FOREIGN KEY ("account","profile") REFERENCES "public"."profiles"("account","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "revision_targets" ADD CONSTRAINT "revision_targets_account_profile_revision_id_revisions_account_profile_revision_id_fk" FOREIGN KEY ("account","profile","revision_id") REFERENCES "public"."revisions"("account","profile","revision_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "revisions" ADD CONSTRAINT "revisions_account_profile_profiles_account_name_fk" FOREIGN KEY ("account","profile") REFERENCES "public"."profiles"("account","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_email_key_users_email_key_fk" FOREIGN KEY ("user_email_key") REFERENCES "public"."users"("email_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_email_key_users_email_key_fk" FOREIGN KEY ("user_email_key") REFERENCES "public"."users"("email_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_account_accounts_name_fk" FOREIGN KEY ("account") REFERENCES "public"."accounts"("name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_grants" ADD CONSTRAINT "user_grants_user_email_key_users_email_key_fk" FOREIGN KEY ("user_email_key") REFERENCES "public"."users"("email_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_layer_changes_pending_idx" ON "data_layer_changes" USING btree ("state","run_at");--> statement-breakpoint
CREATE INDEX "data_layers_list_idx" ON "data_layers" USING btree ("account","profile","present","dl_id");--> statement-breakpoint
CREATE INDEX "events_visitor_idx" ON "events" USING btree ("account","profile","visitor_id","seq");--> statement-breakpoint
CREATE INDEX "events_received_idx" ON "events" USING btree ("account","profile","received_at");--> statement-breakpoint
CREATE INDEX "events_trace_idx" ON "events" USING btree ("trace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "files_name_idx" ON "file_imports" USING btree ("account","profile","name");--> statement-breakpoint
CREATE INDEX "files_prefix_idx" ON "file_imports" USING btree ("account","profile","prefix","created_at");--> statement-breakpoint
CREATE INDEX "files_unfinished_idx" ON "file_imports" USING btree ("finished","created_at");--> statement-breakpoint
CREATE INDEX "privacy_audit_transaction_idx" ON "privacy_audit" USING btree ("transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "privacy_pending_deletion_idx" ON "privacy_transactions" USING btree ("account","profile","attribute_id","value_hash") WHERE "state" = 'PENDING';--> statement-breakpoint
CREATE INDEX "privacy_due_idx" ON "privacy_transactions" USING btree ("run_at") WHERE "state" = 'PENDING';--> statement-breakpoint
CREATE UNIQUE INDEX "attributes_position_idx" ON "attributes" USING btree ("account","profile","position");--> statement-breakpoint
CREATE UNIQUE INDEX "audiences_position_idx" ON "audiences" USING btree ("account","profile","position");--> statement-breakpoint
CREATE UNIQUE INDEX "engines_position_idx" ON "engines" USING btree ("account","profile","position");--> statement-breakpoint
CREATE UNIQUE INDEX "file_definitions_position_idx" ON "file_definitions" USING btree ("account","profile","position");--> statement-breakpoint
CREATE UNIQUE INDEX "visitor_id_attributes_position_idx" ON "visitor_id_attributes" USING btree ("account","profile","position");--> statement-breakpoint
CREATE INDEX "visitor_members_canonical_idx" ON "visitor_members" USING btree ("account","profile","canonical");--> statement-breakpoint
CREATE INDEX "visitor_merges_into_idx" ON "visitor_merges" USING btree ("account","profile","into_id");--> statement-breakpoint
CREATE UNIQUE INDEX "revisions_seed_idx" ON "revisions" USING btree ("account","profile","seed");--> statement-breakpoint
CREATE INDEX "lockouts_relevant_until_idx" ON "lockouts" USING btree ("relevant_until");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_email_key");--> statement-breakpoint
CREATE INDEX "sessions_last_seen_idx" ON "sessions" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "api_keys_user_email_key_idx" ON "api_keys" USING btree ("user_email_key");--> statement-breakpoint
CREATE INDEX "user_grants_account_idx" ON "user_grants" USING btree ("account");