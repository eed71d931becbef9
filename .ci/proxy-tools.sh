#!/usr/bin/env bash
# Installs twemproxy (Debian's nutcracker) for the fan-out scenario's proxied side and its test
# (the client's ketama ring checked against twemproxy's). Called by .ci/run before the tests. If apt
# cannot install it, the fan-out scenario runs its direct side only and the proxied tests are
# skipped, each saying so (NutcrackerFact).
here="$(dirname "$0")"
bash "$here/apt-tool.sh" nutcracker "the fan-out scenario's twemproxy side and its tests will be skipped" nutcracker
