#!/usr/bin/env bash
# perf (Debian's linux-perf) for the kernel sampler (--sampler perf), and stress-ng for the
# injection tests that run beside a CPU load. Installed with apt when absent; tracefs is mounted
# when the scheduler's tracepoints are not visible. Without root nothing is installed and the perf
# tests skip, saying so.
set -u
need=()
command -v perf >/dev/null 2>&1 || need+=(linux-perf)
command -v stress-ng >/dev/null 2>&1 || need+=(stress-ng)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "installing ${need[*]} (apt)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >/dev/null 2>&1 || echo "apt-get install ${need[*]} failed: the perf tests will skip"
  else
    echo "not root: cannot install ${need[*]}; the perf tests will skip"
  fi
fi
if [ ! -d /sys/kernel/tracing/events/sched ] && [ ! -d /sys/kernel/debug/tracing/events/sched ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || echo "tracefs is not mounted and could not be: the perf tests will skip"
fi
command -v perf >/dev/null 2>&1 && perf --version
command -v stress-ng >/dev/null 2>&1 && stress-ng --version 2>/dev/null | head -1
exit 0
