package realbroker

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Node is where one KRaft node (broker and controller) listens: clients
// and brokers on Port, the metadata quorum on ControllerPort; with
// ProxyAddr set, clients on ProxyPort too, through the proxy at ProxyAddr
// that the listener advertises (see Cluster.StartProxies); with
// ReplicationAddr set, the brokers replicate over ReplicationPort, through
// the proxy at ReplicationAddr (see Cluster.StartReplicationProxies).
type Node struct {
	ID              int32
	Host            string
	Port            int
	ControllerPort  int
	ProxyPort       int
	ProxyAddr       string
	ReplicationPort int
	ReplicationAddr string
}

// BrokerDefaults are settings for a small, fast-failing test cluster: short
// session and lag timeouts so faults show within seconds, few internal
// partitions so two cores start three brokers quickly. Both providers use
// them, so faults show on the same time scale whichever runs the brokers.
func BrokerDefaults(brokers int) map[string]string {
	rf := strconv.Itoa(min(3, brokers))
	isr := strconv.Itoa(min(2, brokers))
	return map[string]string{
		"num.partitions":                           "1",
		"default.replication.factor":               rf,
		"offsets.topic.replication.factor":         rf,
		"offsets.topic.num.partitions":             "5",
		"transaction.state.log.replication.factor": rf,
		"transaction.state.log.min.isr":            isr,
		"transaction.state.log.num.partitions":     "5",
		"group.initial.rebalance.delay.ms":         "0",
		"group.min.session.timeout.ms":             "1000",
		"auto.create.topics.enable":                "false",
		"unclean.leader.election.enable":           "false",
		"replica.lag.time.max.ms":                  "10000",
		"broker.session.timeout.ms":                "6000",
		"broker.heartbeat.interval.ms":             "1000",
		"num.network.threads":                      "2",
		"num.io.threads":                           "4",
		"log.segment.bytes":                        strconv.Itoa(16 << 20),
	}
}

// Properties is self's broker configuration in a cluster of all: the
// defaults, then overrides, then identity and listeners. The last cannot
// be overridden: they are what the providers' faults and readiness depend
// on.
func Properties(self Node, all []Node, dataDir string, overrides map[string]string) map[string]string {
	voters := make([]string, len(all))
	for i, o := range all {
		voters[i] = fmt.Sprintf("%d@%s:%d", o.ID, o.Host, o.ControllerPort)
	}
	props := BrokerDefaults(len(all))
	maps.Copy(props, overrides)
	listeners := fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", self.Host, self.Port, self.Host, self.ControllerPort)
	advertised := fmt.Sprintf("PLAINTEXT://%s:%d", self.Host, self.Port)
	protocols := "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
	if self.ProxyAddr != "" {
		// a listener of its own, so that the brokers' replication and the
		// harness's admin client keep the direct one
		listeners += fmt.Sprintf(",%s://%s:%d", ProxiedListener, self.Host, self.ProxyPort)
		advertised += fmt.Sprintf(",%s://%s", ProxiedListener, self.ProxyAddr)
		protocols += "," + ProxiedListener + ":PLAINTEXT"
	}
	interBroker := "PLAINTEXT"
	if self.ReplicationAddr != "" {
		// a listener of its own too: the clients, the admin client and the
		// harness's probes keep the direct one
		listeners += fmt.Sprintf(",%s://%s:%d", ReplicationListener, self.Host, self.ReplicationPort)
		advertised += fmt.Sprintf(",%s://%s", ReplicationListener, self.ReplicationAddr)
		protocols += "," + ReplicationListener + ":PLAINTEXT"
		interBroker = ReplicationListener
	}
	maps.Copy(props, map[string]string{
		"process.roles":                  "broker,controller",
		"node.id":                        strconv.Itoa(int(self.ID)),
		"controller.quorum.voters":       strings.Join(voters, ","),
		"listeners":                      listeners,
		"advertised.listeners":           advertised,
		"controller.listener.names":      "CONTROLLER",
		"inter.broker.listener.name":     interBroker,
		"listener.security.protocol.map": protocols,
		"log.dirs":                       dataDir,
	})
	return props
}

// RenderProperties writes props as a server.properties file, keys sorted so
// that two runs of one configuration diff cleanly, after a comment line.
func RenderProperties(comment string, props map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", comment)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return b.String()
}

// NewClusterID is a Kafka cluster id: 16 random bytes, base64url, unpadded,
// never starting with '-'. One in 64 encodings does, and kafka-storage's
// argument parser then takes `-t -Xy...` for an option: format fails
// ("argument --cluster-id/-t: expected one argument") before any broker
// starts. Kafka's own Uuid.randomUuid redraws such ids for the same reason.
func NewClusterID() string {
	b := make([]byte, 16)
	for {
		rand.Read(b)
		if id := base64.RawURLEncoding.EncodeToString(b); id[0] != '-' {
			return id
		}
	}
}
