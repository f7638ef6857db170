/*
 * sql: every statement a node sends, as text (fleet.h says what each
 * takes and returns; docs/fleet.md explains them).
 *
 * Each is one statement, so one implicit transaction: data-modifying
 * common table expressions (WITH x AS (UPDATE ... RETURNING ...)) let a
 * claim lock, update and record its lease, and a completion store the
 * result and end the lease, atomically and in one round trip. The
 * conditions that make the protocol safe are in the WHERE clauses:
 * (id, epoch, owner, state = 'running') is a lease, and no statement
 * touches a job whose lease is not the sender's.
 *
 * Written for PostgreSQL; docs/fleet.md says what YugabyteDB and
 * CockroachDB need of them (SKIP LOCKED, data-modifying CTEs, unnest of
 * two arrays, ON CONFLICT ... WHERE).
 */
#include "fleet/fleet.h"

/* The interval of $n milliseconds. */
#define MS(n) "(" n "::bigint * interval '1 millisecond')"

const char FLEET_SQL_BEAT[] =
	"WITH me AS ("
	" INSERT INTO provisor_nodes AS n (name, host, state_dir, boot_id, pid, started_at, last_seen,"
	"  heartbeat_ms, lease_ms, backend, gpu_slots, gpu_busy, synth_slots, synth_busy, kinds, params,"
	"  max_jobs, held, free, local_jobs, loop_max_us, stopping)"
	" VALUES ($1, $2, $3, $4, $5::int, to_timestamp($6::float8), now(), $7::int, $8::int, $9,"
	"  $10::int, $11::int, $12::int, $13::int, $14, $15, $16::int, $17::int,"
	"  greatest($16::int - $17::int, 0), $18::int, $19::bigint, $22::bool)"
	" ON CONFLICT (name) DO UPDATE SET host = EXCLUDED.host, state_dir = EXCLUDED.state_dir,"
	"  boot_id = EXCLUDED.boot_id, pid = EXCLUDED.pid, started_at = EXCLUDED.started_at,"
	"  last_seen = now(), heartbeat_ms = EXCLUDED.heartbeat_ms, lease_ms = EXCLUDED.lease_ms,"
	"  backend = EXCLUDED.backend, gpu_slots = EXCLUDED.gpu_slots, gpu_busy = EXCLUDED.gpu_busy,"
	"  synth_slots = EXCLUDED.synth_slots, synth_busy = EXCLUDED.synth_busy, kinds = EXCLUDED.kinds,"
	"  params = EXCLUDED.params, max_jobs = EXCLUDED.max_jobs, held = EXCLUDED.held,"
	"  free = EXCLUDED.free, local_jobs = EXCLUDED.local_jobs, loop_max_us = EXCLUDED.loop_max_us,"
	"  stopping = EXCLUDED.stopping"
	"  WHERE (n.host = EXCLUDED.host AND n.state_dir = EXCLUDED.state_dir)"
	"   OR n.last_seen < now() - " MS("n.lease_ms")
	" RETURNING n.name"
	"), held AS ("
	" SELECT h.id, h.epoch FROM unnest($20::bigint[], $21::int[]) AS h(id, epoch)"
	"), renewed AS ("
	" UPDATE provisor_jobs j SET lease_until = now() + " MS("$8")
	" FROM held h WHERE j.id = h.id AND j.epoch = h.epoch AND j.state = 'running'"
	"  AND j.owner IN (SELECT name FROM me)"
	" RETURNING j.id, j.epoch, j.lease_until"
	"), renewed_history AS ("
	" UPDATE provisor_leases l SET expires_at = r.lease_until FROM renewed r"
	" WHERE l.job_id = r.id AND l.epoch = r.epoch"
	"), put_back AS ("
	" UPDATE provisor_jobs j SET state = 'queued', owner = NULL, lease_until = NULL"
	" WHERE j.state = 'running' AND j.owner IN (SELECT name FROM me)"
	"  AND NOT EXISTS (SELECT 1 FROM held h WHERE h.id = j.id AND h.epoch = j.epoch)"
	" RETURNING j.id, j.epoch"
	"), put_back_history AS ("
	" UPDATE provisor_leases l SET ended_at = now(), outcome = 'released' FROM put_back p"
	" WHERE l.job_id = p.id AND l.epoch = p.epoch"
	")"
	" SELECT 0 AS what, NULL::bigint AS id, NULL::int AS epoch FROM me"
	" UNION ALL SELECT 1, id, epoch FROM renewed"
	" UNION ALL SELECT 2, id, epoch FROM put_back";

