-- Every change to a link, written by linkChanged in the change's own transaction (lib/links/changes.ts): what
-- kind of change, through which door, by whom, and the link's recorded state before and after it. Rows are
-- only ever added: a trigger refuses any UPDATE or DELETE, so no code path (and no mistaken migration) can
-- rewrite what happened. No foreign key to links: a history outlives anything done to its link's row.
CREATE TABLE "link_history" (
    "id"           BIGSERIAL PRIMARY KEY,
    "link_id"      TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "occurred_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "change"       TEXT NOT NULL,
    "via"          TEXT NOT NULL,
    "actor_kind"   TEXT NOT NULL,
    "actor_id"     TEXT,
    "changed"      TEXT[] NOT NULL,
    "before"       JSONB,
    "after"        JSONB NOT NULL
);

CREATE INDEX "link_history_link_id_id_idx" ON "link_history" ("link_id", "id" DESC);

CREATE FUNCTION "link_history_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a link''s history is append-only: rows are never changed or deleted';
END
$$;

CREATE TRIGGER "link_history_append_only" BEFORE UPDATE OR DELETE ON "link_history"
  FOR EACH ROW EXECUTE FUNCTION "link_history_append_only"();
