-- The scan batch statement before one visitor row a scan (main at 902402e: two visitor rows a scan,
-- the link's and the workspace's, in scan_visitors), frozen so bench/scan-cost.ts measures it beside today's.
  WITH rollup_days AS (
    SELECT coalesce((SELECT daily_from FROM scan_rollup_days), 'infinity') AS daily_from
  ),
  claimed AS (
    INSERT INTO scan_batches (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id
  ),
  input AS (
    SELECT e.*, l.workspace_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day
    FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[],
      $10::text[], $11::text[], $12::boolean[], $13::text[], $14::integer[], $15::smallint[])
      WITH ORDINALITY AS e(link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot,
        visitor, scans, served_rule, ord)
    JOIN links l ON l.id = e.link_id AND coalesce(l.host, $16) = e.host
    WHERE EXISTS (SELECT 1 FROM claimed)
  ),
  first_seen AS (
    INSERT INTO scan_visitors (day, scope_id, visitor)
    SELECT DISTINCT i.day, s.scope_id, decode(i.visitor, 'hex')
    FROM input i CROSS JOIN LATERAL (VALUES (i.link_id), (i.workspace_id)) s(scope_id)
    WHERE i.visitor IS NOT NULL
    ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING
    RETURNING day, scope_id, encode(visitor, 'hex') AS visitor
  ),
  flagged AS (
    SELECT i.*,
      i.visitor IS NOT NULL
        AND row_number() OVER (PARTITION BY i.day, i.link_id, i.visitor ORDER BY i.ord) = 1
        AND (i.day, i.link_id, i.visitor) IN (SELECT day, scope_id, visitor FROM first_seen) AS link_unique,
      i.visitor IS NOT NULL
        AND row_number() OVER (PARTITION BY i.day, i.workspace_id, i.visitor ORDER BY i.ord) = 1
        AND (i.day, i.workspace_id, i.visitor) IN (SELECT day, scope_id, visitor FROM first_seen) AS workspace_unique
    FROM input i
  ),
  raw AS (
    INSERT INTO scan_events (link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot,
      link_unique, workspace_unique, scans, served_rule, daily)
    SELECT link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot, link_unique,
      workspace_unique, scans, served_rule, occurred_at < (SELECT daily_from FROM rollup_days)
    FROM flagged ORDER BY ord
    RETURNING 1
  ),

  folded AS (
    SELECT workspace_id, link_id,
      date_bin('15 minutes', occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS quarter,
      date_trunc('day', occurred_at, 'UTC') AS utc_day,
      coalesce(country, 'unknown') AS country, coalesce(device, 'unknown') AS device, coalesce(browser, 'unknown') AS browser,
      coalesce(os, 'unknown') AS os, coalesce(referrer_host, 'direct') AS referrer,
      CASE WHEN via_qr THEN 'qr' ELSE 'link' END AS source, bot,
      coalesce('rule:' || served_rule, 'default') AS served,
      sum(scans) AS scans, count(*) FILTER (WHERE link_unique) AS link_uniques,
      count(*) FILTER (WHERE workspace_unique) AS workspace_uniques
    FROM flagged
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
  ),
  grains AS (
    SELECT f.*, g.grain, g.bucket
    FROM folded f
    CROSS JOIN LATERAL (VALUES
      (15::smallint, f.quarter),
      (1440::smallint, f.utc_day),
      (0::smallint, date_trunc('month', f.utc_day, 'UTC'))) g(grain, bucket)
    WHERE g.grain = 15 OR f.utc_day < (SELECT daily_from FROM rollup_days)
  ),
  breakdowns AS (
    INSERT INTO scan_link_breakdowns AS b (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source,
      scans, uniques)
    SELECT workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source, sum(scans), sum(link_uniques)
    FROM grains WHERE NOT bot
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source) DO UPDATE
      SET scans = b.scans + excluded.scans, uniques = b.uniques + excluded.uniques
    RETURNING 1
  ),
  link_rollups AS (
    INSERT INTO scan_rollups AS r (workspace_id, link_id, grain, dimension, bucket, value, scans, uniques, bots)
    SELECT workspace_id, link_id, grain, dimension, bucket, value,
      coalesce(sum(scans) FILTER (WHERE NOT bot), 0), sum(uniques), coalesce(sum(scans) FILTER (WHERE bot), 0)
    FROM (
      SELECT g.workspace_id, g.link_id, g.grain, d.dimension, g.bucket, d.value, g.scans, g.link_uniques AS uniques, g.bot
      FROM grains g
      CROSS JOIN LATERAL (VALUES (0::smallint, ''), (7::smallint, g.served)) d(dimension, value)
      WHERE d.dimension = 0 OR (NOT g.bot AND g.served <> 'default')) fanned
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (workspace_id, link_id, grain, dimension, bucket, value) DO UPDATE
      SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots
    RETURNING 1
  ),
  workspace_grains AS (
    SELECT workspace_id, grain, bucket, country, device, browser, os, referrer, source, bot, served,
      sum(scans) AS scans, sum(workspace_uniques) AS uniques
    FROM grains
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  ), workspace_rollups AS (
    INSERT INTO scan_rollups AS r (workspace_id, link_id, grain, dimension, bucket, value, scans, uniques, bots)
    SELECT workspace_id, link_id, grain, dimension, bucket, value,
      coalesce(sum(scans) FILTER (WHERE NOT bot), 0), sum(uniques), coalesce(sum(scans) FILTER (WHERE bot), 0)
    FROM (
    SELECT w.workspace_id, '' AS link_id, w.grain, d.dimension, w.bucket, d.value, w.scans, w.uniques, w.bot
    FROM workspace_grains w
    CROSS JOIN LATERAL (VALUES
      (0::smallint, ''),
      (1::smallint, w.country),
      (2::smallint, w.device),
      (3::smallint, w.browser),
      (4::smallint, w.os),
      (5::smallint, w.referrer),
      (6::smallint, w.source),
      (7::smallint, w.served)) d(dimension, value)
    WHERE (d.dimension = 0 OR NOT w.bot) AND (SELECT count(*) FROM breakdowns) + (SELECT count(*) FROM link_rollups) + (SELECT count(*) FROM raw) >= 0) fanned
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (workspace_id, link_id, grain, dimension, bucket, value) DO UPDATE
      SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots
    RETURNING 1
  )
  SELECT ord FROM input WHERE (SELECT count(*) FROM workspace_rollups) >= 0 ORDER BY ord