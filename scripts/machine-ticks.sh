# Sourced by the server scripts: what the machine itself took, in clock ticks (getconf CLK_TCK per
# second). machine_ticks prints "STEAL KDAMOND": the hypervisor's steal over all vCPUs (/proc/stat)
# and the CPU time of the kernel's DAMON reclaim threads (kdamond; on this VM a paddr "pageout"
# scheme that runs in bursts of ~12 ms on a core). Either can set a p99, whichever server runs.
machine_ticks() {
  local steal kd=0 k
  steal=$(awk '/^cpu /{print $9}' /proc/stat)
  for k in $(pgrep '^kdamond' || true); do kd=$((kd + $(awk '{print $14 + $15}' "/proc/$k/stat" 2> /dev/null || echo 0))); done
  echo "$steal $kd"
}
