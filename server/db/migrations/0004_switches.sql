-- Management switches (/management/switchboard). Alerta keeps them in process memory; we keep them
-- here so every instance behind a load balancer agrees. A switch without a row is ON.
CREATE TABLE switches (
  name        text PRIMARY KEY,
  is_on       boolean NOT NULL,
  update_time timestamptz NOT NULL
);
