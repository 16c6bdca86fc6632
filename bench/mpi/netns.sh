#!/usr/bin/env bash
# Hosts on this machine for gph's mpi engine over TCP (docs/mpi.md): N
# network namespaces gph-h1 .. gph-hN, each with its own address
# 10.77.0.(k+1) on a veth pair to a bridge (gph-br, 10.77.0.1) in the
# root namespace, so that every message between ranks crosses a socket.
#
#   bench/mpi/netns.sh up N      make them (as root)
#   bench/mpi/netns.sh down      remove them
#   bench/mpi/netns.sh hostfile  a hostfile naming them, one slot each
#
# mpirun starts its daemons in them with bench/mpi/netns-agent, its
# launch agent (`--mca plm_rsh_agent`), and MPI is told to use TCP only
# on that network: see bench/mpi/mpirun-tcp.
set -euo pipefail
cmd=${1:-}
case "$cmd" in
up)
    n=${2:?how many hosts}
    "$0" down 2>/dev/null || true
    ip link add gph-br type bridge
    ip addr add 10.77.0.1/24 dev gph-br
    ip link set gph-br up
    for k in $(seq 1 "$n"); do
        ns=gph-h$k
        ip netns add "$ns"
        ip link add "gph-v$k" type veth peer name eth0 netns "$ns"
        ip link set "gph-v$k" master gph-br up
        ip -n "$ns" addr add "10.77.0.$((k + 1))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        ip -n "$ns" route add default via 10.77.0.1
    done
    ;;
down)
    # The veths first: a namespace's end of one goes with it only later.
    for v in $(ip -o link show | awk -F': ' '$2 ~ /^gph-v[0-9]+@/ {sub(/@.*/, "", $2); print $2}'); do
        ip link del "$v"
    done
    for ns in $(ip netns list | awk '/^gph-h[0-9]+/ {print $1}'); do
        ip netns del "$ns"
    done
    ip link del gph-br 2>/dev/null || true
    ;;
hostfile)
    ip netns list | awk '/^gph-h[0-9]+/ {print $1 " slots=1"}' | sort -V
    ;;
*)
    echo "usage: $0 up N | down | hostfile" >&2
    exit 2
    ;;
esac
