-- 008_sizes.sql: sizes in messages as the job files and the box write
-- them (3G, 1536M, 512K; jobs/unit.c's unit_format_size()), not as raw
-- bytes.

-- n bytes: the largest unit (K, M, G, T, P, E) that divides it, else B.
CREATE FUNCTION robot_size(n numeric) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	units text[] := ARRAY['K', 'M', 'G', 'T', 'P', 'E'];
	u int := 0;
BEGIN
	IF n IS NULL THEN
		RETURN NULL;
	END IF;
	WHILE n <> 0 AND mod(n, 1024) = 0 AND u < 6 LOOP
		n := div(n, 1024);
		u := u + 1;
	END LOOP;
	RETURN trunc(n)::text || CASE WHEN u = 0 THEN 'B' ELSE units[u] END;
END $$;

-- robot_unfit() of 002, its RAM sizes so written.
CREATE OR REPLACE FUNCTION robot_unfit(n jsonb, f jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
	WHEN robot_fact_num(n, 'ram') > robot_fact_num(f, 'ram_disk_limit')
		THEN format('needs %s of RAM disks, allows %s',
			robot_size(robot_fact_num(n, 'ram')),
			robot_size(robot_fact_num(f, 'ram_disk_limit')))
	WHEN robot_fact_num(n, 'hdd') > robot_fact_num(f, 'hdd')
		THEN format('needs %s HDD partitions, has %s',
			robot_fact_num(n, 'hdd'), robot_fact_num(f, 'hdd'))
	WHEN robot_fact_num(n, 'ssd') > robot_fact_num(f, 'ssd')
		THEN format('needs %s SSD partitions, has %s',
			robot_fact_num(n, 'ssd'), robot_fact_num(f, 'ssd'))
	WHEN n->>'fs' IS NOT NULL AND NOT (jsonb_typeof(f->'fs') = 'array'
		AND f->'fs' ? (n->>'fs'))
		THEN format('cannot make %s filesystems', n->>'fs')
	WHEN n->'fs2' = 'true'::jsonb
		THEN 'cannot export filesystems (fs2)'
	WHEN n->'md' = 'true'::jsonb
		THEN 'cannot assemble md RAID'
	END
$$;
