-- Live job-queue workers. graphile-worker leaves a job locked for 4 hours when its process dies; a
-- worker that stops beating here for 30 s is presumed dead and its jobs are unlocked for others.
CREATE TABLE job_worker_heartbeats (
  worker_id text PRIMARY KEY,
  seen_at   timestamptz NOT NULL DEFAULT now()
);