const char FLEET_SQL_CLAIM[] =
	"WITH pick AS ("
	" SELECT j.id FROM provisor_jobs j"
	" WHERE (j.state = 'queued' OR ($6::bool AND j.state = 'running' AND j.lease_until < now()))"
	"  AND EXISTS (SELECT 1 FROM unnest($2::text[], $3::int[], $4::int[], $8::text[]) AS c(kind, kmin, kmax, out)"
	"   WHERE c.kind = j.kind AND j.log_size BETWEEN c.kmin AND c.kmax AND j.output IN ('any', c.out))"
	/* no deadline last, without NULLS LAST (older CockroachDB lacks it) */
	" ORDER BY j.priority, j.deadline IS NULL, j.deadline, j.id"
	" LIMIT $5::int"
	" FOR UPDATE OF j SKIP LOCKED"
	"), claimed AS ("
	" UPDATE provisor_jobs j SET state = 'running', owner = $1, epoch = j.epoch + 1,"
	"  claims = j.claims + 1, lease_until = now() + " MS("$7")
	" FROM pick WHERE j.id = pick.id"
	" RETURNING j.id, j.epoch, j.kind, j.log_size, j.partitions, j.seed, j.priority, j.deadline,"
	"  j.lease_until"
	"), expired AS ("
	" UPDATE provisor_leases l SET ended_at = l.expires_at, outcome = 'expired' FROM claimed c"
	" WHERE l.job_id = c.id AND l.epoch = c.epoch - 1 AND l.ended_at IS NULL"
	"), history AS ("
	/* clock_timestamp(): when the row was locked, so after any release
	 * or expiry it follows (now() is when the statement began) */
	" INSERT INTO provisor_leases (job_id, epoch, node, claimed_at, expires_at)"
	" SELECT c.id, c.epoch, $1, clock_timestamp(), c.lease_until FROM claimed c"
	")"
	" SELECT id, epoch, kind, log_size, partitions, encode(seed, 'hex') FROM claimed"
	" ORDER BY priority, deadline IS NULL, deadline, id";

const char FLEET_SQL_COMPLETE[] =
	"WITH done AS ("
	" UPDATE provisor_jobs SET state = 'done', owner = NULL, lease_until = NULL,"
	"  finished_at = now(), why = NULL"
	" WHERE id = $1::bigint AND epoch = $2::int AND owner = $3 AND state = 'running'"
	" RETURNING id, epoch"
	"), stored AS ("
	" INSERT INTO provisor_results (job_id, epoch, node, output, proofs, h_digest, location)"
	" SELECT id, epoch, $3, $4, $5::bytea, $6::bytea, $7 FROM done"
	"), ended AS ("
	" UPDATE provisor_leases SET ended_at = now(), outcome = 'done'"
	" WHERE job_id = $1::bigint AND epoch = $2::int AND EXISTS (SELECT 1 FROM done)"
	"), before AS ("
	" SELECT count(*) AS n FROM provisor_results r"
	" WHERE r.job_id = $1::bigint AND r.epoch = $2::int AND r.node = $3"
	"), late AS ("
	" UPDATE provisor_leases SET late_at = now()"
	" WHERE job_id = $1::bigint AND epoch = $2::int AND node = $3"
	"  AND NOT EXISTS (SELECT 1 FROM done) AND (SELECT n FROM before) = 0"
	")"
	" SELECT (SELECT count(*) FROM done) AS done, (SELECT n FROM before) AS already";

const char FLEET_SQL_RELEASE[] =
	"WITH rel AS ("
	" UPDATE provisor_jobs j SET"
	"  failures = j.failures + CASE WHEN $4::bool THEN 1 ELSE 0 END,"
	"  state = CASE WHEN $4::bool AND j.failures + 1 >= j.max_failures THEN 'failed' ELSE 'queued' END,"
	"  finished_at = CASE WHEN $4::bool AND j.failures + 1 >= j.max_failures THEN now() END,"
	"  owner = NULL, lease_until = NULL, why = $5"
	" WHERE j.id = $1::bigint AND j.epoch = $2::int AND j.owner = $3 AND j.state = 'running'"
	" RETURNING j.id, j.state"
	"), ended AS ("
	" UPDATE provisor_leases SET ended_at = now(),"
	"  outcome = CASE WHEN $4::bool THEN 'failed' ELSE 'released' END"
	" WHERE job_id = $1::bigint AND epoch = $2::int AND EXISTS (SELECT 1 FROM rel)"
	")"
	" SELECT state FROM rel";

const char FLEET_SQL_VERSION[] =
	"SELECT coalesce(max(version), 0) FROM provisor_schema";

const char FLEET_SQL_SUBMIT[] =
	"INSERT INTO provisor_jobs (kind, log_size, partitions, seed, priority, deadline, output)"
	" VALUES ($1, $2::int, $3::int, decode($4, 'hex'), $5::int,"
	"  now() + $6::float8 * interval '1 second', $7)"
	" RETURNING id";
