#!/usr/bin/env bash
# Prints the path of redis-server, installing Debian's `redis-server`
# package first when it is absent. The fleet tests (examples/tests/fleet.rs)
# start their own redis-server on a free 127.0.0.1 port; nothing here starts
# a service.
set -euo pipefail

if ! command -v redis-server >/dev/null 2>&1; then
    sudo=()
    if [[ "$(id -u)" -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "ensure-redis: redis-server is missing and installing it needs root (apt-get install redis-server)" >&2
            exit 2
        }
        sudo=(sudo)
    fi
    echo "ensure-redis: installing Debian's redis-server package" >&2
    "${sudo[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends redis-server >&2
fi
command -v redis-server
