#!/usr/bin/env bash
# Make sure everything the test suite talks to is installed and running: PostgreSQL, Redis,
# Debian's Chromium and the Noto fonts for Indic scripts. Safe to run repeatedly.
set -euo pipefail

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
APT_UPDATED=0
apt_install() {
    if [ "$APT_UPDATED" -eq 0 ]; then
        $SUDO apt-get update -qq
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -d /usr/share/fonts/truetype/noto ] || missing+=(fonts-noto-core)
command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    apt_install "${missing[@]}"
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    echo "Starting PostgreSQL"
    for version in $(ls /etc/postgresql); do
        $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    done
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "Starting Redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log
    for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 1; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping
