# What bench/run_server_bench and bench/ping_instructions share: the nginx that stands for a
# server doing nothing, and the one toolwire client they ping. Sourced, not run.

# A free loopback port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Writes $1/nginx.conf: one worker answering every request on 127.0.0.1:$2 with the 200 JSON
# a ping answers, no access log, its files under $1/nginx. Lines in $3 go at the top
# (bench/ping_instructions: `master_process off;`, one process for callgrind).
write_nginx_conf() {
  mkdir -p "$1/nginx"
  cat >"$1/nginx.conf" <<CONF
worker_processes 1;
${3:-}
daemon off;
pid $1/nginx.pid;
error_log $1/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $1/nginx;
  proxy_temp_path $1/nginx;
  fastcgi_temp_path $1/nginx;
  uwsgi_temp_path $1/nginx;
  scgi_temp_path $1/nginx;
  server {
    listen 127.0.0.1:$2;
    location / {
      default_type application/json;
      return 200 '{"expires_at_ms":1700000060000}';
    }
  }
}
CONF
}

# Creates a session on the toolwire serve at $1 (API key `bench`) and registers one client
# (TTL 60 s, no tools); prints the path of its ping. Fails when either request does.
toolwire_ping_path() {
  local sid cid
  sid=$(curl -sf -X POST -H 'Authorization: Bearer bench' -d '{}' "$1/v1/sessions" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || return 1
  cid=$(curl -sf -X POST -H 'Authorization: Bearer bench' \
    -d '{"name":"tab","lifetime":{"type":"ttl","data":{"seconds":60}},"tools":[]}' \
    "$1/v1/sessions/$sid/clients" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])') || return 1
  echo "/v1/sessions/$sid/clients/$cid/ping"
}
