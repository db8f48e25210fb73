package docker

import "errors"

// errReplicationProxies is why this provider refuses replication proxies
// (cluster.Spec.ReplicationProxied), which the local provider has. The
// mechanism would be the same (proxies in the harness on the address the
// containers reach it at, the network's gateway, advertised as each
// broker's inter-broker listener), but it is not built: the proxies must be
// in place before the containers start, with their addresses in each
// container's environment, and no docker run could check it here.
var errReplicationProxies = errors.New("cluster/docker: replication proxies (a latency fault with link replication) are not built for docker; run the scenario on the local provider")
