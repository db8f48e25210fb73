package docker

import (
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Ports inside every container: one listener for clients and brokers, one
// for the KRaft quorum, and one for clients through the harness's proxies
// when the run has them.
const (
	clientPort     = 9092
	controllerPort = 9093
	proxiedPort    = 9094
)

// dataDir is where brokers keep their logs; apache/kafka's default, so it is
// writable in both images. It survives kill and restart (the container's
// own filesystem), not Stop.
const dataDir = "/tmp/kraft-combined-logs"

// nodeEnv is node id's container environment: realbroker.Properties (the
// same configuration cluster/local writes to server.properties) mapped to
// the variables apache/kafka and this project's image read. proxies, when
// the run has them, are the clients' proxies by node.
func nodeEnv(id int32, ips, proxies map[int32]string, clusterID, heap string, overrides map[string]string) map[string]string {
	all := make([]realbroker.Node, 0, len(ips))
	for n := int32(1); int(n) <= len(ips); n++ {
		rn := realbroker.Node{ID: n, Host: ips[n], Port: clientPort, ControllerPort: controllerPort}
		if proxies != nil {
			rn.ProxyPort, rn.ProxyAddr = proxiedPort, proxies[n]
		}
		all = append(all, rn)
	}
	props := realbroker.Properties(all[id-1], all, dataDir, overrides)
	env := map[string]string{
		"CLUSTER_ID":      clusterID,
		"KAFKA_HEAP_OPTS": "-Xms" + heap + " -Xmx" + heap,
	}
	for k, v := range props {
		env[envName(k)] = v
	}
	return env
}

// envName is the apache/kafka image's variable for property key, the
// inverse of its mapping: "_" -> "__", "-" -> "___", "." -> "_", upper
// case, KAFKA_ prefix.
func envName(key string) string {
	k := strings.ReplaceAll(key, "_", "__")
	k = strings.ReplaceAll(k, "-", "___")
	k = strings.ReplaceAll(k, ".", "_")
	return "KAFKA_" + strings.ToUpper(k)
}
